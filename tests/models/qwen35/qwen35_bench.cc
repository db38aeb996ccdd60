// Loads a Qwen 3.5 checkpoint through the plugin and times prefill and decode.
// Not a test: a tool for full-size random-weight checkpoints
// (tools/reference/qwen35/make_random_checkpoint.py).
//   qwen35_bench PLUGIN.so BACKEND_SPEC MODEL_DIR [n_prompt=128] [n_decode=16] [threads=0]
//                [weights=bf16|q8_0|q4_0] [sequences=1] [profile=0]
// BACKEND_SPEC as tests/support:test_backends takes it ("liboxinfer_cpu_avx2.so",
// "liboxinfer_arena.so+liboxinfer_cpu_avx2.so"). With sequences > 1 the
// prompt is prefilled into each sequence in one forward and all decode together
// (decode tok/s counts every sequence's tokens). "last token": the last one
// fed (sequence 0's), as the ABI-1 bench printed it. profile=1: the
// dispatcher's time per op kind for the prefill and for the decode, on stderr.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

int32_t Argmax(const float* v, int64_t n) {
  int64_t best = 0;
  for (int64_t j = 1; j < n; ++j) best = v[j] > v[best] ? j : best;
  return static_cast<int32_t>(best);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s PLUGIN.so BACKEND_SPEC MODEL_DIR [n_prompt] [n_decode] [threads] "
                 "[weights] [sequences]\n",
                 argv[0]);
    return 2;
  }
  const int n_prompt = argc > 4 ? std::atoi(argv[4]) : 128;
  const int n_decode = argc > 5 ? std::atoi(argv[5]) : 16;
  const int threads = argc > 6 ? std::atoi(argv[6]) : 0;
  const std::string wt = argc > 7 ? argv[7] : "";
  const int n_seq = argc > 8 ? std::max(1, std::atoi(argv[8])) : 1;
  const bool profile = argc > 9 && std::atoi(argv[9]) != 0;
  if (threads > 0) oxinfer::ThreadPool::SetGlobalThreads(threads);
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
  auto report = [&](const char* what) {
    if (!profile) return;
    std::fprintf(stderr, "---- %s\n%s", what, composed->ProfileReport().c_str());
    composed->ResetProfile();
  };
  const oxi_model_iface* mi = *model_iface;
  oxi_model_open_params p{};
  p.struct_size = sizeof(p);
  p.model_dir = argv[3];
  p.backend = profile ? composed->iface() : (*backend)->iface();
  p.use_mmap = 1;
  p.max_sequences = n_seq;
  p.weight_dtype = wt == "q8_0"   ? OXI_DTYPE_Q8_0
                   : wt == "q4_0" ? OXI_DTYPE_Q4_0
                                  : OXI_DTYPE_INVALID;
  char err[1024] = {0};
  oxi_model* m = nullptr;
  double t0 = Now();
  if (mi->open(&p, &m, err, sizeof err) != OXI_OK) {
    std::fprintf(stderr, "open: %s\n", err);
    return 1;
  }
  const double t_open = Now() - t0;
  if (profile) composed->ResetProfile();
  oxi_model_info info{};
  info.struct_size = sizeof(info);
  mi->info(m, &info);
  const int64_t vocab = info.vocab_size;
  std::vector<float> logits(static_cast<size_t>(vocab * n_seq));
  std::vector<int32_t> tokens(n_prompt);
  for (int i = 0; i < n_prompt; ++i) tokens[i] = (i * 7919 + 13) % static_cast<int32_t>(vocab);
  std::vector<oxi_batch_entry> entries(n_seq);
  std::vector<const oxi_batch_entry*> ptrs(n_seq);
  std::vector<int32_t> next(n_seq, 0);
  for (int s = 0; s < n_seq; ++s) {
    oxi_batch_entry& e = entries[s];
    e.struct_size = sizeof(e);
    e.seq_id = s;
    e.n_tokens = n_prompt;
    e.tokens = tokens.data();
    e.logits = OXI_LOGITS_LAST;
    e.logits_out = logits.data() + s * vocab;
    ptrs[s] = &e;
  }
  oxi_forward_args args{};
  args.struct_size = sizeof(args);
  args.n_entries = n_seq;
  args.entries = ptrs.data();
  t0 = Now();
  if (mi->forward(m, &args, err, sizeof err) != OXI_OK) {
    std::fprintf(stderr, "forward: %s\n", err);
    return 1;
  }
  const double t_prefill = Now() - t0;
  report("prefill");
  t0 = Now();
  for (int i = 0; i < n_decode; ++i) {
    for (int s = 0; s < n_seq; ++s) {
      next[s] = Argmax(logits.data() + s * vocab, vocab);
      if (!std::isfinite(logits[s * vocab + next[s]])) {
        std::fprintf(stderr, "non-finite logits\n");
        return 1;
      }
      entries[s].n_tokens = 1;
      entries[s].tokens = &next[s];
    }
    if (mi->forward(m, &args, err, sizeof err) != OXI_OK) {
      std::fprintf(stderr, "forward: %s\n", err);
      return 1;
    }
  }
  const double t_decode = Now() - t0;
  report("decode");
  const double prompt_tokens = static_cast<double>(n_prompt) * n_seq;
  const double decode_tokens = static_cast<double>(n_decode) * n_seq;
  std::printf(
      "open %.2f s | prefill %d tok %.2f s = %.1f tok/s | decode %d tok %.2f s = %.2f tok/s | "
      "last token %d\n",
      t_open, static_cast<int>(prompt_tokens), t_prefill, prompt_tokens / t_prefill,
      static_cast<int>(decode_tokens), t_decode, decode_tokens / t_decode, next[0]);
  mi->close(m);
  return 0;
}
