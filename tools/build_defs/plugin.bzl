"""The one way every oxinfer plugin is linked.

oxinfer_plugin(name = "qwen35", srcs = [...], deps = [...]) builds
liboxinfer_qwen35.so: a shared object compiled with -fvisibility=hidden and
linked with //core:sdk/plugin_exports.lds, so that it exports
oxinfer_plugin_entry and nothing else (no weak instances of C++ standard
library or Abseil templates that could interpose between plugins built
against other versions). //tests/plugins:exports_test checks every plugin.
"""

def oxinfer_plugin(name, srcs = [], deps = [], copts = [], linkopts = [], **kwargs):
    """Declares the plugin :liboxinfer_<name>.so.

    Args:
      name: the plugin's file stem; the target is liboxinfer_<name>.so.
      srcs: the entry's sources (the rest usually comes in through deps).
      deps: libraries; //core:sdk is always added.
      copts: extra compiler flags.
      linkopts: extra linker flags.
      **kwargs: passed to cc_binary (data, target_compatible_with, visibility...).
    """
    native.cc_binary(
        name = "liboxinfer_%s.so" % name,
        srcs = srcs,
        copts = ["-fvisibility=hidden"] + copts,
        linkshared = 1,
        additional_linker_inputs = ["//core:sdk/plugin_exports.lds"],
        linkopts = ["-Wl,--version-script=$(location //core:sdk/plugin_exports.lds)"] + linkopts,
        deps = deps + ([] if "//core:sdk" in deps else ["//core:sdk"]),
        **kwargs
    )
