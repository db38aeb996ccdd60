#!/usr/bin/env bash
# oxinfer against llama.cpp on one full-size random-weight Qwen 3.5 checkpoint, in one run,
# alternating the engines per (weight type, thread count) so they see the same load.
# Writes $OUT/llm.jsonl (one JSON object per measurement, with the load average beside it).
#   run_llm.sh  (environment: see the defaults below)
set -euo pipefail
PEERS=${PEERS:-/work/peers}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
MODEL=${MODEL:-/work/bigmodels/peers/qwen35-0.8b}       # safetensors folder (ours)
GGUF=${GGUF:-/work/bigmodels/peers/gguf}                 # qwen35-0.8b-{bf16,q8_0,q4_0}.gguf
OURS=${OURS:-$PEERS/ours}                                # copies of bazel-bin outputs (see README)
OUT=${OUT:-$PEERS/results}
QUANTS=${QUANTS:-bf16 q8_0 q4_0}
THREADS=${THREADS:-2 1}
PP=${PP:-64 512}; TG=${TG:-32}; REPS=${REPS:-2}
PLUG=$OURS/dist/lib/oxinfer/plugins
mkdir -p "$OUT"; J=$OUT/llm.jsonl; : > "$J"
load() { cut -d' ' -f1-3 /proc/loadavg; }
membench() {
  local l; l=$(load)
  "$OURS/membench" --benchmark_min_time=1 --benchmark_format=json 2>/dev/null |
    python3 -c "import json,sys; d=json.load(sys.stdin)
best={}  # the read limit of a thread count: its best streams-per-thread figure
for b in d['benchmarks']:
  t=int(b['name'].split('/')[1]); best[t]=max(best.get(t,0),b['bytes_per_second']/1e9)
for t,g in sorted(best.items()): print(json.dumps({'engine':'membench','name':'BM_ReadBandwidth/%d'%t,'GBps':g,'load':'$l'}))" >> "$J"
}
membench
for q in $QUANTS; do
  for t in $THREADS; do
    # llama.cpp: llama-bench, REPS repetitions after its warm-up run
    l=$(load)
    pp=$(echo $PP | tr ' ' ,)
    nice -n 0 "$LLAMA/build/bin/llama-bench" -m "$GGUF/qwen35-0.8b-$q.gguf" -p "$pp" -n "$TG" -t "$t" -r "$REPS" -o json 2>/dev/null |
      python3 -c "import json,sys
for r in json.load(sys.stdin):
  kind='pp' if r['n_prompt']>0 else 'tg'; n=r['n_prompt'] or r['n_gen']
  print(json.dumps({'engine':'llama.cpp','quant':'$q','threads':$t,'kind':kind,'n':n,'tps_best':max(r['samples_ts']),'tps_mean':r['avg_ts'],'load':'$l'}))" >> "$J"
    # ours: qwen35_bench, one process per prompt length, REPS processes each
    oq=$q; [ "$q" = bf16 ] && oq=bf16
    for n in $PP; do
      for r in $(seq "$REPS"); do
        l=$(load)
        dec=0; [ "$n" = "$(echo $PP | cut -d' ' -f1)" ] && dec=$TG
        line=$("$OURS/qwen35_bench" "$PLUG/liboxinfer_qwen35.so" "$PLUG/liboxinfer_cpu_avx2.so" "$MODEL" "$n" "$dec" "$t" "$oq" 2>&1 | tail -1)
        echo "$line" >&2
        python3 - "$line" <<PY >> "$J"
import json,re,sys
s=sys.argv[1]
m=re.search(r'prefill (\d+) tok ([\d.]+) s = ([\d.]+) tok/s \| decode (\d+) tok ([\d.]+) s = ([\d.na]+) tok/s',s)
print(json.dumps({'engine':'oxinfer','quant':'$q','threads':$t,'kind':'pp','n':$n,'tps_best':float(m.group(3)),'load':'$l','raw':s}))
if $dec>0: print(json.dumps({'engine':'oxinfer','quant':'$q','threads':$t,'kind':'tg','n':$dec,'tps_best':float(m.group(6)),'load':'$l','raw':s}))
PY
      done
    done
  done
done
membench
echo "wrote $J"
