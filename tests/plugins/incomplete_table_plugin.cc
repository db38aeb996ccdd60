// A backend whose table lacks required entries (buffer_read, execute; no
// supports although partial): refused, naming what is missing.
#include <cstring>

#include "oxinfer/plugin.hpp"

namespace {
int32_t Alloc(void*, uint64_t, uint32_t, oxi_buffer**, char*, size_t) { return OXI_UNIMPLEMENTED; }
void Free(void*, oxi_buffer*) {}
int32_t Write(void*, oxi_buffer*, uint64_t, const void*, uint64_t, char*, size_t) {
  return OXI_UNIMPLEMENTED;
}

int32_t Score(const oxi_host_services*, char*, size_t) { return 1; }
const void* GetInterface(const oxi_host_services*, char*, size_t) {
  static oxi_backend_iface table = [] {
    oxi_backend_iface t;
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.device_name = "incomplete";
    t.device_kind = OXI_DEVICE_GPU;
    t.buffer_alloc = &Alloc;
    t.buffer_free = &Free;
    t.buffer_write = &Write;
    return t;
  }();
  return &table;
}
const oxi_plugin kPlugin = {sizeof(oxi_plugin),
                            OXI_ABI_MAJOR,
                            OXI_ABI_MINOR,
                            OXI_PLUGIN_BACKEND,
                            "incomplete-table",
                            "0.1.0",
                            "lacks required entries",
                            &Score,
                            &GetInterface};
}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
