#!/usr/bin/env bash
# gemma-4-E2B (text only, bf16): llama-bench and gemma4_bench alternately, 2 threads
# (gemma4_bench has no thread option: it uses every hardware thread, 2 here).
set -uo pipefail
PEERS=${PEERS:-/work/peers}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
MODEL=${MODEL:-/work/bigmodels/peers/gemma4-e2b}
GGUF=${GGUF:-/work/bigmodels/peers/gguf/gemma4-e2b-bf16.gguf}
OURS=${OURS:-$PEERS/ours}; PLUG=$OURS/dist/lib/oxinfer/plugins
PP=${PP:-64}; TG=${TG:-32}; REPS=${REPS:-1}
for r in $(seq "$REPS"); do
  echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg) llama.cpp"
  "$LLAMA/build/bin/llama-bench" -m "$GGUF" -p "$PP" -n "$TG" -t 2 -r 1 -o md 2>&1 | grep '^|'
  echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg) oxinfer"
  "$OURS/gemma4_bench" "$PLUG/liboxinfer_gemma4.so" "$PLUG/liboxinfer_cpu_avx2.so" "$MODEL" "$PP" "$TG" 2>&1 | tail -3
done
