#!/usr/bin/env bash
# gemma-4-E2B (text only): llama-bench and gemma4_bench, a warm-up of each then ROUNDS rounds
# per weight type, the order swapped every round, 2 threads (gemma4_bench has no thread option:
# it uses every hardware thread). Ours runs the CPU variant oxinfer chooses and quantises at load;
# llama.cpp reads $GGUF_DIR/gemma4-e2b-{bf16,q8_0,q4_0}.gguf (GEMMA=1 make_models.sh).
# Prints a markdown table (medians over the rounds, load average per round) on stdout.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${PEERS:-/work/peers}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
MODEL=${MODEL:-/work/bigmodels/peers/gemma4-e2b}
GGUF_DIR=${GGUF_DIR:-/work/bigmodels/peers/gguf}
OURS=${OURS:-$PEERS/ours}; PLUG=$OURS/dist/lib/oxinfer/plugins
BACKEND=${BACKEND:-$("$HERE/chosen_cpu_plugin.sh" "$OURS")}
PP=${PP:-64}; TG=${TG:-32}; ROUNDS=${ROUNDS:-3}; QUANTS=${QUANTS:-bf16 q8_0 q4_0}; WRAP=${WRAP:-}
PY=$("$HERE/setup_venv.sh")
LOG=$(mktemp)
llama() { echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg) llama.cpp $1 $2"
  $WRAP "$LLAMA/build/bin/llama-bench" -m "$GGUF_DIR/gemma4-e2b-$1.gguf" -p "$PP" -n "$TG" -t 2 -r 1 -o md 2>&1 | grep '^|'; }
ours() { echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg) oxinfer $1 $2"
  $WRAP "$OURS/gemma4_bench" "$PLUG/liboxinfer_gemma4.so" "$BACKEND" "$MODEL" "$PP" "$TG" "$1" 2>&1 | tail -3; }
for q in $QUANTS; do
  llama "$q" 0 > /dev/null; ours "$q" 0 > /dev/null   # warm-up
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then llama "$q" "$r"; ours "$q" "$r"; else ours "$q" "$r"; llama "$q" "$r"; fi
  done
done | tee "$LOG" >&2
"$PY" - "$LOG" "$PP" "$TG" "$(basename "$BACKEND")" <<'PY'
import collections, re, statistics, sys
log, pp, tg, backend = sys.argv[1:5]
cur, v = None, collections.defaultdict(list)
for l in open(log):
    m = re.match(r"LOAD (\S+) \S+ \S+ (\S+) (\S+) (\d+)", l)
    if m:
        cur = (m.group(2), m.group(3), m.group(1)); continue
    if cur is None: continue
    eng, q, load = cur
    m = re.search(r"\|\s*(pp|tg)(\d+)\s*\|\s*([\d.]+)", l)          # llama-bench md row
    if eng == "llama.cpp" and m:
        v[(eng, q, m.group(1))].append((float(m.group(3)), load))
    m = re.search(r"prefill .*?([\d.]+) tok/s.*decode .*?([\d.]+) tok/s", l)   # gemma4_bench
    if eng == "oxinfer" and m:
        v[(eng, q, "pp")].append((float(m.group(1)), load)); v[(eng, q, "tg")].append((float(m.group(2)), load))
med = statistics.median
print(f"2 threads, ours on `{backend}`; median (min-max) of the rounds; 1-minute load before each round.")
print()
print(f"| weights | test | llama.cpp tok/s | oxinfer tok/s | oxinfer / llama.cpp | load (llama.cpp; oxinfer) |")
print("|---|---|---|---|---|---|")
for q in dict.fromkeys(k[1] for k in v):
    for kind, n in (("pp", pp), ("tg", tg)):
        a, o = v.get(("llama.cpp", q, kind), []), v.get(("oxinfer", q, kind), [])
        if not a or not o: continue
        f = lambda x: f"{med(t for t, _ in x):.2f} ({min(t for t, _ in x):.2f}-{max(t for t, _ in x):.2f})"
        print(f"| {q} | {kind}{n} | {f(a)} | {f(o)} | **{med(t for t, _ in o) / med(t for t, _ in a):.2f}** | "
              f"{', '.join(l for _, l in a)}; {', '.join(l for _, l in o)} |")
PY
rm -f "$LOG"
