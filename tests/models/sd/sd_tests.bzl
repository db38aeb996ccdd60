"""The SD stage and plugin tests, once per backend spec."""

def sd_backend_tests(backends):
    """Declares sd_stages_<name>_test and sd_plugin_<name>_test per backend.

    Args:
      backends: name -> the plugin targets of one spec: [cpu] or [accelerator, cpu]
        (joined with "+", as tests/support/test_backends.h reads them).
    """
    for name, plugins in backends.items():
        spec = "+".join(["$(rootpath %s)" % p for p in plugins])
        # backend-<name>: the CI runs the suites per backend by this tag.
        tags = ["backend-" + name.replace("_", "-")]
        native.cc_test(
            name = "sd_stages_%s_test" % name,
            size = "medium",
            srcs = ["sd_stages_test.cc"],
            args = [spec],
            data = [":testdata"] + plugins,
            tags = tags,
            target_compatible_with = ["@platforms//cpu:x86_64"],
            deps = [
                ":backend_arg",
                ":fixture",
                "//core:sdk",
                "//plugins/models/sd:sd_lib",
                "@system//:gtest",
            ],
        )
        native.cc_test(
            name = "sd_plugin_%s_test" % name,
            size = "medium",
            srcs = ["sd_plugin_test.cc"],
            args = [spec],
            data = [
                ":testdata",
                "//plugins/models/sd:liboxinfer_sd.so",
            ] + plugins,
            tags = tags,
            target_compatible_with = ["@platforms//cpu:x86_64"],
            deps = [
                ":backend_arg",
                "//core:sdk",
                "//tests/support:test_backends",
                "@system//:gtest",
            ],
        )
