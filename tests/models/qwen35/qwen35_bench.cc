// Loads a Qwen 3.5 checkpoint through the plugin and times prefill and decode.
// Not a test: a tool for full-size random-weight checkpoints
// (tools/reference/qwen35/make_random_checkpoint.py).
//   qwen35_bench PLUGIN.so BACKEND.so|none MODEL_DIR [n_prompt=128] [n_decode=16] [threads=0] [weights=bf16|q8_0|q4_0]
#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/host_services.h"
#include "core/thread_pool.h"
#include "oxinfer/plugin_abi.h"

namespace {

const void* Load(const char* path, const oxi_plugin** plugin) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    return nullptr;
  }
  auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(h, OXI_ENTRY_SYMBOL));
  if (entry == nullptr) return nullptr;
  *plugin = entry();
  char reason[256] = {0};
  if ((*plugin)->score(oxinfer::HostServices(), reason, sizeof reason) <= 0) {
    std::fprintf(stderr, "%s declined: %s\n", path, reason);
    return nullptr;
  }
  return (*plugin)->get_interface(oxinfer::HostServices(), reason, sizeof reason);
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s PLUGIN.so BACKEND.so|none MODEL_DIR [n_prompt] [n_decode] [threads] [weights]\n",
                 argv[0]);
    return 2;
  }
  const int n_prompt = argc > 4 ? std::atoi(argv[4]) : 128;
  const int n_decode = argc > 5 ? std::atoi(argv[5]) : 16;
  const int threads = argc > 6 ? std::atoi(argv[6]) : 0;
  const std::string wt = argc > 7 ? argv[7] : "";
  if (threads > 0) oxinfer::ThreadPool::SetGlobalThreads(threads);
  const oxi_plugin* mp = nullptr;
  auto* model_iface = static_cast<const oxi_model_iface*>(Load(argv[1], &mp));
  if (model_iface == nullptr) return 1;
  const oxi_backend_iface* backend = nullptr;
  if (std::strcmp(argv[2], "none") != 0) {
    const oxi_plugin* bp = nullptr;
    backend = static_cast<const oxi_backend_iface*>(Load(argv[2], &bp));
    if (backend == nullptr) return 1;
  }
  oxi_model_open_params p{};
  p.struct_size = sizeof(p);
  p.model_dir = argv[3];
  p.backend = backend;
  p.use_mmap = 1;
  p.weight_dtype = wt == "q8_0" ? OXI_DTYPE_Q8_0 : wt == "q4_0" ? OXI_DTYPE_Q4_0 : OXI_DTYPE_INVALID;
  char err[512] = {0};
  oxi_model* m = nullptr;
  double t0 = Now();
  if (model_iface->open(&p, &m, err, sizeof err) != OXI_OK) {
    std::fprintf(stderr, "open: %s\n", err);
    return 1;
  }
  const double t_open = Now() - t0;
  const int vocab = model_iface->vocab_size(m);
  std::vector<float> logits(vocab);
  std::vector<int32_t> tokens(n_prompt);
  for (int i = 0; i < n_prompt; ++i) tokens[i] = (i * 7919 + 13) % vocab;
  t0 = Now();
  if (model_iface->forward(m, tokens.data(), n_prompt, logits.data(), err, sizeof err) != OXI_OK) {
    std::fprintf(stderr, "forward: %s\n", err);
    return 1;
  }
  const double t_prefill = Now() - t0;
  t0 = Now();
  int32_t next = 0;
  for (int i = 0; i < n_decode; ++i) {
    int best = 0;
    for (int j = 1; j < vocab; ++j) best = logits[j] > logits[best] ? j : best;
    next = best;
    if (!std::isfinite(logits[best])) {
      std::fprintf(stderr, "non-finite logits\n");
      return 1;
    }
    if (model_iface->forward(m, &next, 1, logits.data(), err, sizeof err) != OXI_OK) {
      std::fprintf(stderr, "forward: %s\n", err);
      return 1;
    }
  }
  const double t_decode = Now() - t0;
  std::printf("open %.2f s | prefill %d tok %.2f s = %.1f tok/s | decode %d tok %.2f s = %.2f tok/s | last token %d\n",
              t_open, n_prompt, t_prefill, n_prompt / t_prefill, n_decode, t_decode, n_decode / t_decode, next);
  model_iface->close(m);
  return 0;
}
