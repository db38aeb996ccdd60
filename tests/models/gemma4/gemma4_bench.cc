// Rough speed of the Gemma 4 plugin on any checkpoint (no tokenizer needed):
//   gemma4_bench <liboxinfer_gemma4.so> <backend.so> <model dir> [prompt tokens] [new tokens]
// Feeds random token ids, prints prefill and decode tokens per second.
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/host_services.h"
#include "oxinfer/plugin_abi.h"

namespace {

const void* Interface(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    return nullptr;
  }
  auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(h, OXI_ENTRY_SYMBOL));
  if (entry == nullptr) return nullptr;
  const oxi_plugin* p = entry();
  char reason[256] = {0};
  if (p->score(oxinfer::HostServices(), reason, sizeof reason) <= 0) {
    std::fprintf(stderr, "%s: %s\n", p->name, reason);
    return nullptr;
  }
  return p->get_interface(oxinfer::HostServices(), reason, sizeof reason);
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A backend table that times every op of the wrapped one.
const oxi_backend_iface* g_inner = nullptr;
double g_time[6] = {0};  // matmul, attention, get_rows, rms_norm, rope, elementwise
const char* const kOpNames[6] = {"matmul",   "attention", "get_rows",
                                 "rms_norm", "rope",      "elementwise"};

template <int kOp, typename F>
int32_t Timed(F&& f) {
  const double t0 = Now();
  const int32_t rc = f();
  g_time[kOp] += Now() - t0;
  return rc;
}

oxi_backend_iface TimedBackend(const oxi_backend_iface* b) {
  g_inner = b;
  oxi_backend_iface t = *b;
  t.matmul = [](void* s, const float* x, int64_t m, int64_t k, const void* w, oxi_dtype d,
                int64_t n, float* y) {
    return Timed<0>([&] { return g_inner->matmul(s, x, m, k, w, d, n, y); });
  };
  t.attention = [](void* s, const oxi_attention_params* p) {
    return Timed<1>([&] { return g_inner->attention(s, p); });
  };
  t.get_rows = [](void* s, const void* tb, oxi_dtype d, int64_t nr, int64_t k, const int32_t* ids,
                  int64_t ni, float* out) {
    return Timed<2>([&] { return g_inner->get_rows(s, tb, d, nr, k, ids, ni, out); });
  };
  t.rms_norm = [](void* s, const float* x, const float* w, float o, int64_t r, int64_t d, float e,
                  float* out) {
    return Timed<3>([&] { return g_inner->rms_norm(s, x, w, o, r, d, e, out); });
  };
  t.rope = [](void* s, float* x, int64_t n, int32_t h, int32_t hd, int32_t rd, const int32_t* pos,
              const float* f) {
    return Timed<4>([&] { return g_inner->rope(s, x, n, h, hd, rd, pos, f); });
  };
  t.unary = [](void* s, oxi_unary_op op, const float* x, int64_t n, float* out) {
    return Timed<5>([&] { return g_inner->unary(s, op, x, n, out); });
  };
  t.binary = [](void* s, oxi_binary_op op, const float* a, const float* b, int64_t n, int64_t nb,
                float* out) {
    return Timed<5>([&] { return g_inner->binary(s, op, a, b, n, nb, out); });
  };
  t.scale = [](void* s, const float* x, int64_t n, float sc, float b, float* out) {
    return Timed<5>([&] { return g_inner->scale(s, x, n, sc, b, out); });
  };
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s <gemma4.so> <backend.so> <model dir> [prompt] [new] "
                 "[bf16|q8_0|q4_0]\n",
                 argv[0]);
    return 2;
  }
  const int n_prompt = argc > 4 ? std::atoi(argv[4]) : 128;
  const int n_new = argc > 5 ? std::atoi(argv[5]) : 32;
  auto* model_iface = static_cast<const oxi_model_iface*>(Interface(argv[1]));
  auto* inner = static_cast<const oxi_backend_iface*>(Interface(argv[2]));
  if (model_iface == nullptr || inner == nullptr) return 1;
  const oxi_backend_iface timed = TimedBackend(inner);
  const oxi_backend_iface* backend = &timed;
  oxi_model_open_params p = {};
  p.struct_size = sizeof p;
  p.model_dir = argv[3];
  p.backend = backend;
  p.use_mmap = 1;
  const std::string weights = argc > 6 ? argv[6] : "bf16";  // bf16: as stored
  p.weight_dtype = weights == "q8_0"   ? OXI_DTYPE_Q8_0
                   : weights == "q4_0" ? OXI_DTYPE_Q4_0
                                       : OXI_DTYPE_INVALID;
  oxi_model* m = nullptr;
  char error[512] = {0};
  double t0 = Now();
  if (model_iface->open(&p, &m, error, sizeof error) != OXI_OK) {
    std::fprintf(stderr, "open: %s\n", error);
    return 1;
  }
  const double t_open = Now() - t0;
  const int vocab = model_iface->vocab_size(m);
  std::mt19937 rng(1);
  std::vector<int32_t> prompt(n_prompt);
  for (int32_t& t : prompt) t = static_cast<int32_t>(rng() % vocab);
  std::vector<float> logits(vocab);
  t0 = Now();
  if (model_iface->forward(m, prompt.data(), n_prompt, logits.data(), error, sizeof error) !=
      OXI_OK) {
    std::fprintf(stderr, "forward: %s\n", error);
    return 1;
  }
  const double t_prefill = Now() - t0;
  t0 = Now();
  for (int i = 0; i < n_new; ++i) {
    int32_t best = 0;
    for (int v = 1; v < vocab; ++v) {
      if (logits[v] > logits[best]) best = v;
    }
    if (model_iface->forward(m, &best, 1, logits.data(), error, sizeof error) != OXI_OK) {
      std::fprintf(stderr, "forward: %s\n", error);
      return 1;
    }
  }
  const double t_decode = Now() - t0;
  double in_ops = 0;
  for (double t : g_time) in_ops += t;
  std::printf("time in backend ops (prefill + decode): ");
  for (int i = 0; i < 6; ++i) std::printf("%s %.2f s  ", kOpNames[i], g_time[i]);
  std::printf("; outside ops %.2f s\n", t_prefill + t_decode - in_ops);
  std::printf(
      "open %.2f s, prefill %d tokens %.1f tok/s, decode %d tokens %.2f tok/s (%d threads)\n",
      t_open, n_prompt, n_prompt / t_prefill, n_new, n_new / t_decode,
      oxinfer::HostServices()->num_threads());
  model_iface->close(m);
  return 0;
}
