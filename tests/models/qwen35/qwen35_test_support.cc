#include "tests/models/qwen35/qwen35_test_support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/host_services.h"
#include "core/thread_pool.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace qwen35 {
namespace test {
namespace {

std::string g_plugin;
std::vector<std::string>* g_specs = nullptr;

}  // namespace

const char* const kFixtures[3] = {"tiny_tied", "tiny_untied", "small_realdims"};

int Init(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PLUGIN.so [BACKEND_SPEC...]\n", argv[0]);
    return 2;
  }
  g_plugin = argv[1];
  g_specs = new std::vector<std::string>(argv + 2, argv + argc);
  // The tiny fixtures are far below any threading threshold; a single-threaded
  // pool keeps the run time steady on a busy 2-core machine.
  const char* threads = std::getenv("QWEN35_TEST_THREADS");
  ThreadPool::SetGlobalThreads(threads != nullptr ? std::atoi(threads) : 1);
  return 0;
}

const oxi_host_services* Host() { return HostServices(); }

const oxi_model_iface* ModelIface() {
  static const oxi_model_iface* iface = [] {
    auto m = testing::LoadModelPlugin(g_plugin);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? *m : nullptr;
  }();
  return iface;
}

const std::vector<std::unique_ptr<testing::TestBackend>>& Backends() {
  static auto* list = [] {
    auto* v = new std::vector<std::unique_ptr<testing::TestBackend>>();
    for (const std::string& spec : *g_specs) {
      auto b = testing::OpenTestBackend(spec);
      if (!b.ok()) {
        // A CPU variant this machine cannot run (cpu-avx512 without AVX-512).
        std::printf("[ info ] backend %s not used: %s\n", spec.c_str(),
                    std::string(b.status().message()).c_str());
        continue;
      }
      std::printf("[ info ] backend %s\n", (*b)->name().c_str());
      v->push_back(std::move(*b));
    }
    return v;
  }();
  EXPECT_FALSE(list->empty()) << "no usable backend on the command line";
  return *list;
}

std::string FixtureDir(const std::string& name) {
  return testing::Runfile("tests/models/qwen35/testdata/" + name);
}

Reference::Reference(const std::string& fixture, const std::string& file) {
  auto f = sdk::Weights::Open(FixtureDir(fixture) + "/" + file + ".safetensors", true, Host());
  EXPECT_TRUE(f.ok()) << f.status().message();
  if (!f.ok()) return;
  file_ = std::move(*f);
  if (const oxi_weight_tensor* t = file_.Find("p0.logits")) vocab_ = t->shape[1];
}

std::vector<int32_t> Reference::Ints(const std::string& name) const {
  const oxi_weight_tensor* t = file_.Find(name);
  EXPECT_TRUE(t != nullptr && t->dtype == OXI_DTYPE_I32) << name;
  if (t == nullptr || t->dtype != OXI_DTYPE_I32) return {};
  std::vector<int32_t> v(t->size / sizeof(int32_t));
  std::memcpy(v.data(), t->data, t->size);
  return v;
}

std::vector<float> Reference::Floats(const std::string& name) const {
  const oxi_weight_tensor* t = file_.Find(name);
  EXPECT_TRUE(t != nullptr && t->dtype == OXI_DTYPE_F32) << name;
  if (t == nullptr || t->dtype != OXI_DTYPE_F32) return {};
  std::vector<float> v(t->size / sizeof(float));
  std::memcpy(v.data(), t->data, t->size);
  return v;
}

float MaxAbsDiff(const float* a, const float* b, int64_t n) {
  float m = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float d = std::fabs(a[i] - b[i]);
    if (!(d <= m)) m = std::isnan(d) ? INFINITY : d;  // a NaN counts as an infinite difference
  }
  return m;
}

int32_t Argmax(const float* v, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) best = v[i] > v[best] ? i : best;
  return static_cast<int32_t>(best);
}

TestModel::TestModel(const std::string& dir, const oxi_backend_iface* backend,
                     const OpenOptions& o) {
  iface_ = ModelIface();
  if (iface_ == nullptr) {
    open_error_ = "no model plugin";
    return;
  }
  oxi_model_open_params p{};
  p.struct_size = sizeof(p);
  p.model_dir = dir.c_str();
  p.backend = backend;
  p.weight_dtype = o.weight_dtype;
  p.use_mmap = o.use_mmap;
  p.prefill_chunk = o.prefill_chunk;
  p.max_sequences = o.max_sequences;
  p.context_length = o.context_length;
  p.draft = o.draft;
  p.record_weight = o.record_weight;
  p.record_ctx = o.record_ctx;
  char err[1024] = {0};
  if (iface_->open(&p, &m_, err, sizeof err) != OXI_OK) {
    open_error_ = err;
    m_ = nullptr;
    return;
  }
  info_.struct_size = sizeof(info_);
  EXPECT_EQ(iface_->info(m_, &info_), OXI_OK);
}

Drafts TestModel::Draft(int32_t seq, int32_t next_token, int32_t n) {
  Drafts d;
  d.tokens.assign(static_cast<size_t>(n), -1);
  d.logits.assign(static_cast<size_t>(n) * info_.vocab_size, 0.0f);
  d.hidden.assign(static_cast<size_t>(n) * info_.hidden_size, 0.0f);
  if (iface_->draft == nullptr) {
    d.result.code = OXI_UNIMPLEMENTED;
    d.result.message = "no draft entry";
    return d;
  }
  oxi_draft_args a{};
  a.struct_size = sizeof a;
  a.seq_id = seq;
  a.next_token = next_token;
  a.n_draft = n;
  a.tokens_out = d.tokens.data();
  a.logits_out = d.logits.data();
  a.hidden_out = d.hidden.data();
  char err[1024] = {0};
  d.result.code = iface_->draft(m_, &a, err, sizeof err);
  d.result.message = err;
  return d;
}

TestModel::~TestModel() {
  if (m_ != nullptr) iface_->close(m_);
}

Result TestModel::Forward(std::vector<Entry>* entries) {
  std::vector<oxi_batch_entry> raw(entries->size());
  std::vector<const oxi_batch_entry*> ptrs;
  for (size_t i = 0; i < entries->size(); ++i) {
    Entry& e = (*entries)[i];
    const int64_t n = e.n >= 0 ? e.n : static_cast<int64_t>(e.tokens.size());
    oxi_batch_entry& b = raw[i];
    b.struct_size = sizeof(b);
    b.seq_id = e.seq;
    b.n_tokens = n;
    b.tokens = e.tokens.empty() ? nullptr : e.tokens.data();
    b.embeddings = e.embeddings.empty() ? nullptr : e.embeddings.data();
    b.embedding_mask = e.mask.empty() ? nullptr : e.mask.data();
    b.positions = e.positions.empty() ? nullptr : e.positions.data();
    b.logits = e.logits;
    const int64_t rows = e.logits == OXI_LOGITS_ALL ? n : e.logits == OXI_LOGITS_LAST ? 1 : 0;
    e.out.assign(static_cast<size_t>(rows * vocab()), NAN);
    b.logits_out = e.out.empty() ? nullptr : e.out.data();
    ptrs.push_back(&b);
  }
  oxi_forward_args args{};
  args.struct_size = sizeof(args);
  args.n_entries = static_cast<int32_t>(ptrs.size());
  args.entries = ptrs.data();
  char err[1024] = {0};
  Result r;
  r.code = iface_->forward(m_, &args, err, sizeof err);
  r.message = err;
  return r;
}

std::vector<float> TestModel::Last(const int32_t* tokens, int64_t n, int32_t seq) {
  std::vector<Entry> e(1);
  e[0].seq = seq;
  e[0].tokens.assign(tokens, tokens + n);
  const Result r = Forward(&e);
  EXPECT_TRUE(r.ok()) << r.message;
  return e[0].out;
}

Result TestModel::Truncate(int32_t seq, int64_t n_keep) {
  char err[1024] = {0};
  Result r;
  r.code = iface_->seq_truncate(m_, seq, n_keep, err, sizeof err);
  r.message = err;
  return r;
}

Result TestModel::Copy(int32_t src, int32_t dst, int64_t n) {
  char err[1024] = {0};
  Result r;
  r.code = iface_->seq_copy(m_, src, dst, n, err, sizeof err);
  r.message = err;
  return r;
}

void TestModel::Free(int32_t seq) { iface_->seq_free(m_, seq); }

}  // namespace test
}  // namespace qwen35
}  // namespace oxinfer
