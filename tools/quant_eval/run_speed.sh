#!/usr/bin/env bash
# One model_speed row per (weight type, thread count), each in its own process,
# with the load average before each run.
#   tools/quant_eval/run_speed.sh BIN_DIR PLUGIN.so MODEL_DIR LABEL [QUANTS="bf16 q8 q4"] [THREADS="1 2"] [PROMPT=16] [DECODE=8]
set -uo pipefail
B=$1; PLUGIN=$2; MODEL=$3; LABEL=$4
QUANTS=${5:-bf16 q8 q4}; THREADS=${6:-1 2}; PROMPT=${7:-16}; DECODE=${8:-8}
for q in $QUANTS; do
  for t in $THREADS; do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    row=$("$B/model_speed" --plugin "$B/$PLUGIN" --backend "$B/liboxinfer_cpu_avx2.so" --model "$MODEL" \
      --quant "$q" --threads "$t" --prompt "$PROMPT" --decode "$DECODE" --label "$LABEL" 2>&1 | tail -1)
    echo "$row load $load |"
  done
done
