#include "core/sampling/sampler.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/chat/value.h"
#include "gtest/gtest.h"

namespace oxinfer::sampling {
namespace {

using chat::Value;

constexpr float kInf = std::numeric_limits<float>::infinity();

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

SamplingParams ParamsFrom(const Value& cfg) {
  SamplingParams p;
  for (const auto& [k, v] : cfg.object().items()) {
    if (k == "temperature") p.temperature = static_cast<float>(v.as_double());
    if (k == "top_k") p.top_k = static_cast<int>(v.as_int());
    if (k == "top_p") p.top_p = static_cast<float>(v.as_double());
    if (k == "min_p") p.min_p = static_cast<float>(v.as_double());
    if (k == "repetition_penalty") p.repetition_penalty = static_cast<float>(v.as_double());
  }
  return p;
}

std::vector<float> Floats(const Value& list) {
  std::vector<float> out;
  for (const Value& v : list.array()) out.push_back(static_cast<float>(v.as_double()));
  return out;
}

std::vector<int32_t> Ints(const Value& list) {
  std::vector<int32_t> out;
  for (const Value& v : list.array()) out.push_back(static_cast<int32_t>(v.as_int()));
  return out;
}

// Upper critical value of chi-square with df degrees of freedom at p = 0.001
// (Wilson-Hilferty).
double ChiSquareCritical(int df) {
  const double z = 3.0902;
  double a = 2.0 / (9.0 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

// Chi-square statistic of `counts` against `probs` over n draws, merging bins
// with expected count < 5 into one. Returns {statistic, df}.
std::pair<double, int> ChiSquare(const std::vector<int>& counts, const std::vector<double>& probs,
                                 int n) {
  double stat = 0, small_exp = 0, small_obs = 0;
  int bins = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    double e = probs[i] * n;
    if (e <= 0) continue;
    if (e < 5) {
      small_exp += e;
      small_obs += counts[i];
      continue;
    }
    stat += (counts[i] - e) * (counts[i] - e) / e;
    ++bins;
  }
  if (small_exp > 0) {
    stat += (small_obs - small_exp) * (small_obs - small_exp) / small_exp;
    ++bins;
  }
  return {stat, std::max(1, bins - 1)};
}

class HfFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto v = Value::FromJson(ReadAll("tests/sampling/testdata/hf_processors.json"));
    ASSERT_TRUE(v.ok()) << v.status();
    fixture_ = *v;
  }
  Value fixture_;
};

// The processed scores equal transformers' processors bit for bit, and the
// distribution matches theirs.
TEST_F(HfFixture, ProcessorsMatchTransformers) {
  const Value& logits = *fixture_.object().Find("logits");
  int n = 0;
  for (const Value& c : fixture_.object().Find("cases")->array()) {
    const auto& o = c.object();
    std::string name = o.Find("logits")->as_string() + "/" + o.Find("config")->as_string() +
                       (o.Find("previous")->array().empty() ? "" : "/prev");
    Sampler s(ParamsFrom(*o.Find("params")));
    ASSERT_TRUE(s.params().Validate().ok()) << name;
    std::vector<float> in = Floats(*logits.object().Find(o.Find("logits")->as_string()));
    std::vector<int32_t> prev = Ints(*o.Find("previous"));
    std::vector<float> got = s.Process(in, prev);
    const auto& want = o.Find("scores")->array();
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < got.size(); ++i) {
      if (want[i].is_none()) {
        EXPECT_EQ(got[i], -kInf) << name << " token " << i;
      } else {
        EXPECT_EQ(got[i], static_cast<float>(want[i].as_double())) << name << " token " << i;
      }
    }
    std::vector<double> probs = s.Probabilities(in, prev);
    const auto& want_p = o.Find("probs")->array();
    for (size_t i = 0; i < probs.size(); ++i) {
      EXPECT_NEAR(probs[i], want_p[i].as_double(), 1e-12) << name << " token " << i;
    }
    SamplingParams greedy = s.params();
    greedy.temperature = 0;
    EXPECT_EQ(Sampler(greedy).Sample(in, prev), o.Find("greedy")->as_int()) << name;
    ++n;
  }
  EXPECT_EQ(n, 64);
}

// Frequencies over many seeded draws follow the distribution (chi-square at
// p = 0.001; deterministic because the seed is fixed), and removed tokens are
// never drawn.
TEST_F(HfFixture, SampledFrequenciesFollowDistribution) {
  const Value& logits = *fixture_.object().Find("logits");
  constexpr int kDraws = 20000;
  for (const Value& c : fixture_.object().Find("cases")->array()) {
    const auto& o = c.object();
    if (o.Find("logits")->as_string() == "random64") continue;  // keep the test fast
    std::string name = o.Find("logits")->as_string() + "/" + o.Find("config")->as_string();
    SamplingParams p = ParamsFrom(*o.Find("params"));
    p.seed = 20261129;
    Sampler s(p);
    std::vector<float> in = Floats(*logits.object().Find(o.Find("logits")->as_string()));
    std::vector<int32_t> prev = Ints(*o.Find("previous"));
    std::vector<double> probs;
    for (const Value& x : o.Find("probs")->array()) probs.push_back(x.as_double());
    std::vector<int> counts(in.size(), 0);
    for (int i = 0; i < kDraws; ++i) {
      int32_t t = s.Sample(in, prev);
      ASSERT_GE(t, 0);
      ASSERT_LT(t, static_cast<int32_t>(in.size()));
      ASSERT_GT(probs[t], 0) << name << ": drew removed token " << t;
      ++counts[t];
    }
    auto [stat, df] = ChiSquare(counts, probs, kDraws);
    EXPECT_LT(stat, ChiSquareCritical(df)) << name << " df=" << df;
  }
}

TEST(SamplerTest, GreedyPicksArgmaxFirstOnTies) {
  SamplingParams p;
  p.temperature = 0;
  Sampler s(p);
  EXPECT_EQ(s.Sample(std::vector<float>{0.1f, 2.0f, -1.0f, 2.0f}), 1);
  EXPECT_EQ(s.Sample(std::vector<float>{5.0f}), 0);
}

TEST(SamplerTest, RepetitionPenaltyHfSemantics) {
  std::vector<float> scores = {2.0f, -2.0f, 1.0f, 0.5f};
  ApplyRepetitionPenalty(2.0f, std::vector<int32_t>{0, 1, 1, 7, -3}, &scores);
  EXPECT_EQ(scores, (std::vector<float>{1.0f, -4.0f, 1.0f, 0.5f}));
  // Greedy choice changes when the best token was already used.
  SamplingParams p;
  p.temperature = 0;
  p.repetition_penalty = 3.0f;
  EXPECT_EQ(Sampler(p).Sample(std::vector<float>{3.0f, 2.0f}, std::vector<int32_t>{0}), 1);
}

TEST(SamplerTest, TopKKeepsTiesAtTheBoundary) {
  std::vector<float> s = {1.0f, 3.0f, 2.0f, 2.0f, 0.0f};
  ApplyTopK(2, &s);
  EXPECT_EQ(s, (std::vector<float>{-kInf, 3.0f, 2.0f, 2.0f, -kInf}));
}

TEST(SamplerTest, TopPAndMinPKeepTheBestToken) {
  std::vector<float> s = {10.0f, 0.0f, 0.0f};
  ApplyTopP(0.01f, &s);
  EXPECT_EQ(s, (std::vector<float>{10.0f, -kInf, -kInf}));
  std::vector<float> m = {0.0f, 10.0f, 0.0f};
  ApplyMinP(1.0f, &m);
  EXPECT_EQ(m, (std::vector<float>{-kInf, 10.0f, -kInf}));
}

TEST(SamplerTest, SeededAndReproducible) {
  SamplingParams p;
  p.temperature = 1.0f;
  p.seed = 7;
  std::vector<float> logits = {0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f};
  Sampler a(p), b(p);
  std::vector<int32_t> sa, sb;
  for (int i = 0; i < 200; ++i) {
    sa.push_back(a.Sample(logits));
    sb.push_back(b.Sample(logits));
  }
  EXPECT_EQ(sa, sb);
  a.Reseed(7);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(a.Sample(logits), sa[i]);
  p.seed = 8;
  Sampler c(p);
  std::vector<int32_t> sc;
  for (int i = 0; i < 200; ++i) sc.push_back(c.Sample(logits));
  EXPECT_NE(sa, sc);
}

// Pins the random stream so it is the same on every platform and release.
TEST(SamplerTest, XoshiroStreamIsPinned) {
  Xoshiro256 r0(0);
  EXPECT_EQ(r0.Next(), 0x99ec5f36cb75f2b4ull);
  EXPECT_EQ(r0.Next(), 0xbf6e1f784956452aull);
  EXPECT_EQ(r0.Next(), 0x1a5f849d4933e6e0ull);
  EXPECT_EQ(r0.Next(), 0x6aa594f1262d2d2cull);
  Xoshiro256 r42(42);
  EXPECT_EQ(r42.Next(), 0x15780b2e0c2ec716ull);
  EXPECT_EQ(r42.Next(), 0x6104d9866d113a7eull);
  double u = Xoshiro256(1).NextDouble();
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
}

TEST(SamplerTest, ValidateRejectsBadParams) {
  SamplingParams p;
  EXPECT_TRUE(p.Validate().ok());
  p.temperature = -1;
  EXPECT_FALSE(p.Validate().ok());
  p = SamplingParams();
  p.top_p = 0;
  EXPECT_FALSE(p.Validate().ok());
  p = SamplingParams();
  p.min_p = 1.5f;
  EXPECT_FALSE(p.Validate().ok());
  p = SamplingParams();
  p.top_k = -2;
  EXPECT_FALSE(p.Validate().ok());
  p = SamplingParams();
  p.repetition_penalty = 0;
  EXPECT_FALSE(p.Validate().ok());
}

}  // namespace
}  // namespace oxinfer::sampling
