// libFuzzer entry point for one codec plugin, its sources compiled into the
// fuzzer (fuzz/build_and_run.sh <codec>) so that the glue is instrumented;
// the plugin's table comes from its own entry symbol.
#include <cstddef>
#include <cstdint>

#include "fuzz/codec_fuzz_input.h"
#include "oxinfer/plugin_abi.h"

extern "C" const oxi_plugin* oxinfer_plugin_entry(void);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const oxi_codec_iface* codec = [] {
    const oxi_plugin* p = oxinfer_plugin_entry();
    char error[256] = {};
    return static_cast<const oxi_codec_iface*>(p->get_interface(nullptr, error, sizeof error));
  }();
  oxinfer::DecodeWithCodec(codec, data, size).IgnoreError();
  return 0;
}
