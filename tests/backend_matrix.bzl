"""The CI matrix: every model suite once per backend.

A suite declared with backend_matrix_tests() becomes one test per backend of
BACKENDS, named <suite>__<backend>; tools/test.sh groups the results by the
part after "__" and prints one summary line per backend. Each test first asks
//tests/support:backend_probe whether the backend's plugins run on this
machine; where one declines (cpu-avx512 without AVX-512, a GPU backend without
a driver or device) the suite is reported as skipped with the plugin's reason,
never failed.

Adding a backend to CI is one entry below: its name and the spec the suites
run on, [plugin] for a complete backend or [accelerator, cpu] composed by the
dispatcher as the engine composes them (tests/support/test_backends.h). GPU
backends (vulkan, cuda) are composed with cpu-avx2.
"""

load("@local_cuda//:defs.bzl", "CUDA_AVAILABLE")

CPU_SCALAR = "//plugins/backends/cpu:liboxinfer_cpu_scalar.so"
CPU_AVX2 = "//plugins/backends/cpu:liboxinfer_cpu_avx2.so"
CPU_AVX512 = "//plugins/backends/cpu:liboxinfer_cpu_avx512.so"
ARENA = "//tests/backends:liboxinfer_arena.so"
CUDA = "//plugins/backends/cuda:liboxinfer_cuda.so"
VULKAN = "//plugins/backends/vulkan:liboxinfer_vulkan.so"

BACKENDS = dict(
    [
        ("cpu_scalar", [CPU_SCALAR]),
        ("cpu_avx2", [CPU_AVX2]),
        ("cpu_avx512", [CPU_AVX512]),
        # The dispatcher's restricted test accelerator (matmul on float
        # weights and rms_norm in its own memory) composed with the CPU.
        ("arena", [ARENA, CPU_AVX2]),
        # Vulkan compute shaders (Mesa's lavapipe on this CPU in CI); ops it
        # leaves to the CPU run on cpu-avx2. Skipped where no loader or
        # device exists.
        ("vulkan", [VULKAN, CPU_AVX2]),
    ] + ([
        # Built where third_party/cuda found a toolkit; runs where a GPU is.
        ("cuda", [CUDA, CPU_AVX2]),
    ] if CUDA_AVAILABLE else []),
)

# Backends that run the suites slowly (lavapipe runs the shaders on the CPU,
# several times slower than cpu-avx2): their tests get the "large" timeout,
# and a suite's backend_filters may run only its tiniest fixtures there.
SLOW_BACKENDS = ["vulkan"]

_PROBE = "//tests/support:backend_probe"
_RUNNER = "//tests/support:run_on_backend.sh"

def _spec(plugins):
    return "+".join(["$(rootpath %s)" % p for p in plugins])

def backend_matrix_tests(name, binary, args_before = [], data = [], size = "medium", skip_backends = [], backend_filters = {}, **kwargs):
    """Declares <name>__<backend> for every backend of BACKENDS.

    Args:
      name: the suite's name.
      binary: the suite's cc_binary (testonly); it takes args_before, then
        one backend spec.
      args_before: the binary's arguments before the spec.
      data: what the binary reads besides the backend's plugins.
      size: the tests' size.
      skip_backends: backends of BACKENDS this suite is not declared for.
      backend_filters: backend -> a gtest filter (GTEST_FILTER) for the
        suite on that backend: the cases of the tiniest fixtures on a slow
        backend, every kind of case still once.
      **kwargs: passed to every sh_test (tags, env, target_compatible_with...).
    """
    for backend, plugins in BACKENDS.items():
        if backend in skip_backends:
            continue
        args = dict(kwargs)
        if backend in backend_filters:
            env = dict(args.pop("env", {}))
            env["GTEST_FILTER"] = backend_filters[backend]
            args["env"] = env
        native.sh_test(
            name = "%s__%s" % (name, backend),
            size = "large" if backend in SLOW_BACKENDS and size in ("small", "medium") else size,
            srcs = [_RUNNER],
            args = [
                "$(rootpath %s)" % _PROBE,
                _spec(plugins),
                "$(rootpath %s)" % binary,
            ] + args_before + [_spec(plugins)],
            data = [_PROBE, binary] + data + plugins,
            **args
        )
