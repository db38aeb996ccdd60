// Token sampling with HF transformers' semantics.
//
// The logits pass through the same processors, in the same order, as
// transformers' generate() builds them:
//   1. repetition penalty (RepetitionPenaltyLogitsProcessor): for every token
//      id seen before, a positive logit is divided by the penalty and a
//      negative one multiplied by it (each id once, however often it occurred);
//   2. temperature (TemperatureLogitsWarper): logits / temperature;
//   3. top-k (TopKLogitsWarper): logits below the k-th largest become -inf
//      (ties with the k-th are kept);
//   4. top-p (TopPLogitsWarper): sorted ascending, the tokens whose cumulative
//      probability is <= 1 - top_p are removed, the most likely always kept;
//   5. min-p (MinPLogitsWarper): tokens with probability < min_p * max prob
//      are removed, the most likely always kept.
// Then a token is drawn from softmax(logits) (torch.multinomial's role), or,
// with temperature 0 (HF's do_sample=False), the argmax is taken after the
// repetition penalty (first index on ties, as torch.argmax).
//
// Randomness: xoshiro256** (Blackman & Vigna), seeded by expanding the
// 64-bit seed with splitmix64. A draw takes the top 53 bits of one output as
// u in [0, 1) and returns the first token whose cumulative probability
// (summed in token-id order, in double precision) exceeds u * total. The
// stream of u is identical on every platform; probabilities use std::exp, so
// a token whose cumulative bound is within an ulp of u could differ across
// libms (practically never).
#ifndef OXINFER_CORE_SAMPLING_SAMPLER_H_
#define OXINFER_CORE_SAMPLING_SAMPLER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace oxinfer::sampling {

struct SamplingParams {
  // 0 means greedy (argmax); HF's default is 1.
  float temperature = 1.0f;
  // 0 disables.
  int top_k = 0;
  // 1 disables.
  float top_p = 1.0f;
  // 0 disables.
  float min_p = 0.0f;
  // 1 disables.
  float repetition_penalty = 1.0f;
  uint64_t seed = 0;

  absl::Status Validate() const;
};

// xoshiro256** seeded with splitmix64.
class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed = 0) { Seed(seed); }
  void Seed(uint64_t seed);
  uint64_t Next();
  // Uniform in [0, 1) with 53 random bits.
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t s_[4];
};

class Sampler {
 public:
  explicit Sampler(const SamplingParams& params);

  // Picks the next token id from `logits` (one per vocabulary entry), given
  // the ids generated or prompted so far (for the repetition penalty).
  int32_t Sample(absl::Span<const float> logits, absl::Span<const int32_t> previous_tokens = {});

  // The processed logits (steps 1-5; -inf where removed), as HF computes the
  // scores it samples from. With temperature 0 only step 1 applies.
  std::vector<float> Process(absl::Span<const float> logits,
                             absl::Span<const int32_t> previous_tokens = {}) const;

  // The distribution Sample() draws from: softmax of Process().
  std::vector<double> Probabilities(absl::Span<const float> logits,
                                    absl::Span<const int32_t> previous_tokens = {}) const;

  // Restarts the random stream.
  void Reseed(uint64_t seed) { rng_.Seed(seed); }
  const SamplingParams& params() const { return params_; }

 private:
  SamplingParams params_;
  Xoshiro256 rng_;
};

// Building blocks, exposed for tests.
void ApplyRepetitionPenalty(float penalty, absl::Span<const int32_t> previous,
                            std::vector<float>* scores);
void ApplyTopK(int top_k, std::vector<float>* scores);
void ApplyTopP(float top_p, std::vector<float>* scores);
void ApplyMinP(float min_p, std::vector<float>* scores);
std::vector<double> Softmax(absl::Span<const float> scores);
int32_t Argmax(absl::Span<const float> scores);

}  // namespace oxinfer::sampling

#endif  // OXINFER_CORE_SAMPLING_SAMPLER_H_
