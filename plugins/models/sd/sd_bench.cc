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
#include <string>

#include "core/host_services.h"
#include "oxinfer/plugin_abi.h"
#include "plugins/models/sd/pipeline.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
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
  double t0 = Now();
  auto p = oxinfer::sd::Pipeline::Load(argv[1]);
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
  double last = Now();
  const double start = last;
  gp.observer = [&last](const std::string& name, const oxinfer::sd::Act& a) {
    // tokens_* come right after their text encoder pass.
    if (name == "tokens_pos" || name == "tokens_neg" ||
        name.find("unet_out") != std::string::npos || name == "image_f32") {
      const double now = Now();
      double sum = 0;
      for (float v : a.d) sum += static_cast<double>(v) * v;
      std::printf("%-16s %8.2f s  (rms %.4g)\n", name.c_str(), now - last,
                  std::sqrt(sum / std::max<int64_t>(1, a.size())));
      std::fflush(stdout);
    }
    last = Now();
  };
  auto img = p.value()->Generate(ops, gp);
  if (!img.ok()) {
    std::fprintf(stderr, "%s\n", std::string(img.status().message()).c_str());
    return 1;
  }
  std::printf("total: %.2f s\n", Now() - start);
  return 0;
}
