#include "core/sampling/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_format.h"

namespace oxinfer::sampling {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

uint64_t SplitMix64(uint64_t* x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

absl::Status SamplingParams::Validate() const {
  if (!(temperature >= 0.0f) || std::isinf(temperature)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("temperature must be >= 0 (0 = greedy), got %g", temperature));
  }
  if (top_k < 0)
    return absl::InvalidArgumentError(absl::StrFormat("top_k must be >= 0, got %d", top_k));
  if (!(top_p > 0.0f && top_p <= 1.0f)) {
    return absl::InvalidArgumentError(absl::StrFormat("top_p must be in (0, 1], got %g", top_p));
  }
  if (!(min_p >= 0.0f && min_p <= 1.0f)) {
    return absl::InvalidArgumentError(absl::StrFormat("min_p must be in [0, 1], got %g", min_p));
  }
  if (!(repetition_penalty > 0.0f) || std::isinf(repetition_penalty)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("repetition_penalty must be > 0, got %g", repetition_penalty));
  }
  return absl::OkStatus();
}

void Xoshiro256::Seed(uint64_t seed) {
  uint64_t x = seed;
  for (uint64_t& s : s_) s = SplitMix64(&x);
}

uint64_t Xoshiro256::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

void ApplyRepetitionPenalty(float penalty, absl::Span<const int32_t> previous,
                            std::vector<float>* scores) {
  if (penalty == 1.0f || previous.empty()) return;
  std::vector<bool> seen(scores->size(), false);
  for (int32_t id : previous) {
    if (id < 0 || static_cast<size_t>(id) >= scores->size() || seen[id]) continue;
    seen[id] = true;
    float& s = (*scores)[id];
    s = s < 0 ? s * penalty : s / penalty;
  }
}

void ApplyTopK(int top_k, std::vector<float>* scores) {
  if (top_k <= 0 || static_cast<size_t>(top_k) >= scores->size()) return;
  std::vector<float> sorted(*scores);
  std::nth_element(sorted.begin(), sorted.begin() + (top_k - 1), sorted.end(),
                   std::greater<float>());
  const float kth = sorted[top_k - 1];
  for (float& s : *scores) {
    if (s < kth) s = kNegInf;
  }
}

std::vector<double> Softmax(absl::Span<const float> scores) {
  std::vector<double> p(scores.size(), 0.0);
  float mx = kNegInf;
  for (float s : scores) mx = std::max(mx, s);
  if (mx == kNegInf) return p;
  double sum = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    p[i] = scores[i] == kNegInf ? 0.0 : std::exp(static_cast<double>(scores[i]) - mx);
    sum += p[i];
  }
  for (double& x : p) x /= sum;
  return p;
}

void ApplyTopP(float top_p, std::vector<float>* scores) {
  if (top_p >= 1.0f || scores->empty()) return;
  std::vector<int32_t> order(scores->size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return (*scores)[a] < (*scores)[b]; });
  std::vector<double> probs = Softmax(*scores);
  const double threshold = 1.0 - static_cast<double>(top_p);
  double cum = 0;
  for (size_t r = 0; r + 1 < order.size(); ++r) {  // the last (most likely) is always kept
    cum += probs[order[r]];
    if (cum <= threshold) (*scores)[order[r]] = kNegInf;
  }
}

void ApplyMinP(float min_p, std::vector<float>* scores) {
  if (min_p <= 0.0f || scores->empty()) return;
  std::vector<double> probs = Softmax(*scores);
  const int32_t best = Argmax(*scores);
  const double bar = static_cast<double>(min_p) * probs[best];
  for (size_t i = 0; i < scores->size(); ++i) {
    if (static_cast<int32_t>(i) != best && probs[i] < bar) (*scores)[i] = kNegInf;
  }
}

int32_t Argmax(absl::Span<const float> scores) {
  int32_t best = 0;
  for (size_t i = 1; i < scores.size(); ++i) {
    if (scores[i] > scores[best]) best = static_cast<int32_t>(i);
  }
  return best;
}

Sampler::Sampler(const SamplingParams& params) : params_(params), rng_(params.seed) {}

std::vector<float> Sampler::Process(absl::Span<const float> logits,
                                    absl::Span<const int32_t> previous_tokens) const {
  std::vector<float> scores(logits.begin(), logits.end());
  ApplyRepetitionPenalty(params_.repetition_penalty, previous_tokens, &scores);
  if (params_.temperature <= 0.0f) return scores;  // greedy
  if (params_.temperature != 1.0f) {
    for (float& s : scores) s = s / params_.temperature;
  }
  ApplyTopK(params_.top_k, &scores);
  ApplyTopP(params_.top_p, &scores);
  ApplyMinP(params_.min_p, &scores);
  return scores;
}

std::vector<double> Sampler::Probabilities(absl::Span<const float> logits,
                                           absl::Span<const int32_t> previous_tokens) const {
  std::vector<float> scores = Process(logits, previous_tokens);
  if (params_.temperature <= 0.0f) {
    std::vector<double> p(scores.size(), 0.0);
    if (!p.empty()) p[Argmax(scores)] = 1.0;
    return p;
  }
  return Softmax(scores);
}

int32_t Sampler::Sample(absl::Span<const float> logits, absl::Span<const int32_t> previous_tokens) {
  if (logits.empty()) return -1;
  std::vector<float> scores = Process(logits, previous_tokens);
  if (params_.temperature <= 0.0f) return Argmax(scores);
  std::vector<double> probs = Softmax(scores);
  double total = 0;
  for (double p : probs) total += p;
  if (!(total > 0)) return Argmax(scores);
  const double u = rng_.NextDouble() * total;
  double cum = 0;
  int32_t last_nonzero = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] <= 0) continue;
    last_nonzero = static_cast<int32_t>(i);
    cum += probs[i];
    if (u < cum) return last_nonzero;
  }
  return last_nonzero;
}

}  // namespace oxinfer::sampling
