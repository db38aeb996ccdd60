// Tests of --save-quantized: a model's record_weight (ABI 2.3) fed into a
// QuantizedWriter, the folder under TEST_TMPDIR.
#ifndef OXINFER_TESTS_SUPPORT_QUANTIZED_SAVE_H_
#define OXINFER_TESTS_SUPPORT_QUANTIZED_SAVE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/quantized_writer.h"
#include "oxinfer/abi_common.h"
#include "oxinfer/backend_abi.h"

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

// Feeds tokens to a model's sequence 0 and returns the last position's logits.
using FeedLogits = std::function<std::vector<float>(const int32_t* tokens, size_t n)>;

// `prompt`, then `steps` greedy tokens, fed to `at_load` (quantised at load)
// and `saved` (the saved folder): every step's logits bit-identical, or a
// failure naming `what` and the step.
void ExpectGreedyLogitsIdentical(const FeedLogits& at_load, const FeedLogits& saved,
                                 const std::vector<int32_t>& prompt, int64_t vocab, int steps,
                                 const std::string& what);

// The folder's matrices are blocks of `precision`, at least half of them in
// the layout `backend` prefers, and it holds lm_head.weight (a tied head's
// Q8_0 copy); prints a summary line.
void ExpectSavedLayout(const std::string& dir, const oxi_backend_iface* backend,
                       const std::string& backend_name, oxi_dtype precision,
                       const std::string& what);

}  // namespace testing
}  // namespace oxinfer

#endif  // OXINFER_TESTS_SUPPORT_QUANTIZED_SAVE_H_
