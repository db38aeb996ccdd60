// What the CPU (and the OS, for the wide register state) supports, as the
// OXI_CPU_* bits of plugin_abi.h, plus the facts `oxinfer --devices` prints.
#ifndef OXINFER_CORE_CPU_FEATURES_H_
#define OXINFER_CORE_CPU_FEATURES_H_

#include <cstdint>
#include <string>

namespace oxinfer {

struct CpuInfo {
  std::string model_name;
  uint64_t features = 0;  // OXI_CPU_* bits
  int logical_cores = 0;
  int64_t memory_total_bytes = 0;
  int64_t memory_available_bytes = 0;
  int64_t l3_cache_bytes = 0;
};

// Detected once; cheap afterwards. OXINFER_CPU_MASK (a hex mask of OXI_CPU_*
// bits) removes features, to test how plugins decline on a lesser CPU.
uint64_t CpuFeatures();
const CpuInfo& GetCpuInfo();

// "avx2 fma f16c ..." for the set bits.
std::string CpuFeatureNames(uint64_t features);

}  // namespace oxinfer

#endif  // OXINFER_CORE_CPU_FEATURES_H_
