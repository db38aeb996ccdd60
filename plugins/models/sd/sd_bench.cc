// Times one text-to-image run stage by stage (text encoder, each UNet pass,
// VAE decoder) with a backend plugin, for full-size random-weight folders
// (tools/reference/sd/make_full_size.py).
//   sd_bench MODEL_DIR BACKEND_SO [SIZE=512] [STEPS=1] [GUIDANCE=0]
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "core/host_services.h"
#include "oxinfer/plugin_abi.h"
#include "plugins/models/sd/pipeline.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Process CPU seconds (all threads): robust to other load on the machine.
double Cpu() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL_DIR BACKEND_SO [SIZE] [STEPS] [GUIDANCE]\n", argv[0]);
    return 2;
  }
  const int size = argc > 3 ? std::atoi(argv[3]) : 512;
  const int steps = argc > 4 ? std::atoi(argv[4]) : 1;
  const float guidance = argc > 5 ? std::strtof(argv[5], nullptr) : 0.f;
  void* h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(h, OXI_ENTRY_SYMBOL));
  const oxi_plugin* plugin = entry();
  char reason[256] = {0};
  if (plugin->score(oxinfer::HostServices(), reason, sizeof(reason)) <= 0) {
    std::fprintf(stderr, "backend declines: %s\n", reason);
    return 1;
  }
  auto* be = static_cast<const oxi_backend_iface*>(
      plugin->get_interface(oxinfer::HostServices(), reason, sizeof(reason)));
  oxinfer::sd::Ops ops(be, oxinfer::HostServices());
  if (std::string(argv[1]) == "attention") {
    // Attention alone: lq = lk = SIZE tokens, STEPS heads of 512 / heads.
    const int64_t n = size, heads = steps, dim = 512;
    oxinfer::sd::Act q(1, 1, n, dim), k(1, 1, n, dim), v(1, 1, n, dim), o;
    for (int64_t i = 0; i < q.size(); ++i) {
      q.d[i] = std::sin(i * 0.37f);
      k.d[i] = std::cos(i * 0.11f);
      v.d[i] = std::sin(i * 0.05f);
    }
    oxi_backend_iface no_gemm = *be;  // forces the backend's attention op
    no_gemm.softmax = nullptr;
    oxinfer::sd::Ops ops2(&no_gemm, oxinfer::HostServices());
    for (int rep = 0; rep < 2; ++rep) {
      double t = Now();
      (void)ops.Attention(q, k, v, heads, false, &o);
      const double gemm = Now() - t;
      t = Now();
      (void)ops2.Attention(q, k, v, heads, false, &o);
      std::printf("attention %lld tokens, %lld heads: gemm %.2f s, backend op %.2f s\n",
                  static_cast<long long>(n), static_cast<long long>(heads), gemm, Now() - t);
    }
    return 0;
  }
  double t0 = Now();
  // Weights as stored, as the plugin loads them (f16 files stay f16).
  auto p = oxinfer::sd::Pipeline::Load(argv[1], nullptr, OXI_DTYPE_INVALID);
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n", std::string(p.status().message()).c_str());
    return 1;
  }
  std::printf("load: %.2f s (%d threads)\n", Now() - t0, oxinfer::HostServices()->num_threads());
  oxinfer::sd::GenerateParams gp;
  gp.prompt = "a red fox in a snowy forest";
  gp.negative_prompt = "blurry";
  gp.steps = steps;
  gp.guidance = guidance;
  gp.width = gp.height = size;
  gp.seed = 1;
  double last = Now(), last_cpu = Cpu();
  const double start = last, start_cpu = last_cpu;
  gp.observer = [&last, &last_cpu](const std::string& name, const oxinfer::sd::Act& a) {
    // tokens_* come right after their text encoder pass.
    if (name == "tokens_pos" || name == "tokens_neg" ||
        name.find("unet_out") != std::string::npos || name == "image_f32") {
      const double now = Now();
      double sum = 0;
      for (float v : a.d) sum += static_cast<double>(v) * v;
      std::printf("%-16s %8.2f s wall %8.2f s cpu  (rms %.4g)\n", name.c_str(), now - last,
                  Cpu() - last_cpu, std::sqrt(sum / std::max<int64_t>(1, a.size())));
      std::fflush(stdout);
    }
    last = Now();
    last_cpu = Cpu();
  };
  auto img = p.value()->Generate(ops, gp);
  if (!img.ok()) {
    std::fprintf(stderr, "%s\n", std::string(img.status().message()).c_str());
    return 1;
  }
  std::printf("total: %.2f s wall, %.2f s cpu\n", Now() - start, Cpu() - start_cpu);
  return 0;
}
