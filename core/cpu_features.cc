#include "core/cpu_features.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "oxinfer/plugin_abi.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace oxinfer {
namespace {

#if defined(__x86_64__) || defined(__i386__)
uint64_t Xgetbv0() {
  uint32_t eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

uint64_t DetectFeatures() {
  uint64_t f = 0;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  const bool osxsave = c & (1u << 27);
  if (c & (1u << 20)) f |= OXI_CPU_SSE42;
  // The OS must save the YMM (bits 1,2) and ZMM/opmask (bits 5,6,7) state.
  const uint64_t xcr0 = osxsave ? Xgetbv0() : 0;
  const bool ymm = (xcr0 & 0x6) == 0x6;
  const bool zmm = ymm && (xcr0 & 0xe0) == 0xe0;
  if (ymm && (c & (1u << 28))) f |= OXI_CPU_AVX;
  if (ymm && (c & (1u << 12))) f |= OXI_CPU_FMA;
  if (ymm && (c & (1u << 29))) f |= OXI_CPU_F16C;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    if (ymm && (b & (1u << 5))) f |= OXI_CPU_AVX2;
    if (b & (1u << 8)) f |= OXI_CPU_BMI2;
    if (zmm) {
      if (b & (1u << 16)) f |= OXI_CPU_AVX512F;
      if (b & (1u << 17)) f |= OXI_CPU_AVX512DQ;
      if (b & (1u << 30)) f |= OXI_CPU_AVX512BW;
      if (b & (1u << 31)) f |= OXI_CPU_AVX512VL;
      if (c & (1u << 11)) f |= OXI_CPU_AVX512VNNI;
    }
    unsigned a1, b1, c1, d1;
    if (__get_cpuid_count(7, 1, &a1, &b1, &c1, &d1)) {
      if (ymm && (a1 & (1u << 4))) f |= OXI_CPU_AVXVNNI;
      if (zmm && (a1 & (1u << 5))) f |= OXI_CPU_AVX512BF16;
    }
  }
  return f;
}

std::string DetectModelName() {
  unsigned regs[12] = {};
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000004) return "";
  for (unsigned i = 0; i < 3; ++i) {
    __get_cpuid(0x80000002 + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2],
                &regs[4 * i + 3]);
  }
  std::string s(reinterpret_cast<const char*>(regs), sizeof regs);
  s = s.c_str();
  const auto first = s.find_first_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first);
}
#elif defined(__aarch64__)
uint64_t DetectFeatures() {
  uint64_t f = OXI_CPU_NEON;  // mandatory on AArch64
#if defined(__linux__)
  const unsigned long hw = getauxval(AT_HWCAP);
  if (hw & HWCAP_ASIMDDP) f |= OXI_CPU_DOTPROD;
  if (hw & HWCAP_ASIMDHP) f |= OXI_CPU_FP16;
  if (hw & HWCAP_SVE) f |= OXI_CPU_SVE;
#endif
  return f;
}
std::string DetectModelName() { return "aarch64"; }
#else
uint64_t DetectFeatures() { return 0; }
std::string DetectModelName() { return ""; }
#endif

int64_t MeminfoBytes(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream ss(line.substr(key.size() + 1));
      int64_t kb = 0;
      ss >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

int64_t L3CacheBytes() {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level(dir + "/level");
    int lv = 0;
    if (!(level >> lv)) break;
    if (lv != 3) continue;
    std::ifstream size(dir + "/size");
    int64_t value = 0;
    std::string unit;
    size >> value >> unit;
    if (!unit.empty() && (unit[0] == 'K' || unit[0] == 'k')) value *= 1024;
    if (!unit.empty() && unit[0] == 'M') value *= 1024 * 1024;
    return value;
  }
#if defined(_SC_LEVEL3_CACHE_SIZE)
  const long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (v > 0) return v;
#endif
  return 0;
}

CpuInfo Detect() {
  CpuInfo info;
  info.features = DetectFeatures();
  if (const char* mask = std::getenv("OXINFER_CPU_MASK")) {
    info.features &= ~std::strtoull(mask, nullptr, 16);
  }
  info.model_name = DetectModelName();
  info.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  info.memory_total_bytes = MeminfoBytes("MemTotal");
  info.memory_available_bytes = MeminfoBytes("MemAvailable");
  info.l3_cache_bytes = L3CacheBytes();
  return info;
}

}  // namespace

const CpuInfo& GetCpuInfo() {
  static const CpuInfo* info = new CpuInfo(Detect());
  return *info;
}

uint64_t CpuFeatures() { return GetCpuInfo().features; }

std::string CpuFeatureNames(uint64_t features) {
  static const std::vector<std::pair<uint64_t, const char*>> kNames = {
      {OXI_CPU_SSE42, "sse4.2"},        {OXI_CPU_AVX, "avx"},
      {OXI_CPU_AVX2, "avx2"},           {OXI_CPU_FMA, "fma"},
      {OXI_CPU_F16C, "f16c"},           {OXI_CPU_BMI2, "bmi2"},
      {OXI_CPU_AVX512F, "avx512f"},     {OXI_CPU_AVX512BW, "avx512bw"},
      {OXI_CPU_AVX512DQ, "avx512dq"},   {OXI_CPU_AVX512VL, "avx512vl"},
      {OXI_CPU_AVX512VNNI, "avx512vnni"}, {OXI_CPU_AVX512BF16, "avx512bf16"},
      {OXI_CPU_AVXVNNI, "avxvnni"},     {OXI_CPU_NEON, "neon"},
      {OXI_CPU_DOTPROD, "dotprod"},     {OXI_CPU_FP16, "fp16"},
      {OXI_CPU_I8MM, "i8mm"},           {OXI_CPU_SVE, "sve"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (features & bit) {
      if (!out.empty()) out += ' ';
      out += name;
    }
  }
  return out.empty() ? "(none)" : out;
}

}  // namespace oxinfer
