// A small, self-contained safetensors reader for the plugin: one file or a
// sharded checkpoint (model.safetensors.index.json). Files are memory-mapped
// read-only; tensors point into the mappings, which live as long as the
// WeightFiles object.
// TODO(oxinfer): switch to //core:safetensors once its API is settled.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_WEIGHTS_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_WEIGHTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "oxinfer/dtype.h"

namespace oxinfer {
namespace qwen35 {

struct TensorView {
  std::string name;
  oxi_dtype dtype = OXI_DTYPE_INVALID;
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;
  uint64_t nbytes = 0;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

class WeightFiles {
 public:
  // Opens <dir>/model.safetensors.index.json's shards, or <dir>/model.safetensors.
  static absl::StatusOr<std::unique_ptr<WeightFiles>> Open(const std::string& dir);
  // Opens one file.
  static absl::StatusOr<std::unique_ptr<WeightFiles>> OpenFile(const std::string& path);
  ~WeightFiles();
  WeightFiles(const WeightFiles&) = delete;
  WeightFiles& operator=(const WeightFiles&) = delete;

  bool Has(const std::string& name) const { return tensors_.count(name) != 0; }
  absl::StatusOr<TensorView> Get(const std::string& name) const;
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }
  // Hands the whole mapped pages of t's bytes back to the kernel once the
  // model holds its own copy; they are read from the file again if touched.
  static void Release(const TensorView& t);

 private:
  WeightFiles() = default;
  absl::Status AddFile(const std::string& path);

  struct Mapping {
    void* addr = nullptr;
    size_t size = 0;
  };
  std::vector<Mapping> mappings_;
  std::map<std::string, TensorView> tensors_;
};

// Reads a whole text file.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_WEIGHTS_H_
