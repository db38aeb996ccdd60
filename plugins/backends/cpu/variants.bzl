"""The CPU backend's sources, built once per ISA into its own plugin .so."""

load("//tools/build_defs:plugin.bzl", "oxinfer_plugin")

# Every kernel source: compiled with the variant's ISA flags.
KERNEL_SRCS = [
    "attention.cc",
    "attention_blocked.cc",
    "attention_gemm.cc",
    "backend.cc",
    "buffers.cc",
    "conv1d.cc",
    "conv2d.cc",
    "convert_ops.cc",
    "device_info.cc",
    "elementwise.cc",
    "gated_delta.cc",
    "group_norm.cc",
    "image_ops.cc",
    "local_attention.cc",
    "matmul.cc",
    "matmul_bf16.cc",
    "matmul_float_decode.cc",
    "matmul_gemm.cc",
    "matmul_quant_act.cc",
    "matmul_quant_decode.cc",
    "matmul_vnni.cc",
    "matmul_x8.cc",
    "norms.cc",
    "op_table.cc",
    "quantise.cc",
    "rope.cc",
    "rows.cc",
    "rows_ops.cc",
    "runtime.cc",
    "small_gemm.cc",
    "softmax.cc",
    "unary.cc",
    "validate.cc",
    "vec.cc",
]

KERNEL_HDRS = [
    "attention.h",
    "buffer.h",
    "device_info.h",
    "matmul_kernels.h",
    "op_table.h",
    "rows.h",
    "runtime.h",
    "simd.h",
    "small_gemm.h",
    "validate.h",
    "vec.h",
]

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
        srcs = KERNEL_SRCS + KERNEL_HDRS,
        hdrs = ["cpu_backend.h"],
        # fp-contract off: every variant rounds a*b+c the same way unless a
        # kernel asks for an FMA explicitly.
        copts = ns + ["-O3", "-fvisibility=hidden", "-ffp-contract=off"] + isa_copts,
        target_compatible_with = target_compatible_with,
        deps = ["//core:sdk"],
    )
    oxinfer_plugin(
        name = "cpu_" + name,
        srcs = ["plugin_entry.cc"],
        copts = ns + ["-DOXI_CPU_VARIANT=%d" % variant_id],
        target_compatible_with = target_compatible_with,
        deps = [":kernels_" + name],
    )
