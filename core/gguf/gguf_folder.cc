#include "core/gguf/gguf_folder.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "core/gguf/gguf_checkpoint.h"

namespace oxinfer::gguf {
namespace {

constexpr const char* kFiles[] = {"config.json", "generation_config.json", "tokenizer.json",
                                  "tokenizer_config.json", "model.gguf"};

absl::Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace

StagedGguf::~StagedGguf() {
  if (dir_.empty()) return;
  for (const char* f : kFiles) ::unlink((dir_ + "/" + f).c_str());
  ::rmdir(dir_.c_str());
}

absl::StatusOr<std::unique_ptr<StagedGguf>> StagedGguf::Create(const std::string& gguf_path) {
  char* real = ::realpath(gguf_path.c_str(), nullptr);
  if (real == nullptr) {
    return absl::NotFoundError(absl::StrCat(gguf_path, ": ", std::strerror(errno)));
  }
  const std::string absolute = real;
  std::free(real);
  // The metadata alone: the tensors are mapped by whoever opens the weights.
  auto checkpoint = OpenGgufCheckpoint(absolute, LoadMode::kMmap, /*tensors=*/false);
  if (!checkpoint.ok()) return checkpoint.status();

  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      absl::StrCat(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp", "/oxinfer-gguf-XXXXXX");
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot make a folder for ", gguf_path, " (", tmpl,
                                            "): ", std::strerror(errno)));
  }
  std::unique_ptr<StagedGguf> staged(new StagedGguf);
  staged->dir_ = tmpl;
  const GgufCheckpoint& c = **checkpoint;
  const std::pair<const char*, const std::string*> texts[] = {
      {"config.json", &c.config_json},
      {"generation_config.json", &c.generation_config_json},
      {"tokenizer.json", &c.tokenizer_json},
      {"tokenizer_config.json", &c.tokenizer_config_json}};
  for (const auto& [name, text] : texts) {
    if (absl::Status s = WriteText(staged->dir_ + "/" + name, *text); !s.ok()) return s;
  }
  if (::symlink(absolute.c_str(), (staged->dir_ + "/model.gguf").c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot link ", absolute, " into ", staged->dir_, ": ", std::strerror(errno)));
  }
  return staged;
}

std::optional<std::string> StagedGgufFile(const std::string& dir) {
  struct stat st;
  const std::string link = dir + "/model.gguf";
  if (::stat(link.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (::stat((dir + "/model.safetensors").c_str(), &st) == 0) return std::nullopt;
  return link;
}

}  // namespace oxinfer::gguf
