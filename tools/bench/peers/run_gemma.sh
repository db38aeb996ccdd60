#!/usr/bin/env bash
# gemma-4-E2B (text only): llama-bench and gemma4_bench alternately, 2 threads, per
# weight type (gemma4_bench has no thread option: it uses every hardware thread, 2 here).
# GGUFs: $GGUF_DIR/gemma4-e2b-{bf16,q8_0,q4_0}.gguf (make_models.sh with GEMMA=1 makes the
# bf16 one; `llama-quantize <bf16> <out> Q8_0|Q4_0` the others). Ours quantises at load.
set -uo pipefail
PEERS=${PEERS:-/work/peers}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
MODEL=${MODEL:-/work/bigmodels/peers/gemma4-e2b}
GGUF_DIR=${GGUF_DIR:-/work/bigmodels/peers/gguf}
OURS=${OURS:-$PEERS/ours}; PLUG=$OURS/dist/lib/oxinfer/plugins
PP=${PP:-64}; TG=${TG:-32}; REPS=${REPS:-1}; QUANTS=${QUANTS:-bf16}
for q in $QUANTS; do
  for r in $(seq "$REPS"); do
    echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg) llama.cpp $q"
    "$LLAMA/build/bin/llama-bench" -m "$GGUF_DIR/gemma4-e2b-$q.gguf" -p "$PP" -n "$TG" -t 2 -r 1 -o md 2>&1 | grep '^|'
    echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg) oxinfer $q"
    "$OURS/gemma4_bench" "$PLUG/liboxinfer_gemma4.so" "$PLUG/liboxinfer_cpu_avx2.so" "$MODEL" "$PP" "$TG" "$q" 2>&1 | tail -3
  done
done
