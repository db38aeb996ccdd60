// Tests of --save-quantized: a model's record_weight (ABI 2.3) fed into a
// QuantizedWriter, the folder under TEST_TMPDIR.
#ifndef OXINFER_TESTS_SUPPORT_QUANTIZED_SAVE_H_
#define OXINFER_TESTS_SUPPORT_QUANTIZED_SAVE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/quantized_writer.h"
#include "oxinfer/abi_common.h"

namespace oxinfer {
namespace testing {

// An empty folder TEST_TMPDIR/<name> (removed first if it exists).
std::string FreshTestDir(const std::string& name);

// Pass Record and `this` as record_weight / record_ctx.
struct QuantizedSave {
  // A writer whose output is TEST_TMPDIR/<name>, for model_dir's weights.
  QuantizedSave(const std::string& name, const std::string& model_dir, oxi_dtype precision);
  static int32_t Record(void* ctx, const oxi_weight_tensor* t, char* error, size_t error_size);
  // Writes the folder; its path in `out`.
  absl::Status Finish(const std::string& device);

  std::string model_dir, out;
  absl::Status status;  // Create's
  std::unique_ptr<QuantizedWriter> writer;
};

}  // namespace testing
}  // namespace oxinfer

#endif  // OXINFER_TESTS_SUPPORT_QUANTIZED_SAVE_H_
