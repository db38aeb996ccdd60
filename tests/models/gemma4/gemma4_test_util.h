// What the Gemma 4 plugin tests share: the command line (plugin, fixtures,
// backend specs), the committed transformers references, and a thin C++ handle
// on an opened model that speaks the model ABI.
//
// Usage of every test binary: <test> <liboxinfer_gemma4.so> <testdata dir> <backend spec>...
// where a spec is what tests/support/test_backends.h takes.
#ifndef OXINFER_TESTS_MODELS_GEMMA4_GEMMA4_TEST_UTIL_H_
#define OXINFER_TESTS_MODELS_GEMMA4_GEMMA4_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/plugin_abi.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace gemma4_test {

constexpr float kTolerance = 1e-4f;      // against transformers' float32 logits
constexpr float kSameTolerance = 1e-5f;  // one computation against another of ours

struct Args {
  std::string plugin, testdata;
  std::vector<std::string> backend_specs;
};
Args& CommandLine();
// Parses argv (after gtest took its flags); false with a usage line on error.
bool ParseCommandLine(int argc, char** argv);

const oxi_model_iface* ModelIface();
std::string FixtureDir(const std::string& name);

// The backends of the command line that can run here (a variant this CPU
// lacks is reported and skipped).
std::vector<std::unique_ptr<testing::TestBackend>> Backends();

struct Prompt {
  std::vector<int32_t> tokens, greedy;
  std::vector<float> logits, greedy_logits;          // [T][V], [G][V]
  std::vector<float> logits_f64, greedy_logits_f64;  // the float64 run, for diagnosis
};
std::vector<Prompt> LoadReference(const std::string& fixture_dir, int vocab);

// reference_embeddings.safetensors (make_embedding_fixtures.py).
struct EmbeddingPrompt {
  std::vector<int32_t> tokens;  // image_token_id at the soft positions
  std::vector<uint8_t> mask;
  std::vector<float> embeddings, logits;  // [T][H], [T][V]
};
EmbeddingPrompt LoadEmbeddingReference(const std::string& fixture_dir);

// A float tensor of the fixture's checkpoint as f32 (e.g. the embedding table).
std::vector<float> LoadCheckpointFloats(const std::string& fixture_dir, const std::string& name);

// Max |a - b| over n values; infinity when either side is not finite.
float MaxAbsDiff(const float* a, const float* b, int64_t n);
// The media fixture generators' audio (make_vision_fixtures.py lcg_samples):
// a 32-bit LCG's top 16 bits under a staircase envelope, floor-divided as
// Python does, / 32768 in float32.
std::vector<float> LcgSamples(int64_t n, uint32_t seed);
int32_t ArgMax(const float* v, int64_t n);

// The assistant fixtures' reference (make_assistant_fixture.py): for each
// greedy step g, the drafts for the prompt + greedy[:g] with next greedy[g].
struct DraftPrompt {
  std::vector<int32_t> tokens, greedy;
  std::vector<int32_t> drafts;        // [G][N]
  std::vector<float> hidden, logits;  // [G][N][hidden], [G][N][V]
  int n_draft = 0;
};
std::vector<DraftPrompt> LoadDraftReference(const std::string& assistant_dir);

struct OpenOptions {
  std::string draft_dir;  // an assistant checkpoint ("": none)
  int32_t prefill_chunk = 0;
  int32_t max_sequences = 1;
  oxi_dtype weight_dtype = OXI_DTYPE_INVALID;
  int64_t context_length = 0;
  // ABI 2.3: the weights as loaded (--save-quantized); NULL: not asked.
  int32_t (*record_weight)(void* ctx, const oxi_weight_tensor* t, char* error,
                           size_t error_size) = nullptr;
  void* record_ctx = nullptr;
};

// One opened model; every call checks its status (gtest failures with the
// plugin's message) and returns it.
class Model {
 public:
  Model(const std::string& dir, const oxi_backend_iface* backend, const OpenOptions& o = {});
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  bool ok() const { return model_ != nullptr; }
  oxi_model* raw() const { return model_; }
  const oxi_model_info& info() const { return info_; }
  int vocab() const { return info_.vocab_size; }

  // Raw forward: the status, the message in *error.
  int32_t Forward(const std::vector<oxi_batch_entry>& entries, std::string* error);
  // Appends tokens to seq; the logits of `mode` (LAST: [V], ALL: [n][V]).
  std::vector<float> Feed(int32_t seq, const std::vector<int32_t>& tokens,
                          int32_t mode = OXI_LOGITS_LAST);
  std::vector<float> Feed(int32_t seq, const int32_t* tokens, int64_t n,
                          int32_t mode = OXI_LOGITS_LAST);
  int32_t Truncate(int32_t seq, int64_t n, std::string* error = nullptr);
  int32_t Copy(int32_t src, int32_t dst, int64_t n, std::string* error = nullptr);
  void Free(int32_t seq);
  // n drafts after `next` on seq: the status (message in *error when given,
  // else a gtest failure), tokens, and optionally logits / hidden states.
  int32_t Draft(int32_t seq, int32_t next, int32_t n, std::vector<int32_t>* tokens,
                std::vector<float>* logits = nullptr, std::vector<float>* hidden = nullptr,
                std::string* error = nullptr);

 private:
  oxi_model* model_ = nullptr;
  oxi_model_info info_ = {};
};

// An entry appending n tokens to seq (logits into out, sized by the caller).
oxi_batch_entry TokenEntry(int32_t seq, const int32_t* tokens, int64_t n, int32_t mode, float* out);

}  // namespace gemma4_test
}  // namespace oxinfer

#endif  // OXINFER_TESTS_MODELS_GEMMA4_GEMMA4_TEST_UTIL_H_
