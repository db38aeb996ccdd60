// Times one text-to-image run stage by stage (text encoder, each UNet pass,
// VAE decoder) on a backend plugin, for full-size random-weight folders
// (tools/reference/sd/make_full_size.py). Weights as stored, as the plugin
// loads them.
//   sd_bench MODEL_DIR BACKEND_SO [SIZE=512] [STEPS=1] [GUIDANCE=0] [profile] [all|stage]
// "profile": the dispatcher's per-op-kind times at the end (core/backend_dispatch.h).
// "stage" (the default: one image, as sd-cli makes it): each network loaded
// when its stage begins and freed when it ends (Residency::kStage; its loads
// are stages of the generation); "all": every network loaded first and kept.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/backend_dispatch.h"
#include "core/host_services.h"
#include "core/plugin_registry.h"
#include "oxinfer/sdk/common.hpp"
#include "plugins/models/sd/pipeline.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A "Key: N kB" line of /proc/self/status, in MB; 0 when unknown. VmHWM: the
// peak resident set so far; VmRSS: the resident set now.
double StatusMb(const char* key) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  const std::string format = std::string(key) + ": %lf kB";
  double kb = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, format.c_str(), &kb) == 1) break;
  }
  std::fclose(f);
  return kb / 1024;
}
double PeakRssMb() { return StatusMb("VmHWM"); }
double RssMb() { return StatusMb("VmRSS"); }

// Process CPU seconds (all threads): robust to other load on the machine.
double Cpu() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s MODEL_DIR BACKEND_SO [SIZE] [STEPS] [GUIDANCE] [profile] [all|stage]\n",
                 argv[0]);
    return 2;
  }
  const int size = argc > 3 ? std::atoi(argv[3]) : 512;
  const int steps = argc > 4 ? std::atoi(argv[4]) : 1;
  const float guidance = argc > 5 ? std::strtof(argv[5], nullptr) : 0.f;
  bool profile = false;
  oxinfer::sd::Residency residency = oxinfer::sd::Residency::kStage;
  for (int i = 6; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "profile") {
      profile = true;
    } else if (word == "all" || word == "stage") {
      residency = word == "all" ? oxinfer::sd::Residency::kAll : oxinfer::sd::Residency::kStage;
    } else {
      std::fprintf(stderr, "unknown word '%s' (profile, all or stage)\n", argv[i]);
      return 2;
    }
  }
  oxinfer::sdk::HostSlot() = oxinfer::HostServices();
  oxinfer::PluginRegistry registry;
  if (absl::Status s = registry.LoadFile(argv[2]); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  const oxinfer::PluginRecord& backend = registry.plugins().back();
  if (backend.kind != OXI_PLUGIN_BACKEND || backend.iface == nullptr) {
    std::fprintf(stderr, "%s: not a usable backend plugin: %s\n", argv[2], backend.reason.c_str());
    return 1;
  }
  auto composed = oxinfer::ComposedBackend::Create(
      nullptr, static_cast<const oxi_backend_iface*>(backend.iface),
      oxinfer::DispatchOptions{/*profile=*/profile, /*check=*/false});
  if (!composed.ok()) {
    std::fprintf(stderr, "%s\n", std::string(composed.status().message()).c_str());
    return 1;
  }
  const double t0 = Now();
  auto p = oxinfer::sd::Pipeline::Load(argv[1], (*composed)->iface(), OXI_DTYPE_INVALID,
                                       /*use_mmap=*/true, nullptr, residency);
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n", p.status().message().c_str());
    return 1;
  }
  std::printf("load: %.2f s (%d threads, %s, peak RSS %.0f MB)\n", Now() - t0,
              oxinfer::HostServices()->num_threads(),
              residency == oxinfer::sd::Residency::kAll ? "all networks resident"
                                                        : "each network in its stage",
              PeakRssMb());
  (*composed)->ResetProfile();
  oxinfer::sd::GenerateParams gp;
  gp.prompt = "a red fox in a snowy forest";
  gp.negative_prompt = "blurry";
  gp.steps = steps;
  gp.guidance = guidance;
  gp.width = gp.height = size;
  gp.seed = 1;
  double last_cpu = Cpu();
  gp.stage_time = [&last_cpu](const std::string& stage, double seconds) {
    const double cpu = Cpu();
    std::printf("%-17s %8.2f s wall %8.2f s cpu  (peak RSS %.0f MB, now %.0f MB)\n", stage.c_str(),
                seconds, cpu - last_cpu, PeakRssMb(), RssMb());
    std::fflush(stdout);
    last_cpu = cpu;
  };
  const double start = Now(), start_cpu = Cpu();
  auto img = (*p)->Generate(gp);
  if (!img.ok()) {
    std::fprintf(stderr, "%s\n", img.status().message().c_str());
    return 1;
  }
  std::printf("total: %.2f s wall, %.2f s cpu\n", Now() - start, Cpu() - start_cpu);
  if (profile) std::fputs((*composed)->ProfileReport().c_str(), stdout);
  return 0;
}
