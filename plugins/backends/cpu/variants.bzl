"""One CPU kernel source, built once per ISA into its own plugin .so."""

def cpu_backend_variant(name, variant_id, isa_copts = [], target_compatible_with = []):
    """Declares :kernels_<name> and :liboxinfer_cpu_<name>.so.

    Args:
      name: the variant, also the C++ namespace of its kernels (scalar, avx2, ...).
      variant_id: OXI_CPU_VARIANT for plugin_entry.cc (1 scalar, 2 avx2, 3 avx512, 4 neon).
      isa_copts: -march style flags; applied to the kernels only, never to the entry.
      target_compatible_with: constraints, to leave a variant out on other CPUs.
    """
    ns = ["-DOXI_CPU_NS=" + name]
    native.cc_library(
        name = "kernels_" + name,
        srcs = ["kernels.cc"],
        hdrs = ["cpu_backend.h"],
        # fp-contract off: every variant rounds a*b+c the same way unless a
        # kernel asks for an FMA explicitly.
        copts = ns + ["-O3", "-fvisibility=hidden", "-ffp-contract=off"] + isa_copts,
        target_compatible_with = target_compatible_with,
        deps = ["//core:sdk"],
    )
    native.cc_binary(
        name = "liboxinfer_cpu_%s.so" % name,
        srcs = ["plugin_entry.cc"],
        copts = ns + ["-DOXI_CPU_VARIANT=%d" % variant_id, "-fvisibility=hidden"],
        linkshared = 1,
        linkopts = ["-Wl,--version-script=$(location :exports.lds)"],
        additional_linker_inputs = [":exports.lds"],
        target_compatible_with = target_compatible_with,
        deps = [
            ":kernels_" + name,
            "//core:sdk",
        ],
    )
