#include "tests/models/gemma4/gemma4_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/host_services.h"
#include "core/plugin_registry.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/weights.hpp"

namespace oxinfer {
namespace gemma4_test {
namespace {

sdk::Weights OpenFile(const std::string& path) {
  auto w = sdk::Weights::Open(path, /*use_mmap=*/false, HostServices());
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? std::move(*w) : sdk::Weights();
}

template <typename T>
void Get(const sdk::Weights& file, const std::string& name, oxi_dtype dtype, std::vector<T>* out) {
  const oxi_weight_tensor* t = file.Find(name);
  ASSERT_NE(t, nullptr) << file.source() << ": no " << name;
  ASSERT_EQ(t->dtype, dtype) << name;
  out->resize(t->size / sizeof(T));
  std::memcpy(out->data(), t->data, t->size);
}

}  // namespace

Args& CommandLine() {
  static Args* args = new Args();
  return *args;
}

bool ParseCommandLine(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <liboxinfer_gemma4.so> <testdata dir> <backend spec>...\n",
                 argv[0]);
    return false;
  }
  Args& a = CommandLine();
  a.plugin = testing::Runfile(argv[1]);
  a.testdata = testing::Runfile(argv[2]);
  for (int i = 3; i < argc; ++i) {
    // Each .so of a spec ("a.so+b.so") as a runfile.
    std::string spec, part;
    for (const char* c = argv[i];; ++c) {
      if (*c == '+' || *c == '\0') {
        spec += (spec.empty() ? "" : "+") + testing::Runfile(part);
        part.clear();
        if (*c == '\0') break;
      } else {
        part += *c;
      }
    }
    a.backend_specs.push_back(spec);
  }
  return true;
}

const oxi_model_iface* ModelIface() {
  static const oxi_model_iface* iface = [] {
    auto m = testing::LoadModelPlugin(CommandLine().plugin);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? *m : nullptr;
  }();
  return iface;
}

std::string FixtureDir(const std::string& name) { return CommandLine().testdata + "/" + name; }

std::vector<std::unique_ptr<testing::TestBackend>> Backends() {
  std::vector<std::unique_ptr<testing::TestBackend>> out;
  for (const std::string& spec : CommandLine().backend_specs) {
    auto b = testing::OpenTestBackend(spec);
    if (b.ok()) {
      out.push_back(std::move(*b));
      continue;
    }
    // A CPU variant this machine cannot run declines at score(): skip it.
    bool declined = false;
    for (const PluginRecord& r : testing::TestRegistry().plugins()) {
      if (spec.find(r.path) != std::string::npos && r.state == PluginState::kDeclined) {
        declined = true;
      }
    }
    if (declined) {
      std::printf("[ skipped ] %s: %s\n", spec.c_str(), std::string(b.status().message()).c_str());
    } else {
      ADD_FAILURE() << spec << ": " << b.status();
    }
  }
  EXPECT_FALSE(out.empty()) << "no backend of the command line runs here";
  return out;
}

std::vector<Prompt> LoadReference(const std::string& dir, int vocab) {
  std::vector<Prompt> out;
  sdk::Weights file = OpenFile(dir + "/reference.safetensors");
  if (!file.is_open()) return out;
  for (int i = 0;; ++i) {
    const std::string p = "prompt_" + std::to_string(i) + ".";
    if (!file.Has(p + "tokens")) break;
    Prompt pr;
    Get(file, p + "tokens", OXI_DTYPE_I32, &pr.tokens);
    Get(file, p + "greedy", OXI_DTYPE_I32, &pr.greedy);
    Get(file, p + "logits", OXI_DTYPE_F32, &pr.logits);
    Get(file, p + "greedy_logits", OXI_DTYPE_F32, &pr.greedy_logits);
    Get(file, p + "logits_f64", OXI_DTYPE_F32, &pr.logits_f64);
    Get(file, p + "greedy_logits_f64", OXI_DTYPE_F32, &pr.greedy_logits_f64);
    EXPECT_EQ(pr.logits.size(), pr.tokens.size() * vocab);
    EXPECT_EQ(pr.greedy_logits.size(), pr.greedy.size() * vocab);
    out.push_back(std::move(pr));
  }
  EXPECT_FALSE(out.empty()) << dir;
  return out;
}

std::vector<DraftPrompt> LoadDraftReference(const std::string& dir) {
  std::vector<DraftPrompt> out;
  sdk::Weights file = OpenFile(dir + "/reference.safetensors");
  if (!file.is_open()) return out;
  for (int i = 0;; ++i) {
    const std::string p = "prompt_" + std::to_string(i) + ".";
    if (!file.Has(p + "tokens")) break;
    DraftPrompt pr;
    Get(file, p + "tokens", OXI_DTYPE_I32, &pr.tokens);
    Get(file, p + "greedy", OXI_DTYPE_I32, &pr.greedy);
    Get(file, p + "drafts", OXI_DTYPE_I32, &pr.drafts);
    Get(file, p + "draft_hidden", OXI_DTYPE_F32, &pr.hidden);
    Get(file, p + "draft_logits", OXI_DTYPE_F32, &pr.logits);
    pr.n_draft = pr.greedy.empty() ? 0 : static_cast<int>(pr.drafts.size() / pr.greedy.size());
    out.push_back(std::move(pr));
  }
  EXPECT_FALSE(out.empty()) << dir;
  return out;
}

EmbeddingPrompt LoadEmbeddingReference(const std::string& dir) {
  EmbeddingPrompt e;
  sdk::Weights file = OpenFile(dir + "/reference_embeddings.safetensors");
  if (!file.is_open()) return e;
  Get(file, "tokens", OXI_DTYPE_I32, &e.tokens);
  Get(file, "mask", OXI_DTYPE_U8, &e.mask);
  Get(file, "embeddings", OXI_DTYPE_F32, &e.embeddings);
  Get(file, "logits", OXI_DTYPE_F32, &e.logits);
  return e;
}

std::vector<float> LoadCheckpointFloats(const std::string& dir, const std::string& name) {
  sdk::Weights file = OpenFile(dir);
  std::vector<float> v;
  const oxi_weight_tensor* t = file.Find(name);
  EXPECT_NE(t, nullptr) << name;
  if (t == nullptr) return v;
  v.resize(static_cast<size_t>(sdk::NumElements(*t)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = sdk::LoadFloat(t->data, t->dtype, i);
  return v;
}

float MaxAbsDiff(const float* a, const float* b, int64_t n) {
  float m = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float d = std::fabs(a[i] - b[i]);
    if (!std::isfinite(d)) return std::numeric_limits<float>::infinity();
    m = std::max(m, d);
  }
  return m;
}

int32_t ArgMax(const float* v, int64_t n) {
  return static_cast<int32_t>(std::max_element(v, v + n) - v);
}

Model::Model(const std::string& dir, const oxi_backend_iface* backend, const OpenOptions& o) {
  const oxi_model_iface* m = ModelIface();
  if (m == nullptr) return;
  oxi_model_open_params p = {};
  p.struct_size = sizeof p;
  p.model_dir = dir.c_str();
  p.backend = backend;
  p.weight_dtype = o.weight_dtype;
  p.use_mmap = 1;
  p.context_length = o.context_length;
  p.prefill_chunk = o.prefill_chunk;
  p.max_sequences = o.max_sequences;
  p.record_weight = o.record_weight;
  p.record_ctx = o.record_ctx;
  p.draft = o.draft_dir.empty() ? 0 : 1;
  p.draft_dir = o.draft_dir.empty() ? nullptr : o.draft_dir.c_str();
  char error[1024] = {};
  const int32_t rc = m->open(&p, &model_, error, sizeof error);
  EXPECT_EQ(rc, OXI_OK) << error;
  if (rc != OXI_OK) {
    model_ = nullptr;
    return;
  }
  info_.struct_size = sizeof info_;
  EXPECT_EQ(m->info(model_, &info_), OXI_OK);
}

Model::~Model() {
  if (model_ != nullptr) ModelIface()->close(model_);
}

int32_t Model::Forward(const std::vector<oxi_batch_entry>& entries, std::string* error) {
  std::vector<const oxi_batch_entry*> ptrs;
  for (const oxi_batch_entry& e : entries) ptrs.push_back(&e);
  oxi_forward_args args = {};
  args.struct_size = sizeof args;
  args.n_entries = static_cast<int32_t>(entries.size());
  args.entries = ptrs.data();
  char message[1024] = {};
  const int32_t rc = ModelIface()->forward(model_, &args, message, sizeof message);
  if (error != nullptr) *error = message;
  return rc;
}

std::vector<float> Model::Feed(int32_t seq, const std::vector<int32_t>& tokens, int32_t mode) {
  return Feed(seq, tokens.data(), static_cast<int64_t>(tokens.size()), mode);
}

std::vector<float> Model::Feed(int32_t seq, const int32_t* tokens, int64_t n, int32_t mode) {
  const int64_t rows = mode == OXI_LOGITS_ALL ? n : mode == OXI_LOGITS_LAST ? 1 : 0;
  std::vector<float> logits(static_cast<size_t>(rows * vocab()));
  std::string error;
  const int32_t rc =
      Forward({TokenEntry(seq, tokens, n, mode, rows ? logits.data() : nullptr)}, &error);
  EXPECT_EQ(rc, OXI_OK) << error;
  if (rc != OXI_OK) logits.clear();
  return logits;
}

int32_t Model::Truncate(int32_t seq, int64_t n, std::string* error) {
  char message[1024] = {};
  const int32_t rc = ModelIface()->seq_truncate(model_, seq, n, message, sizeof message);
  if (error != nullptr) {
    *error = message;
  } else {
    EXPECT_EQ(rc, OXI_OK) << message;
  }
  return rc;
}

int32_t Model::Copy(int32_t src, int32_t dst, int64_t n, std::string* error) {
  char message[1024] = {};
  const int32_t rc = ModelIface()->seq_copy(model_, src, dst, n, message, sizeof message);
  if (error != nullptr) {
    *error = message;
  } else {
    EXPECT_EQ(rc, OXI_OK) << message;
  }
  return rc;
}

void Model::Free(int32_t seq) { ModelIface()->seq_free(model_, seq); }

int32_t Model::Draft(int32_t seq, int32_t next, int32_t n, std::vector<int32_t>* tokens,
                     std::vector<float>* logits, std::vector<float>* hidden, std::string* error) {
  tokens->assign(static_cast<size_t>(n), -1);
  if (logits != nullptr) logits->assign(static_cast<size_t>(n) * vocab(), 0.0f);
  if (hidden != nullptr) hidden->assign(static_cast<size_t>(n) * info_.hidden_size, 0.0f);
  oxi_draft_args a = {};
  a.struct_size = sizeof a;
  a.seq_id = seq;
  a.next_token = next;
  a.n_draft = n;
  a.tokens_out = tokens->data();
  a.logits_out = logits != nullptr ? logits->data() : nullptr;
  a.hidden_out = hidden != nullptr ? hidden->data() : nullptr;
  char message[1024] = {};
  const int32_t rc = ModelIface()->draft(model_, &a, message, sizeof message);
  if (error != nullptr) {
    *error = message;
  } else {
    EXPECT_EQ(rc, OXI_OK) << message;
  }
  return rc;
}

oxi_batch_entry TokenEntry(int32_t seq, const int32_t* tokens, int64_t n, int32_t mode,
                           float* out) {
  oxi_batch_entry e = {};
  e.struct_size = sizeof e;
  e.seq_id = seq;
  e.n_tokens = n;
  e.tokens = tokens;
  e.logits = mode;
  e.logits_out = out;
  return e;
}

std::vector<float> LcgSamples(int64_t n, uint32_t seed) {
  std::vector<float> out(n);
  uint32_t x = seed;
  for (int64_t i = 0; i < n; ++i) {
    x = 1664525u * x + 1013904223u;
    const int64_t v = static_cast<int64_t>(x >> 16) - 32768;
    const int64_t prod = v * ((i / 400) % 8 + 1);
    const int64_t q = prod >= 0 ? prod / 8 : -((-prod + 7) / 8);  // floor division
    out[i] = static_cast<float>(q) / 32768.0f;
  }
  return out;
}

}  // namespace gemma4_test
}  // namespace oxinfer
