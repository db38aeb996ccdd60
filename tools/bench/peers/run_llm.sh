#!/usr/bin/env bash
# oxinfer against llama.cpp on one full-size random-weight Qwen 3.5 checkpoint, in one run.
# Per (weights, threads): a warm-up of each engine (page cache, quantisation at load), then
# ROUNDS rounds, each one llama-bench process and one qwen35_bench process, the order swapped
# every round, so that both see the same machine. Every measurement is a JSON line in
# $OUT/llm.jsonl with the 1/5/15-minute load average before it and its peak RSS; rounds that
# start above MAX_LOAD (1-minute load) are flagged. membench runs before and after.
# Ours runs the CPU variant that `oxinfer` itself chooses here (chosen_cpu_plugin.sh).
#   run_llm.sh  (environment: see the defaults below; WRAP=/work/quiet wraps every round)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${PEERS:-/work/peers}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
MODEL=${MODEL:-/work/bigmodels/peers/qwen35-0.8b}       # safetensors folder (ours)
GGUF=${GGUF:-/work/bigmodels/peers/gguf}                 # qwen35-0.8b-{bf16,q8_0,q4_0}.gguf
OURS=${OURS:-$PEERS/ours}                                # build_ours.sh's copies
OUT=${OUT:-$PEERS/results}
QUANTS=${QUANTS:-bf16 q8_0 q4_0}
THREADS=${THREADS:-1 2}
PP=${PP:-512}; TG=${TG:-32}; ROUNDS=${ROUNDS:-3}; MAX_LOAD=${MAX_LOAD:-2.5}
WRAP=${WRAP:-}
PY=$("$HERE/setup_venv.sh")
PLUG=$OURS/dist/lib/oxinfer/plugins
BACKEND=${BACKEND:-$("$HERE/chosen_cpu_plugin.sh" "$OURS")}
mkdir -p "$OUT"; J=$OUT/llm.jsonl; : > "$J"
echo "{\"engine\":\"meta\",\"backend\":\"$(basename "$BACKEND")\",\"max_load\":$MAX_LOAD,\"rounds\":$ROUNDS,\"pp\":$PP,\"tg\":$TG}" >> "$J"
load() { cut -d' ' -f1-3 /proc/loadavg; }
export PY J MAX_LOAD

membench() {
  local l; l=$(load)
  $WRAP "$OURS/membench" --benchmark_min_time=1 --benchmark_format=json 2>/dev/null |
    "$PY" -c "import json,sys; d=json.load(sys.stdin)
best={}  # the read limit of a thread count: its best layout
for b in d['benchmarks']:
  t=int(b['name'].split('/')[1]); g=b['bytes_per_second']/1e9
  if g>best.get(t,(0,''))[0]: best[t]=(g,b.get('label',''))
for t,(g,lab) in sorted(best.items()): print(json.dumps({'engine':'membench','threads':t,'GBps':g,'layout':lab,'load':'$l','when':'$1'}))" >> "$J"
}

# llama-bench (its own warm-up run first, then -r 1): pp$PP and tg$TG.
llama_round() {  # quant threads round
  local l; l=$(load)
  /usr/bin/time -f "RSS_KB %M" -o "$OUT/.rss" "$LLAMA/build/bin/llama-bench" -m "$GGUF/qwen35-0.8b-$1.gguf" \
    -p "$PP" -n "$TG" -t "$2" -r 1 -o json 2>/dev/null > "$OUT/.llama.json"
  "$PY" - "$1" "$2" "$3" "$l" "$(cut -d' ' -f2 "$OUT/.rss")" <<'PY' >> "$J"
import json, os, sys
q, t, r, l, rss = sys.argv[1:6]
for x in json.load(open(os.path.join(os.path.dirname(os.environ["J"]), ".llama.json"))):
    kind = "pp" if x["n_prompt"] > 0 else "tg"
    print(json.dumps({"engine": "llama.cpp", "quant": q, "threads": int(t), "round": int(r), "kind": kind,
                      "n": x["n_prompt"] or x["n_gen"], "tps": x["avg_ts"], "load": l, "rss_kb": int(rss),
                      "flagged": float(l.split()[0]) > float(os.environ["MAX_LOAD"])}))
PY
}

# qwen35_bench: one process, the prompt then TG decoded tokens (decode after the prompt's context).
ours_round() {  # quant threads round
  local l line; l=$(load)
  line=$(/usr/bin/time -f "RSS_KB %M" -o "$OUT/.rss" "$OURS/qwen35_bench" "$PLUG/liboxinfer_qwen35.so" "$BACKEND" \
         "$MODEL" "$PP" "$TG" "$2" "$1" 2>&1 | tail -1)
  echo "  ours $1 t=$2 r=$3: $line" >&2
  "$PY" - "$1" "$2" "$3" "$l" "$(cut -d' ' -f2 "$OUT/.rss")" "$line" <<'PY' >> "$J"
import json, os, re, sys
q, t, r, l, rss, s = sys.argv[1:7]
m = re.search(r"open ([\d.]+) s \| prefill (\d+) tok ([\d.]+) s = ([\d.]+) tok/s \| decode (\d+) tok ([\d.]+) s = ([\d.na]+) tok/s", s)
if not m:
    sys.exit("qwen35_bench printed no figures: " + s)
base = {"engine": "oxinfer", "quant": q, "threads": int(t), "round": int(r), "load": l, "rss_kb": int(rss),
        "open_s": float(m.group(1)), "flagged": float(l.split()[0]) > float(os.environ["MAX_LOAD"])}
print(json.dumps(dict(base, kind="pp", n=int(m.group(2)), tps=float(m.group(4)))))
if int(m.group(5)) > 0:
    print(json.dumps(dict(base, kind="tg", n=int(m.group(5)), tps=float(m.group(7)))))
PY
}

pair() {  # quant threads round
  if [ $(($3 % 2)) = 1 ]; then llama_round "$@"; ours_round "$@"; else ours_round "$@"; llama_round "$@"; fi
}
export -f llama_round ours_round pair load
export OUT OURS PLUG BACKEND MODEL GGUF LLAMA PP TG

echo "backend: $BACKEND" >&2
membench before
for q in $QUANTS; do
  for t in $THREADS; do
    echo "$(date -u +%H:%M:%S) $q threads=$t: warm-up" >&2
    "$LLAMA/build/bin/llama-bench" -m "$GGUF/qwen35-0.8b-$q.gguf" -p 16 -n 4 -t "$t" -r 1 > /dev/null 2>&1
    "$OURS/qwen35_bench" "$PLUG/liboxinfer_qwen35.so" "$BACKEND" "$MODEL" 16 4 "$t" "$q" > /dev/null 2>&1
    for r in $(seq "$ROUNDS"); do
      $WRAP bash -c "pair $q $t $r"
    done
  done
done
membench after
rm -f "$OUT/.rss" "$OUT/.llama.json"
echo "wrote $J" >&2
