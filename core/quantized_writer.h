// Writes a --save-quantized folder (core/quantized_format.h) from the weights
// a model reports while it opens (oxi_model_open_params.record_weight).
//
//   ASSIGN_OR_RETURN(auto w, QuantizedWriter::Create(out_dir, model_dir, OXI_DTYPE_Q4_0));
//   ... open the model with record_weight calling w->Add(tensor) ...
//   RETURN_IF_ERROR(w->Finish(model_dir, "cpu-avx512"));
//
// Each tensor goes to disk as it arrives (the model's memory is not held a
// second time), into shards of at most max_shard_bytes of data (a larger
// tensor gets a shard of its own), in a temporary folder beside the output;
// Finish writes model.safetensors.index.json, copies the model folder's
// other files (config, tokenizer, chat template), syncs and renames the
// folder into place. The output is never seen half-written: until Finish
// returns it is absent or the previous save; a writer destroyed before
// Finish removes its temporary folder.
#ifndef OXINFER_CORE_QUANTIZED_WRITER_H_
#define OXINFER_CORE_QUANTIZED_WRITER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/quantized_format.h"
#include "oxinfer/abi_common.h"

namespace oxinfer {

inline constexpr uint64_t kMaxQuantizedShardBytes = uint64_t{1} << 30;

class QuantizedWriter {
 public:
  // Checks `out_dir` before any work: absent (its parent a writable folder),
  // an empty folder, or a previous save (replaced at Finish); anything else,
  // or the model folder itself, is refused naming the path and the flag.
  // precision: Q8_0 or Q4_0 (what --quant asked for).
  static absl::StatusOr<std::unique_ptr<QuantizedWriter>> Create(
      const std::string& out_dir, const std::string& model_dir, oxi_dtype precision,
      uint64_t max_shard_bytes = kMaxQuantizedShardBytes);
  ~QuantizedWriter();
  QuantizedWriter(const QuantizedWriter&) = delete;
  QuantizedWriter& operator=(const QuantizedWriter&) = delete;

  // One weight as the model holds it; its bytes are written before it returns.
  // INVALID_ARGUMENT for a duplicate name, a dtype neither safetensors nor
  // the format holds, or a size that does not match dtype and shape.
  absl::Status Add(const oxi_weight_tensor& t);

  // Seals the last shard, writes the index, copies the model folder's other
  // files (not its weights), and renames the folder into place. `device`:
  // the backend whose layouts the tensors are in.
  absl::Status Finish(const std::string& model_dir, const std::string& device);

  int64_t tensors() const { return tensors_; }
  int64_t shards() const { return static_cast<int64_t>(sealed_.size()); }
  uint64_t bytes() const { return total_bytes_; }
  const std::string& out_dir() const { return out_dir_; }

 private:
  struct Entry {
    std::string name;
    std::string dtype;  // the safetensors name ("BF16", "U8")
    std::vector<int64_t> shape;
    uint64_t begin = 0, end = 0;
  };
  QuantizedWriter() = default;
  absl::Status OpenShard();
  absl::Status SealShard();

  std::string out_dir_, tmp_dir_;
  bool replace_ = false;  // out_dir_ holds a previous save
  bool finished_ = false;
  oxi_dtype precision_ = OXI_DTYPE_INVALID;
  uint64_t max_shard_bytes_ = kMaxQuantizedShardBytes;
  // The shard being written: its data in a .data file, its entries.
  int data_fd_ = -1;
  uint64_t shard_bytes_ = 0;
  std::vector<Entry> entries_;
  QuantizedMetadata shard_meta_;
  std::vector<std::string> sealed_;           // temporary shard files, in order
  std::map<std::string, size_t> weight_map_;  // tensor -> index into sealed_
  int64_t tensors_ = 0;
  uint64_t total_bytes_ = 0;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_QUANTIZED_WRITER_H_
