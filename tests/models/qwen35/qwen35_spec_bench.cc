// What decides the speed-up of speculative decoding on a Qwen 3.5 checkpoint:
// the time of a k-token verification forward (every position's logits)
// against a 1-token decode step, the MTP head's own step, and what dropping a
// rejected tail costs (DeltaNet states restored, the kept tokens fed again).
// Not a test: a tool for full-size random-weight checkpoints
// (tools/reference/qwen35/make_random_checkpoint.py; they carry mtp.*).
//   qwen35_spec_bench PLUGIN.so BACKEND_SPEC MODEL_DIR [weights=bf16|q8_0|q4_0] [threads=1]
//                     [reps=5] [n_prompt=64] [k_max=8] [profile=0]
// Each figure is the median of `reps` runs, each on a fresh copy of the
// prefilled sequence. profile=1: the dispatcher's time per op kind of the
// 1-token steps and of the k_max-token verifications, on stderr.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/backend_dispatch.h"
#include "core/host_services.h"
#include "core/thread_pool.h"
#include "oxinfer/plugin_abi.h"
#include "tests/support/test_backends.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Bench {
  const oxi_model_iface* mi = nullptr;
  oxi_model* m = nullptr;
  int64_t vocab = 0;
  char err[1024] = {0};

  bool Forward(int32_t seq, const std::vector<int32_t>& tokens, int32_t logits) {
    std::vector<float> out(static_cast<size_t>(vocab) *
                           (logits == OXI_LOGITS_ALL ? tokens.size() : 1));
    oxi_batch_entry e{};
    e.struct_size = sizeof e;
    e.seq_id = seq;
    e.n_tokens = static_cast<int64_t>(tokens.size());
    e.tokens = tokens.data();
    e.logits = logits;
    e.logits_out = out.data();
    const oxi_batch_entry* p = &e;
    oxi_forward_args a{};
    a.struct_size = sizeof a;
    a.n_entries = 1;
    a.entries = &p;
    if (mi->forward(m, &a, err, sizeof err) != OXI_OK) {
      std::fprintf(stderr, "forward: %s\n", err);
      return false;
    }
    return true;
  }
  bool Copy(int32_t src, int32_t dst, int64_t n) {
    if (mi->seq_copy(m, src, dst, n, err, sizeof err) != OXI_OK) {
      std::fprintf(stderr, "seq_copy: %s\n", err);
      return false;
    }
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s PLUGIN.so BACKEND_SPEC MODEL_DIR [weights] [threads] [reps] "
                 "[n_prompt] [k_max]\n",
                 argv[0]);
    return 2;
  }
  const std::string wt = argc > 4 ? argv[4] : "bf16";
  const int threads = argc > 5 ? std::atoi(argv[5]) : 1;
  const int reps = argc > 6 ? std::max(1, std::atoi(argv[6])) : 5;
  const int n_prompt = argc > 7 ? std::atoi(argv[7]) : 64;
  const int k_max = argc > 8 ? std::atoi(argv[8]) : 8;
  const bool profile = argc > 9 && std::atoi(argv[9]) != 0;
  oxinfer::ThreadPool::SetGlobalThreads(threads);
  auto model_iface = oxinfer::testing::LoadModelPlugin(argv[1]);
  if (!model_iface.ok()) {
    std::fprintf(stderr, "%s\n", std::string(model_iface.status().message()).c_str());
    return 1;
  }
  auto backend = oxinfer::testing::OpenTestBackend(argv[2], oxinfer::DispatchOptions{profile});
  if (!backend.ok()) {
    std::fprintf(stderr, "%s\n", std::string(backend.status().message()).c_str());
    return 1;
  }
  // A single backend is profiled through a composition without an accelerator.
  std::unique_ptr<oxinfer::ComposedBackend> profiled;
  oxinfer::ComposedBackend* composed = (*backend)->composed();
  if (profile && composed == nullptr) {
    auto c = oxinfer::ComposedBackend::Create(nullptr, (*backend)->iface(),
                                              oxinfer::DispatchOptions{true});
    if (!c.ok()) {
      std::fprintf(stderr, "%s\n", std::string(c.status().message()).c_str());
      return 1;
    }
    profiled = std::move(*c);
    composed = profiled.get();
  }
  Bench b;
  b.mi = *model_iface;
  oxi_model_open_params p{};
  p.struct_size = sizeof(p);
  p.model_dir = argv[3];
  p.backend = profile ? composed->iface() : (*backend)->iface();
  p.use_mmap = 1;
  p.max_sequences = 2;
  p.draft = 1;
  p.weight_dtype = wt == "q8_0"   ? OXI_DTYPE_Q8_0
                   : wt == "q4_0" ? OXI_DTYPE_Q4_0
                                  : OXI_DTYPE_INVALID;
  if (b.mi->open(&p, &b.m, b.err, sizeof b.err) != OXI_OK) {
    std::fprintf(stderr, "open: %s\n", b.err);
    return 1;
  }
  oxi_model_info info{};
  info.struct_size = sizeof(info);
  b.mi->info(b.m, &info);
  b.vocab = info.vocab_size;
  std::vector<int32_t> prompt(n_prompt);
  for (int i = 0; i < n_prompt; ++i) prompt[i] = (i * 7919 + 13) % static_cast<int32_t>(b.vocab);
  if (!b.Forward(0, prompt, OXI_LOGITS_LAST)) return 1;
  auto tokens = [&](int k) {
    std::vector<int32_t> t(k);
    for (int i = 0; i < k; ++i) t[i] = (i * 104729 + 7) % static_cast<int32_t>(b.vocab);
    return t;
  };
  // One forward of k tokens on a fresh copy of the prefilled sequence.
  auto verify = [&](int k) -> double {
    std::vector<double> t;
    for (int r = 0; r < reps + 1; ++r) {
      if (!b.Copy(0, 1, n_prompt)) return -1;
      const double t0 = Now();
      if (!b.Forward(1, tokens(k), k == 1 ? OXI_LOGITS_LAST : OXI_LOGITS_ALL)) return -1;
      if (r > 0) t.push_back(Now() - t0);  // the first warms up
    }
    return Median(t);
  };
  if (profile) {
    for (int k : {1, k_max}) {
      composed->ResetProfile();
      verify(k);
      std::fprintf(stderr, "---- %d-token forwards (%d)\n%s", k, reps + 1,
                   composed->ProfileReport().c_str());
    }
    composed->ResetProfile();
  }
  const double step = verify(1);
  std::printf("weights %s, %d thread(s), prompt %d, median of %d\n", wt.c_str(), threads, n_prompt,
              reps);
  std::printf("k=1 step %.2f ms\n", step * 1e3);
  for (int k = 2; k <= k_max; ++k) {
    const double v = verify(k);
    std::printf("k=%d verify %.2f ms = %.3fx step\n", k, v * 1e3, v / step);
  }
  // The MTP head: one draft step (a single row after the first draft).
  {
    std::vector<double> t;
    int32_t d = 0;
    oxi_draft_args a{};
    a.struct_size = sizeof a;
    a.seq_id = 0;
    a.next_token = 11;
    a.n_draft = 1;
    a.tokens_out = &d;
    for (int r = 0; r < reps + 1; ++r) {
      const double t0 = Now();
      if (b.mi->draft(b.m, &a, b.err, sizeof b.err) != OXI_OK) {
        std::fprintf(stderr, "draft: %s\n", b.err);
        return 1;
      }
      if (r > 0) t.push_back(Now() - t0);
    }
    std::printf("mtp draft step %.2f ms = %.3fx step\n", Median(t) * 1e3, Median(t) / step);
  }
  // A rejected tail: a k-token verification cut back to its first position
  // (restore + 1 token again), beyond the verification itself.
  for (int k : {4, 8}) {
    if (k > k_max) continue;
    std::vector<double> t;
    for (int r = 0; r < reps + 1; ++r) {
      if (!b.Copy(0, 1, n_prompt)) return 1;
      if (!b.Forward(1, tokens(k), OXI_LOGITS_ALL)) return 1;
      const double t0 = Now();
      if (b.mi->seq_truncate(b.m, 1, n_prompt + 1, b.err, sizeof b.err) != OXI_OK) {
        std::fprintf(stderr, "seq_truncate: %s\n", b.err);
        return 1;
      }
      if (r > 0) t.push_back(Now() - t0);
    }
    std::printf("rewind after k=%d to 1 kept %.2f ms = %.3fx step\n", k, Median(t) * 1e3,
                Median(t) / step);
  }
  b.mi->close(b.m);
  return 0;
}
