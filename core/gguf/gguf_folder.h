// A GGUF file staged as a model folder, so that the engine and the model
// plugins open it like any checkpoint, through the same files and host
// services: a private temporary folder holding the config.json,
// generation_config.json, tokenizer.json and tokenizer_config.json rebuilt
// from the file, and `model.gguf`, a symbolic link to it, from which the
// host's weights_open serves the tensors (gguf_checkpoint.h). The folder is
// removed when the StagedGguf is destroyed.
#ifndef OXINFER_CORE_GGUF_GGUF_FOLDER_H_
#define OXINFER_CORE_GGUF_GGUF_FOLDER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace oxinfer::gguf {

class StagedGguf {
 public:
  ~StagedGguf();
  StagedGguf(const StagedGguf&) = delete;
  StagedGguf& operator=(const StagedGguf&) = delete;

  // Reads `gguf_path`'s metadata (every error names the file and key) and
  // writes the folder under $TMPDIR (else /tmp).
  static absl::StatusOr<std::unique_ptr<StagedGguf>> Create(const std::string& gguf_path);

  const std::string& dir() const { return dir_; }

 private:
  StagedGguf() = default;
  std::string dir_;
};

// The GGUF file a staged folder serves (`dir`/model.gguf resolved), if `dir`
// is one (and holds no model.safetensors of its own).
std::optional<std::string> StagedGgufFile(const std::string& dir);

}  // namespace oxinfer::gguf

#endif  // OXINFER_CORE_GGUF_GGUF_FOLDER_H_
