// An example third-party backend plugin. It includes nothing but the oxinfer
// SDK headers (core/sdk/include) and the C++ standard library, and builds
// without the oxinfer sources:
//
//   g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden
//     -I <oxinfer>/core/sdk/include example_backend.cc -o liboxinfer_example.so
//
// It accelerates two ops (binary and scale) and leaves every other op NULL:
// the host's dispatcher then runs those on the CPU backend.
#include <cstdint>

#include "oxinfer/plugin.hpp"
#include "oxinfer/plugin_abi.h"

namespace {

const oxi_host_services* g_host = nullptr;

int32_t Binary(void* /*self*/, oxi_binary_op op, const float* a, const float* b, int64_t n,
               int64_t nb, float* out) {
  if (nb <= 0 || n % nb != 0) return OXI_INVALID_ARGUMENT;
  for (int64_t i = 0; i < n; ++i) {
    const float x = a[i], y = b[i % nb];
    switch (op) {
      case OXI_BINARY_ADD: out[i] = x + y; break;
      case OXI_BINARY_SUB: out[i] = x - y; break;
      case OXI_BINARY_MUL: out[i] = x * y; break;
      case OXI_BINARY_DIV: out[i] = x / y; break;
      default: return OXI_UNIMPLEMENTED;
    }
  }
  return OXI_OK;
}

int32_t Scale(void* /*self*/, const float* x, int64_t n, float s, float b, float* out) {
  // Uses the host's thread pool, as a real backend would.
  oxinfer::sdk::ParallelFor(g_host, n, 4096, [&](int64_t begin, int64_t end, int32_t) {
    for (int64_t i = begin; i < end; ++i) out[i] = x[i] * s + b;
  });
  return OXI_OK;
}

oxi_backend_iface MakeInterface() {
  oxi_backend_iface t = {};
  t.struct_size = sizeof t;
  t.device_name = "example";
  t.binary = &Binary;
  t.scale = &Scale;
  return t;
}

int32_t Score(const oxi_host_services* host, char* reason, size_t reason_size) {
  if (host == nullptr || host->parallel_for == nullptr) {
    oxinfer::sdk::WriteMessage(reason, reason_size, "the host offers no thread pool");
    return 0;
  }
  return 1;  // runs anywhere, but never preferred over a real backend
}

const void* GetInterface(const oxi_host_services* host, char*, size_t) {
  g_host = host;
  static const oxi_backend_iface kInterface = MakeInterface();
  return &kInterface;
}

const oxi_plugin kPlugin = {
    sizeof(oxi_plugin),
    OXI_ABI_MAJOR,
    OXI_ABI_MINOR,
    OXI_PLUGIN_BACKEND,
    "example",
    "1.0.0",
    "third-party example: binary and scale ops, the rest from the CPU",
    &Score,
    &GetInterface,
};

}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
