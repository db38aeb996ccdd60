#!/usr/bin/env bash
# The CUDA backend's device check, one prepared run for a machine with an
# NVIDIA GPU (sized for the 15 minutes such a machine is lent for):
#   bash tools/bench/cuda_check.sh            # from the repository root
# 1. the driver and the GPU as the plugin sees them (oxinfer --devices);
# 2. the exactness suites on cuda: every <suite>__cuda test of the CI matrix
#    (Gemma 4, Qwen 3.5 and SD against the transformers / diffusers fixtures,
#    composed with cpu-avx2 as the engine composes them) and the plugin's own
#    tests, with OXINFER_BACKEND_CHECK=1 (worst error per op kind against the
#    CPU in the logs);
# 3. gpu_matmul_bench: decode GB/s per weight type as a share of the device's
#    measured copy bandwidth, and prefill TFLOP/s.
# Needs the build's tools (tools/setup.sh) and the CUDA toolkit to build; the
# results go to stdout and, as files, under ${OUT:-/tmp/cuda_check}.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/cuda_check}
mkdir -p "$out"
status=0

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 | tee "$out/gpu.txt"
bazel build -c opt //:dist //tools/bench:gpu_matmul_bench //plugins/backends/cuda/... ||
  { echo "cuda_check: build failed"; exit 1; }
bazel-bin/dist/bin/oxinfer --devices --plugins 2>&1 | tee "$out/devices.txt"

tests=$(bazel query 'attr(name, "__cuda$", tests(//tests/...)) + tests(//plugins/backends/cuda/...)' 2>/dev/null)
bazel test -c opt --test_env=OXINFER_BACKEND_CHECK=1 --test_output=errors --nocache_test_results \
  $tests 2>&1 | tee "$out/tests.txt" || status=1
for t in $tests; do
  log="bazel-testlogs/$(echo "${t#//}" | tr ':' '/')/test.log"
  [ -f "$log" ] && cp "$log" "$out/$(echo "${t#//}" | tr '/:' '__').log"
done

timeout 300 bazel-bin/tools/bench/gpu_matmul_bench \
  bazel-bin/plugins/backends/cuda/liboxinfer_cuda.so 50 2>&1 | tee "$out/bench.txt" || status=1
echo "cuda_check: $([ $status -eq 0 ] && echo passed || echo FAILED); files in $out"
exit $status
