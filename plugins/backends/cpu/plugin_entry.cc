// The plugin descriptor of one CPU variant. Compiled WITHOUT -march flags:
// the entry symbol and score() run before we know the CPU can execute the
// variant's kernels, so they must use baseline instructions only.
// OXI_CPU_VARIANT (1 scalar, 2 avx2, 3 avx512, 4 neon) and OXI_CPU_NS come
// from the BUILD file.
#include "oxinfer/plugin.hpp"
#include "plugins/backends/cpu/cpu_backend.h"

#if OXI_CPU_VARIANT == 1
#define OXI_CPU_NAME "cpu-scalar"
#define OXI_CPU_REQUIRED 0ull
#define OXI_CPU_REQUIRED_TEXT "nothing"
#define OXI_CPU_SCORE 10
#define OXI_CPU_DESCRIPTION "CPU backend, portable scalar reference kernels"
#elif OXI_CPU_VARIANT == 2
#define OXI_CPU_NAME "cpu-avx2"
#define OXI_CPU_REQUIRED (OXI_CPU_AVX | OXI_CPU_AVX2 | OXI_CPU_FMA | OXI_CPU_F16C | OXI_CPU_BMI2)
#define OXI_CPU_REQUIRED_TEXT "x86-64-v3 (AVX2, FMA, F16C, BMI2)"
#define OXI_CPU_SCORE 30
#define OXI_CPU_DESCRIPTION "CPU backend, AVX2+FMA kernels (x86-64-v3)"
#elif OXI_CPU_VARIANT == 3
#define OXI_CPU_NAME "cpu-avx512"
#define OXI_CPU_REQUIRED OXI_CPU_X86_64_V4
#define OXI_CPU_REQUIRED_TEXT "x86-64-v4 (AVX-512 F, BW, DQ, VL)"
#define OXI_CPU_SCORE 40
#define OXI_CPU_DESCRIPTION "CPU backend, AVX-512 build of the kernels (x86-64-v4)"
#elif OXI_CPU_VARIANT == 4
#define OXI_CPU_NAME "cpu-neon"
#define OXI_CPU_REQUIRED OXI_CPU_NEON
#define OXI_CPU_REQUIRED_TEXT "NEON"
#define OXI_CPU_SCORE 30
#define OXI_CPU_DESCRIPTION "CPU backend, AArch64 NEON build of the kernels"
#else
#error "unknown OXI_CPU_VARIANT"
#endif

namespace {

int32_t Score(const oxi_host_services* host, char* reason, size_t reason_size) {
  return oxinfer::sdk::ScoreForCpuFeatures(host, OXI_CPU_REQUIRED, OXI_CPU_REQUIRED_TEXT,
                                           OXI_CPU_SCORE, reason, reason_size);
}

const void* GetIface(const oxi_host_services* host, char* error, size_t error_size) {
  // A host that skipped score() must not reach instructions this CPU lacks.
  if (Score(host, error, error_size) <= 0) return nullptr;
  return oxinfer::cpu::OXI_CPU_NS::GetInterface(host);
}

const oxi_plugin kPlugin = {
    sizeof(oxi_plugin),  OXI_ABI_MAJOR, OXI_ABI_MINOR, OXI_PLUGIN_BACKEND, OXI_CPU_NAME, "0.2.0",
    OXI_CPU_DESCRIPTION, &Score,        &GetIface,
};

}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
