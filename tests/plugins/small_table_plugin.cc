// A backend whose table is smaller than ABI 2.0's (as if built against a
// header without the latest fields): refused before any entry is read. Built
// twice: as "small-table", and as "test-cpu" (a rejected plugin claims no name).
#include <cstddef>
#include <cstring>

#include "oxinfer/plugin.hpp"

#ifndef SMALL_TABLE_NAME
#define SMALL_TABLE_NAME "small-table"
#endif

namespace {
int32_t Score(const oxi_host_services*, char*, size_t) { return 1; }
const void* GetInterface(const oxi_host_services*, char*, size_t) {
  static oxi_backend_iface table = [] {
    oxi_backend_iface t;
    std::memset(&t, 0, sizeof t);
    t.struct_size = offsetof(oxi_backend_iface, preferred_weight_dtype);
    t.device_name = "small";
    t.device_kind = OXI_DEVICE_CPU;
    return t;
  }();
  return &table;
}
const oxi_plugin kPlugin = {sizeof(oxi_plugin),           OXI_ABI_MAJOR,    OXI_ABI_MINOR,
                            OXI_PLUGIN_BACKEND,           SMALL_TABLE_NAME, "0.1.0",
                            "an ABI 2.0 table cut short", &Score,           &GetInterface};
}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
