// A plugin whose descriptor claims to be smaller than ABI 2.0's: refused, not
// read past its end.
#include "oxinfer/plugin.hpp"

namespace {
const oxi_plugin kPlugin = {16, OXI_ABI_MAJOR, 0,      OXI_PLUGIN_CODEC, "tiny", "0",
                            "", nullptr,       nullptr};
}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
