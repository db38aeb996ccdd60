// Exactness of the Qwen 3.5 plugin against transformers float32 (fixtures made by
// tools/reference/qwen35/make_fixtures.py): logits within 1e-4 max abs at every
// checked position, identical 32-token greedy continuations, and the chunked
// (prefill) and recurrent (decode) forms of the gated delta rule agreeing.
//
// The plugin .so is dlopened like the host does; the backend is either none
// (the plugin's portable reference ops) or each CPU backend .so passed on the
// command line (args after the plugin).
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/host_services.h"
#include "core/thread_pool.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "oxinfer/plugin_abi.h"
#include "plugins/models/qwen35/weights.h"

namespace oxinfer {
namespace qwen35 {
namespace {

std::vector<std::string>* g_args = nullptr;

constexpr float kTol = 1e-4f;
constexpr int kGreedy = 32;
const char* const kFixtures[] = {"tiny_tied", "tiny_untied", "small_realdims"};
constexpr int kPrompts = 5;

std::string Runfile(const std::string& rel) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || ws == nullptr) return rel;
  return std::string(srcdir) + "/" + ws + "/" + rel;
}

std::string FixtureDir(const std::string& name) {
  return Runfile("tests/models/qwen35/testdata/" + name);
}

// A dlopened plugin and its interface table.
struct Loaded {
  void* handle = nullptr;
  const oxi_plugin* plugin = nullptr;
  const void* iface = nullptr;
  std::string error;
};

Loaded LoadPlugin(const std::string& path) {
  Loaded l;
  l.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (l.handle == nullptr) {
    l.error = dlerror();
    return l;
  }
  auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(l.handle, OXI_ENTRY_SYMBOL));
  if (entry == nullptr) {
    l.error = "no entry symbol";
    return l;
  }
  l.plugin = entry();
  if (l.plugin->abi_major != OXI_ABI_MAJOR) {
    l.error = "ABI major mismatch";
    return l;
  }
  char reason[256] = {0};
  if (l.plugin->score(HostServices(), reason, sizeof reason) <= 0) {
    l.error = std::string("declined: ") + reason;
    return l;
  }
  l.iface = l.plugin->get_interface(HostServices(), reason, sizeof reason);
  if (l.iface == nullptr) l.error = reason;
  return l;
}

const oxi_model_iface* ModelIface() {
  static Loaded* l = [] {
    auto* x = new Loaded(LoadPlugin((*g_args)[0]));
    return x;
  }();
  EXPECT_TRUE(l->error.empty()) << l->error;
  return static_cast<const oxi_model_iface*>(l->iface);
}

struct Reference {
  std::unique_ptr<WeightFiles> file;
  int64_t vocab = 0;
  std::vector<int32_t> Ints(const std::string& name) const {
    auto t = file->Get(name);
    EXPECT_TRUE(t.ok()) << t.status();
    std::vector<int32_t> v(t->numel());
    std::memcpy(v.data(), t->data, t->nbytes);
    return v;
  }
  std::vector<float> Floats(const std::string& name) const {
    auto t = file->Get(name);
    EXPECT_TRUE(t.ok()) << t.status();
    std::vector<float> v(t->numel());
    std::memcpy(v.data(), t->data, t->nbytes);
    return v;
  }
};

Reference LoadReference(const std::string& fixture) {
  Reference r;
  auto f = WeightFiles::OpenFile(FixtureDir(fixture) + "/reference.safetensors");
  EXPECT_TRUE(f.ok()) << f.status();
  r.file = std::move(*f);
  r.vocab = r.file->Get("p0.logits")->shape[1];
  return r;
}

float MaxAbsDiff(const float* a, const float* b, int64_t n) {
  float m = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float d = std::fabs(a[i] - b[i]);
    if (!(d <= m)) m = std::isnan(d) ? INFINITY : d;  // a NaN counts as an infinite difference
  }
  return m;
}

int32_t Argmax(const std::vector<float>& v) {
  return static_cast<int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

// The backends to run with: "" (none: the plugin's reference ops) and each .so given.
struct Backend {
  std::string name;
  const oxi_backend_iface* iface = nullptr;
};

std::vector<Backend> Backends() {
  static std::vector<Backend>* list = [] {
    auto* v = new std::vector<Backend>{{"plugin reference ops", nullptr}};
    for (size_t i = 1; i < g_args->size(); ++i) {
      Loaded l = LoadPlugin((*g_args)[i]);
      if (!l.error.empty()) {
        std::printf("[ info ] backend %s not used: %s\n", (*g_args)[i].c_str(), l.error.c_str());
        continue;
      }
      v->push_back({(*g_args)[i], static_cast<const oxi_backend_iface*>(l.iface)});
    }
    return v;
  }();
  return *list;
}

class Model {
 public:
  Model(const std::string& fixture, const oxi_backend_iface* backend, int32_t prefill_chunk = 0,
        oxi_dtype weight_dtype = OXI_DTYPE_INVALID, int32_t use_mmap = 1) {
    iface_ = ModelIface();
    oxi_model_open_params p{};
    p.struct_size = sizeof(p);
    dir_ = FixtureDir(fixture);
    p.model_dir = dir_.c_str();
    p.backend = backend;
    p.weight_dtype = weight_dtype;
    p.use_mmap = use_mmap;
    p.prefill_chunk = prefill_chunk;
    char err[512] = {0};
    int32_t rc = iface_->open(&p, &m_, err, sizeof err);
    EXPECT_EQ(rc, OXI_OK) << err;
    vocab_ = m_ ? iface_->vocab_size(m_) : 0;
  }
  ~Model() {
    if (m_) iface_->close(m_);
  }
  bool ok() const { return m_ != nullptr; }
  int32_t vocab() const { return vocab_; }
  std::vector<float> Forward(const int32_t* t, int64_t n) {
    std::vector<float> logits(vocab_);
    char err[512] = {0};
    int32_t rc = iface_->forward(m_, t, n, logits.data(), err, sizeof err);
    EXPECT_EQ(rc, OXI_OK) << err;
    return logits;
  }
  int32_t Truncate(int64_t n) { return iface_->truncate(m_, n); }

 private:
  const oxi_model_iface* iface_ = nullptr;
  oxi_model* m_ = nullptr;
  std::string dir_;
  int32_t vocab_ = 0;
};

std::string P(int i, const char* what) { return "p" + std::to_string(i) + "." + what; }

class Qwen35Exactness : public ::testing::TestWithParam<const char*> {};

TEST_P(Qwen35Exactness, ProbeAcceptsConfig) {
  const oxi_model_iface* m = ModelIface();
  ASSERT_NE(m, nullptr);
  auto text = ReadTextFile(FixtureDir(GetParam()) + "/config.json");
  ASSERT_TRUE(text.ok());
  char reason[256] = {0};
  EXPECT_GT(m->probe(FixtureDir(GetParam()).c_str(), text->c_str(), reason, sizeof reason), 0)
      << reason;
}

// One forward of the whole prompt (chunked gated delta rule) then cached greedy
// decode (recurrent form), against transformers.
TEST_P(Qwen35Exactness, PrefillAndGreedyMatchTransformers) {
  Reference ref = LoadReference(GetParam());
  for (const Backend& be : Backends()) {
    for (int i = 0; i < kPrompts; ++i) {
      Model m(GetParam(), be.iface);
      ASSERT_TRUE(m.ok());
      ASSERT_EQ(m.vocab(), ref.vocab);
      const std::vector<int32_t> tokens = ref.Ints(P(i, "tokens"));
      const std::vector<float> logits = ref.Floats(P(i, "logits"));
      const std::vector<int32_t> greedy = ref.Ints(P(i, "greedy"));
      const std::vector<float> glogits = ref.Floats(P(i, "greedy_logits"));
      const int64_t n = tokens.size();
      std::vector<float> out = m.Forward(tokens.data(), n);
      const float d_prefill = MaxAbsDiff(out.data(), logits.data() + (n - 1) * ref.vocab, ref.vocab);
      EXPECT_LE(d_prefill, kTol) << GetParam() << " p" << i << " prefill, " << be.name;
      float d_decode = 0.0f;
      std::vector<int32_t> ours;
      for (int j = 0; j < kGreedy; ++j) {
        d_decode = std::max(d_decode, MaxAbsDiff(out.data(), glogits.data() + j * ref.vocab, ref.vocab));
        const int32_t next = Argmax(out);
        ours.push_back(next);
        if (j + 1 < kGreedy) out = m.Forward(&next, 1);
      }
      EXPECT_LE(d_decode, kTol) << GetParam() << " p" << i << " decode, " << be.name;
      EXPECT_EQ(ours, greedy) << GetParam() << " p" << i << " greedy, " << be.name;
      std::printf("[ diff ] %-11s p%d len %3lld  prefill %.2e  greedy-decode %.2e  tokens %s  (%s)\n",
                  GetParam(), i, static_cast<long long>(n), d_prefill, d_decode,
                  ours == greedy ? "identical" : "DIFFER", be.name.c_str());
    }
  }
}

// Every prompt position through single-token forwards (recurrent form) and
// through uneven prefill blocks (chunked form carried across blocks).
TEST_P(Qwen35Exactness, EveryPositionRecurrentAndBlockwise) {
  Reference ref = LoadReference(GetParam());
  for (const Backend& be : Backends()) {
    for (int i = 0; i < kPrompts; ++i) {
      const std::vector<int32_t> tokens = ref.Ints(P(i, "tokens"));
      const std::vector<float> logits = ref.Floats(P(i, "logits"));
      const int64_t n = tokens.size();
      Model rec(GetParam(), be.iface);
      ASSERT_TRUE(rec.ok());
      float d_rec = 0.0f;
      for (int64_t t = 0; t < n; ++t) {
        std::vector<float> out = rec.Forward(&tokens[t], 1);
        d_rec = std::max(d_rec, MaxAbsDiff(out.data(), logits.data() + t * ref.vocab, ref.vocab));
      }
      EXPECT_LE(d_rec, kTol) << GetParam() << " p" << i << " recurrent, " << be.name;
      // Blocks of 37, 70, 5, ...: chunk boundaries of the delta rule fall inside blocks.
      Model blk(GetParam(), be.iface);
      ASSERT_TRUE(blk.ok());
      float d_blk = 0.0f;
      const int64_t sizes[] = {37, 70, 5};
      int64_t s = 0;
      for (int b = 0; s < n; ++b) {
        const int64_t len = std::min(sizes[b % 3], n - s);
        std::vector<float> out = blk.Forward(tokens.data() + s, len);
        s += len;
        d_blk = std::max(d_blk, MaxAbsDiff(out.data(), logits.data() + (s - 1) * ref.vocab, ref.vocab));
      }
      EXPECT_LE(d_blk, kTol) << GetParam() << " p" << i << " blockwise, " << be.name;
      std::printf("[ diff ] %-11s p%d len %3lld  all positions recurrent %.2e  blockwise %.2e  (%s)\n",
                  GetParam(), i, static_cast<long long>(n), d_rec, d_blk, be.name.c_str());
    }
  }
}

// The chunked and recurrent forms of the whole model agree on the long prompts,
// also with the plugin's own prefill blocking (prefill_chunk 50).
TEST_P(Qwen35Exactness, ChunkedAndRecurrentAgreeOnLongPrompts) {
  Reference ref = LoadReference(GetParam());
  for (const Backend& be : Backends()) {
    for (int i : {3, 4}) {
      const std::vector<int32_t> tokens = ref.Ints(P(i, "tokens"));
      const int64_t n = tokens.size();
      ASSERT_GT(n, 64);
      Model chunked(GetParam(), be.iface), blocked(GetParam(), be.iface, 50), rec(GetParam(), be.iface);
      std::vector<float> a = chunked.Forward(tokens.data(), n);
      std::vector<float> b = blocked.Forward(tokens.data(), n);
      std::vector<float> c;
      for (int64_t t = 0; t < n; ++t) c = rec.Forward(&tokens[t], 1);
      const float d_ab = MaxAbsDiff(a.data(), b.data(), ref.vocab);
      const float d_ac = MaxAbsDiff(a.data(), c.data(), ref.vocab);
      EXPECT_LE(d_ab, kTol);
      EXPECT_LE(d_ac, kTol);
      std::printf("[ diff ] %-11s p%d len %3lld  chunked vs prefill_chunk=50 %.2e  chunked vs recurrent %.2e  (%s)\n",
                  GetParam(), i, static_cast<long long>(n), d_ab, d_ac, be.name.c_str());
    }
  }
}

// Truncate replays the kept prefix: the continuation is as if never cut.
TEST_P(Qwen35Exactness, TruncateThenContinue) {
  Reference ref = LoadReference(GetParam());
  const std::vector<int32_t> tokens = ref.Ints(P(4, "tokens"));
  const std::vector<float> logits = ref.Floats(P(4, "logits"));
  const int64_t n = tokens.size();
  Model m(GetParam(), nullptr);
  ASSERT_TRUE(m.ok());
  m.Forward(tokens.data(), n);
  ASSERT_EQ(m.Truncate(70), OXI_OK);
  std::vector<float> out = m.Forward(tokens.data() + 70, n - 70);
  EXPECT_LE(MaxAbsDiff(out.data(), logits.data() + (n - 1) * ref.vocab, ref.vocab), kTol);
  ASSERT_EQ(m.Truncate(0), OXI_OK);
  out = m.Forward(tokens.data(), 9);
  EXPECT_LE(MaxAbsDiff(out.data(), logits.data() + 8 * ref.vocab, ref.vocab), kTol);
}

// Weights converted at load: to F32 (exact: the stored BF16 values are kept) and,
// with a backend that quantises, to Q8_0 / Q4_0: a smoke test (opens, runs, stays
// near). These tiny random models are very sensitive to weight noise: fake-quantising
// the weights alone to Q8_0 in transformers moves the tied model's logits by 0.24.
TEST_P(Qwen35Exactness, ConvertedWeights) {
  Reference ref = LoadReference(GetParam());
  const std::vector<int32_t> tokens = ref.Ints(P(4, "tokens"));
  const std::vector<float> logits = ref.Floats(P(4, "logits"));
  const int64_t n = tokens.size();
  const float* want = logits.data() + (n - 1) * ref.vocab;
  for (const Backend& be : Backends()) {
    Model f32(GetParam(), be.iface, 0, OXI_DTYPE_F32, /*use_mmap=*/0);
    ASSERT_TRUE(f32.ok());
    std::vector<float> out = f32.Forward(tokens.data(), n);
    const float d = MaxAbsDiff(out.data(), want, ref.vocab);
    EXPECT_LE(d, kTol) << be.name;
    std::printf("[ diff ] %-11s p4 weights f32 at load %.2e  (%s)\n", GetParam(), d, be.name.c_str());
    if (be.iface == nullptr) continue;  // the plugin's reference ops do not quantise
    for (oxi_dtype q : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      Model m(GetParam(), be.iface, 0, q);
      ASSERT_TRUE(m.ok());
      out = m.Forward(tokens.data(), n);
      const float dq = MaxAbsDiff(out.data(), want, ref.vocab);
      EXPECT_LE(dq, q == OXI_DTYPE_Q8_0 ? 0.4f : 3.0f) << oxi_dtype_name(q) << " " << be.name;
      std::printf("[ diff ] %-11s p4 weights %s at load %.2e  (%s)\n", GetParam(), oxi_dtype_name(q), dq,
                  be.name.c_str());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Qwen35Exactness, ::testing::ValuesIn(kFixtures));

TEST(Qwen35Plugin, ProbeRefusesOtherFamilies) {
  const oxi_model_iface* m = ModelIface();
  ASSERT_NE(m, nullptr);
  char reason[256] = {0};
  EXPECT_EQ(m->probe("/nonexistent", "{\"model_type\": \"gemma4\"}", reason, sizeof reason), 0);
  EXPECT_NE(std::string(reason).find("gemma4"), std::string::npos) << reason;
  EXPECT_EQ(m->probe("/nonexistent", "not json", reason, sizeof reason), 0);
  EXPECT_EQ(m->probe("/nonexistent", "{\"model_type\": \"qwen3_5_moe\"}", reason, sizeof reason), 0);
}

TEST(Qwen35Plugin, ReportsLoadingProgress) {
  const oxi_model_iface* m = ModelIface();
  ASSERT_NE(m, nullptr);
  const std::string dir = FixtureDir("tiny_tied");
  oxi_model_open_params p{};
  p.struct_size = sizeof(p);
  p.model_dir = dir.c_str();
  std::vector<double> seen;
  p.progress = [](void* ctx, double done, double total, const char*) {
    static_cast<std::vector<double>*>(ctx)->push_back(done / total);
  };
  p.progress_ctx = &seen;
  oxi_model* model = nullptr;
  char err[256] = {0};
  ASSERT_EQ(m->open(&p, &model, err, sizeof err), OXI_OK) << err;
  m->close(model);
  ASSERT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
}

// A sharded checkpoint (model.safetensors.index.json + two shards, written here
// from tiny_tied's tensors) loads and gives the same logits.
TEST(Qwen35Plugin, ShardedCheckpoint) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  ASSERT_NE(tmp, nullptr);
  const std::string src = FixtureDir("tiny_tied");
  const std::string dir = std::string(tmp) + "/tiny_tied_sharded";
  ::mkdir(dir.c_str(), 0755);
  {
    auto cfg = ReadTextFile(src + "/config.json");
    ASSERT_TRUE(cfg.ok());
    std::ofstream(dir + "/config.json") << *cfg;
  }
  auto files = WeightFiles::OpenFile(src + "/model.safetensors");
  ASSERT_TRUE(files.ok()) << files.status();
  const char* kNames[] = {"dtype_invalid", "F32", "BF16", "F16"};
  nlohmann::json index = {{"metadata", nlohmann::json::object()},
                          {"weight_map", nlohmann::json::object()}};
  std::vector<const TensorView*> shard[2];
  int i = 0;
  for (const auto& kv : (*files)->tensors()) shard[i++ % 2].push_back(&kv.second);
  for (int s = 0; s < 2; ++s) {
    const std::string name = "model-0000" + std::to_string(s + 1) + "-of-00002.safetensors";
    nlohmann::json header = nlohmann::json::object();
    uint64_t off = 0;
    for (const TensorView* t : shard[s]) {
      ASSERT_LE(t->dtype, OXI_DTYPE_F16);
      header[t->name] = {{"dtype", kNames[t->dtype]}, {"shape", t->shape},
                         {"data_offsets", {off, off + t->nbytes}}};
      off += t->nbytes;
      index["weight_map"][t->name] = name;
    }
    const std::string h = header.dump();
    const uint64_t n = h.size();
    std::ofstream out(dir + "/" + name, std::ios::binary);
    for (int b = 0; b < 8; ++b) out.put(static_cast<char>((n >> (8 * b)) & 0xff));
    out << h;
    for (const TensorView* t : shard[s]) out.write(reinterpret_cast<const char*>(t->data), t->nbytes);
  }
  std::ofstream(dir + "/model.safetensors.index.json") << index.dump(2);

  Reference ref = LoadReference("tiny_tied");
  const std::vector<int32_t> tokens = ref.Ints(P(1, "tokens"));
  const std::vector<float> logits = ref.Floats(P(1, "logits"));
  const oxi_model_iface* m = ModelIface();
  ASSERT_NE(m, nullptr);
  oxi_model_open_params p{};
  p.struct_size = sizeof(p);
  p.model_dir = dir.c_str();
  oxi_model* model = nullptr;
  char err[256] = {0};
  ASSERT_EQ(m->open(&p, &model, err, sizeof err), OXI_OK) << err;
  std::vector<float> out(ref.vocab);
  ASSERT_EQ(m->forward(model, tokens.data(), tokens.size(), out.data(), err, sizeof err), OXI_OK) << err;
  m->close(model);
  EXPECT_LE(MaxAbsDiff(out.data(), logits.data() + (tokens.size() - 1) * ref.vocab, ref.vocab), kTol);
}

TEST(Qwen35Plugin, OpenMissingDirFailsCleanly) {
  const oxi_model_iface* m = ModelIface();
  ASSERT_NE(m, nullptr);
  oxi_model_open_params p{};
  p.struct_size = sizeof(p);
  p.model_dir = "/nonexistent/qwen";
  oxi_model* model = nullptr;
  char err[256] = {0};
  EXPECT_NE(m->open(&p, &model, err, sizeof err), OXI_OK);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(std::string(err).find("config.json"), std::string::npos) << err;
}

}  // namespace
}  // namespace qwen35
}  // namespace oxinfer

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  oxinfer::qwen35::g_args = new std::vector<std::string>(argv + 1, argv + argc);
  // The tiny fixtures are far below any threading threshold; a single-threaded
  // pool keeps the run time steady on a busy 2-core machine (spinning workers
  // compete with other jobs). QWEN35_TEST_THREADS=N uses N threads instead.
  const char* threads = std::getenv("QWEN35_TEST_THREADS");
  oxinfer::ThreadPool::SetGlobalThreads(threads != nullptr ? std::atoi(threads) : 1);
  if (oxinfer::qwen35::g_args->empty()) {
    std::fprintf(stderr, "usage: %s PLUGIN.so [BACKEND.so...]\n", argv[0]);
    return 2;
  }
  return RUN_ALL_TESTS();
}
