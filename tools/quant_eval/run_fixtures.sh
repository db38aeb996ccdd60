#!/usr/bin/env bash
# KL / top-5 tables of q8 and q4 against bf16 on every Gemma 4 and Qwen 3.5
# fixture. Usage: tools/quant_eval/run_fixtures.sh [BIN_DIR]
# BIN_DIR holds quant_eval and the .so files (default: bazel-bin after
#   bazel build //tools/quant_eval:all //plugins/models/gemma4:liboxinfer_gemma4.so \
#     //plugins/models/qwen35:liboxinfer_qwen35.so //plugins/backends/cpu:liboxinfer_cpu_avx2.so)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-}
if [[ -z "$B" ]]; then
  QE=bazel-bin/tools/quant_eval/quant_eval
  G=bazel-bin/plugins/models/gemma4/liboxinfer_gemma4.so
  Q=bazel-bin/plugins/models/qwen35/liboxinfer_qwen35.so
  C=bazel-bin/plugins/backends/cpu/liboxinfer_cpu_avx2.so
else
  QE=$B/quant_eval; G=$B/liboxinfer_gemma4.so; Q=$B/liboxinfer_qwen35.so; C=$B/liboxinfer_cpu_avx2.so
fi
for f in tests/models/gemma4/testdata/*/; do
  [[ -f $f/reference.json ]] || continue
  "$QE" --plugin "$G" --backend "$C" --model "$f" --label "gemma4/$(basename "$f")"
done
for f in tests/models/qwen35/testdata/*/; do
  [[ -f $f/reference.safetensors ]] || continue
  "$QE" --plugin "$Q" --backend "$C" --model "$f" --label "qwen35/$(basename "$f")"
done
