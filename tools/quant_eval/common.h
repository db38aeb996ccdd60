// Shared helpers of the quant_eval tools: loading plugins by path (as the
// bench tools in tests/models do), timing, memory.
#ifndef OXINFER_TOOLS_QUANT_EVAL_COMMON_H_
#define OXINFER_TOOLS_QUANT_EVAL_COMMON_H_

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "core/host_services.h"
#include "oxinfer/plugin_abi.h"

namespace quant_eval {

inline const void* LoadInterface(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    return nullptr;
  }
  auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(h, OXI_ENTRY_SYMBOL));
  if (entry == nullptr) {
    std::fprintf(stderr, "%s: no %s\n", path, OXI_ENTRY_SYMBOL);
    return nullptr;
  }
  const oxi_plugin* p = entry();
  char reason[256] = {0};
  if (p->score(oxinfer::HostServices(), reason, sizeof reason) <= 0) {
    std::fprintf(stderr, "%s declined: %s\n", path, reason);
    return nullptr;
  }
  const void* iface = p->get_interface(oxinfer::HostServices(), reason, sizeof reason);
  if (iface == nullptr) std::fprintf(stderr, "%s: %s\n", path, reason);
  return iface;
}

// The vocabulary size of an opened model (0 when info fails).
inline int32_t VocabSize(const oxi_model_iface* iface, const oxi_model* m) {
  oxi_model_info info{};
  info.struct_size = sizeof info;
  return iface->info(m, &info) == OXI_OK ? info.vocab_size : 0;
}

// Appends n tokens to sequence 0 and writes the last position's logits.
inline int32_t ForwardLast(const oxi_model_iface* iface, oxi_model* m, const int32_t* tokens,
                           int64_t n, float* logits, char* error, size_t error_size) {
  oxi_batch_entry entry{};
  entry.struct_size = sizeof entry;
  entry.n_tokens = n;
  entry.tokens = tokens;
  entry.logits = OXI_LOGITS_LAST;
  entry.logits_out = logits;
  const oxi_batch_entry* entries[] = {&entry};
  oxi_forward_args args{};
  args.struct_size = sizeof args;
  args.n_entries = 1;
  args.entries = entries;
  return iface->forward(m, &args, error, error_size);
}

inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A field of /proc/self/status in GB (VmRSS, VmHWM, RssAnon, RssFile); -1 if absent.
inline double ProcStatusGB(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(f, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
      return std::stod(line.substr(n + 1)) / (1024.0 * 1024.0);  // kB -> GB (GiB)
    }
  }
  return -1;
}

// "bf16" (as stored), "q8" / "q8_0", "q4" / "q4_0".
inline bool ParseQuant(const std::string& s, oxi_dtype* d) {
  if (s == "bf16" || s == "none" || s == "stored") {
    *d = OXI_DTYPE_INVALID;
  } else if (s == "q8" || s == "q8_0") {
    *d = OXI_DTYPE_Q8_0;
  } else if (s == "q4" || s == "q4_0") {
    *d = OXI_DTYPE_Q4_0;
  } else {
    return false;
  }
  return true;
}

}  // namespace quant_eval

#endif  // OXINFER_TOOLS_QUANT_EVAL_COMMON_H_
