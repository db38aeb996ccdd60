#include "plugins/backends/cpu/device_info.h"

#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

#include "plugins/backends/cpu/runtime.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

// The value of the first "<key>... : value" line of a /proc file, trimmed.
bool ProcField(const char* path, const char* key, char* out, size_t size) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  char line[512];
  bool found = false;
  const size_t key_len = std::strlen(key);
  while (!found && std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, key, key_len) != 0) continue;
    const char* colon = std::strchr(line, ':');
    if (colon == nullptr) continue;
    const char* v = colon + 1;
    while (*v == ' ' || *v == '\t') ++v;
    size_t n = std::strcspn(v, "\r\n");
    if (n >= size) n = size - 1;
    std::memcpy(out, v, n);
    out[n] = '\0';
    found = n > 0;
  }
  std::fclose(f);
  return found;
}

const char* ModelName() {
  static char name[256] = "CPU";
  static const bool once = [] {
    if (!ProcField("/proc/cpuinfo", "model name", name, sizeof name)) {
      // AArch64 kernels have no model name; keep "CPU".
      std::strcpy(name, "CPU");
    }
    return true;
  }();
  (void)once;
  return name;
}

uint64_t AvailableBytes() {
  char value[64];
  unsigned long long kib = 0;
  if (ProcField("/proc/meminfo", "MemAvailable", value, sizeof value) &&
      std::sscanf(value, "%llu", &kib) == 1) {
    return static_cast<uint64_t>(kib) * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

uint64_t TotalBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

}  // namespace

void DescribeHost(const char* driver, oxi_device_info* info) {
  info->name = ModelName();
  if (OXI_HAS_FIELD(info, oxi_device_info, kind)) info->kind = OXI_DEVICE_CPU;
  if (OXI_HAS_FIELD(info, oxi_device_info, compute_units)) info->compute_units = NumThreads();
  if (OXI_HAS_FIELD(info, oxi_device_info, memory_total)) info->memory_total = TotalBytes();
  if (OXI_HAS_FIELD(info, oxi_device_info, memory_free)) info->memory_free = AvailableBytes();
  if (OXI_HAS_FIELD(info, oxi_device_info, subgroup_size)) info->subgroup_size = 0;
  if (OXI_HAS_FIELD(info, oxi_device_info, driver)) info->driver = driver;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
