// What the Qwen 3.5 plugin tests share: the command line (the plugin .so,
// then backend specs for tests/support:test_backends), the transformers
// fixtures, and a model opened through the ABI with a forward over entries.
#ifndef OXINFER_TESTS_MODELS_QWEN35_QWEN35_TEST_SUPPORT_H_
#define OXINFER_TESTS_MODELS_QWEN35_QWEN35_TEST_SUPPORT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/plugin_abi.h"
#include "oxinfer/sdk/weights.hpp"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace qwen35 {
namespace test {

constexpr float kTol = 1e-4f;  // against transformers float32
constexpr int kGreedy = 32;    // greedy tokens per prompt in the fixtures
constexpr int kPrompts = 5;    // prompts p0..p4: lengths 1, 9, 64, 65, 140
extern const char* const kFixtures[3];

// Parses argv (PLUGIN.so [BACKEND_SPEC...]) and sets a 1-thread pool
// (QWEN35_TEST_THREADS=N for more); qwen35_test_main.cc calls it.
int Init(int argc, char** argv);

const oxi_model_iface* ModelIface();
// The backends of the command line that run on this CPU (others are reported and skipped).
const std::vector<std::unique_ptr<testing::TestBackend>>& Backends();
std::string FixtureDir(const std::string& name);
const oxi_host_services* Host();

// reference.safetensors of a fixture (tools/reference/qwen35/make_fixtures.py).
class Reference {
 public:
  explicit Reference(const std::string& fixture, const std::string& file = "reference");
  int64_t vocab() const { return vocab_; }
  bool ok() const { return file_.is_open(); }
  std::vector<int32_t> Ints(const std::string& name) const;
  std::vector<float> Floats(const std::string& name) const;
  // Prompt i's tensors: "tokens", "logits", "greedy", "greedy_logits".
  std::vector<int32_t> Tokens(int i) const { return Ints(P(i, "tokens")); }
  std::vector<float> Logits(int i) const { return Floats(P(i, "logits")); }
  static std::string P(int i, const char* what) { return "p" + std::to_string(i) + "." + what; }

 private:
  sdk::Weights file_;
  int64_t vocab_ = 0;
};

float MaxAbsDiff(const float* a, const float* b, int64_t n);
int32_t Argmax(const float* v, int64_t n);

// One entry of a forward, with its output.
struct Entry {
  int32_t seq = 0;
  std::vector<int32_t> tokens;
  std::vector<float> embeddings;     // optional [n][hidden]
  std::vector<uint8_t> mask;         // optional [n]
  std::vector<int32_t> positions;    // optional [n]
  int32_t logits = OXI_LOGITS_LAST;  // oxi_logits_mode
  int64_t n = -1;                    // positions; -1: tokens.size()
  std::vector<float> out;            // the logits, after Forward
};

struct Result {
  int32_t code = OXI_OK;
  std::string message;
  bool ok() const { return code == OXI_OK; }
};

struct OpenOptions {
  int32_t prefill_chunk = 0;
  oxi_dtype weight_dtype = OXI_DTYPE_INVALID;
  int32_t use_mmap = 1;
  int32_t max_sequences = 1;
  int64_t context_length = 0;
  int32_t draft = 0;  // ABI 2.2: load the MTP head
  // ABI 2.3: the weights as loaded (--save-quantized); NULL: not asked.
  int32_t (*record_weight)(void* ctx, const oxi_weight_tensor* t, char* error,
                           size_t error_size) = nullptr;
  void* record_ctx = nullptr;
};

// What one draft call returned.
struct Drafts {
  Result result;
  std::vector<int32_t> tokens;
  std::vector<float> logits;  // [n][vocab]
  std::vector<float> hidden;  // [n][hidden]
};

class TestModel {
 public:
  TestModel(const std::string& dir, const oxi_backend_iface* backend,
            const OpenOptions& options = OpenOptions());
  ~TestModel();
  bool ok() const { return m_ != nullptr; }
  const std::string& open_error() const { return open_error_; }
  const oxi_model_info& info() const { return info_; }
  int64_t vocab() const { return info_.vocab_size; }

  Result Forward(std::vector<Entry>* entries);
  // The last position's logits of tokens appended to seq (a failed call is a test failure).
  std::vector<float> Last(const int32_t* tokens, int64_t n, int32_t seq = 0);
  std::vector<float> Last(const std::vector<int32_t>& tokens, int32_t seq = 0) {
    return Last(tokens.data(), static_cast<int64_t>(tokens.size()), seq);
  }
  Result Truncate(int32_t seq, int64_t n_keep);
  Result Copy(int32_t src, int32_t dst, int64_t n);
  void Free(int32_t seq);
  Drafts Draft(int32_t seq, int32_t next_token, int32_t n);

 private:
  const oxi_model_iface* iface_ = nullptr;
  oxi_model* m_ = nullptr;
  oxi_model_info info_{};
  std::string open_error_;
};

}  // namespace test
}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_TESTS_MODELS_QWEN35_QWEN35_TEST_SUPPORT_H_
