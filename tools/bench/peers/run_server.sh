#!/usr/bin/env bash
# oxinfer-server against llama-server on the same random full-size Qwen3.5-0.8B (ours from the
# safetensors folder quantised at load, llama.cpp from the GGUF of the same weights), both with
# PARALLEL slots and THREADS threads, driven by tools/bench/server_bench.py: C concurrent
# streamed /v1/completions clients for C in CLIENTS. ROUNDS rounds per quant, each round one
# fresh process of each engine, the order swapped every round; each engine's part of a round
# runs inside $WRAP (e.g. a lock that keeps the machine quiet). Writes $OUT/server.jsonl (one
# line per engine, quant, round and C) and prints the markdown table (medians) of
# report_server.py.
#   SD=0 tools/bench/peers/make_models.sh && tools/bench/peers/run_server.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PEERS=${PEERS:-/work/peers}
OURS=${OURS:-$PEERS/ours}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
MODEL=${MODEL:-/work/bigmodels/peers/qwen35-0.8b}
GGUF=${GGUF:-/work/bigmodels/peers/gguf}
# llama.cpp's file for quant Q: $GGUF/$GGUF_NAME-Q.gguf (the built-in model: MODEL=models/default
# GGUF_NAME=default QUANTS=bf16, after convert_default_model.py); TITLE names the model in the plot
# (default: the folder's name)
GGUF_NAME=${GGUF_NAME:-qwen35-0.8b}
QUANTS=${QUANTS:-q8_0 q4_0}
THREADS=${THREADS:-2}
PARALLEL=${PARALLEL:-8}
CLIENTS=${CLIENTS:-1,2,4,8}
MAX_TOKENS=${MAX_TOKENS:-32}
CONTEXT=${CONTEXT:-1024}  # per slot
ROUNDS=${ROUNDS:-3}
PORT=${PORT:-18431}
# Extra llama-server flags, e.g. LLAMA_ARGS=--no-repack where llama.cpp's AMX path crashes
# (2026-12-02, an AMX Xeon under KVM: ggml_backend_amx_mul_mat segfaults in the warm-up).
LLAMA_ARGS=${LLAMA_ARGS:-}
OUT=${OUT:-$PEERS/server-$(date -u +%Y%m%d-%H%M)}
mkdir -p "$OUT"
: > "$OUT/server.jsonl"

for f in "$OURS/dist/bin/oxinfer-server" "$LLAMA/build/bin/llama-server" "$MODEL/config.json"; do
  [ -e "$f" ] || { echo "run_server.sh: $f is missing (build_ours.sh, build_llama.sh, make_models.sh)" >&2; exit 1; }
done

wait_ready() {  # pid log: until /health answers 200 (both servers answer 503 while loading)
  for _ in $(seq 1 1200); do
    kill -0 "$1" 2>/dev/null || { echo "the server exited:" >&2; tail -20 "$2" >&2; return 1; }
    if python3 -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:$PORT/health', timeout=2).status != 200)" 2>/dev/null; then
      return 0
    fi
    sleep 0.25
  done
  echo "the server did not get ready in 300 s" >&2; tail -20 "$2" >&2; return 1
}

one() {  # engine quant round
  local engine=$1 q=$2 r=$3 log="$OUT/$1-$2-$3.log" pid
  if [ "$engine" = ours ]; then
    local quant=none
    case $q in q8_0) quant=q8 ;; q4_0) quant=q4 ;; esac
    "$OURS/dist/bin/oxinfer-server" --model "$MODEL" --quant "$quant" --threads "$THREADS" \
      --parallel "$PARALLEL" --context "$CONTEXT" --port "$PORT" > "$log" 2>&1 &
  else
    "$LLAMA/build/bin/llama-server" -m "$GGUF/$GGUF_NAME-$q.gguf" -t "$THREADS" -tb "$THREADS" \
      -np "$PARALLEL" -c $((CONTEXT * PARALLEL)) $LLAMA_ARGS --host 127.0.0.1 --port "$PORT" \
      > "$log" 2>&1 &
  fi
  pid=$!
  if wait_ready "$pid" "$log"; then
    python3 "$ROOT/tools/bench/server_bench.py" --url "http://127.0.0.1:$PORT" --clients "$CLIENTS" \
      --max-tokens "$MAX_TOKENS" --rounds 1 --label "$engine $q $r" >> "$OUT/server.jsonl"
  fi
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "  $engine $q round $r done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
}
export -f one wait_ready
export LLAMA_ARGS OURS LLAMA MODEL GGUF GGUF_NAME THREADS PARALLEL CLIENTS MAX_TOKENS CONTEXT PORT OUT ROOT

for q in $QUANTS; do
  for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then order="llama ours"; else order="ours llama"; fi
    for e in $order; do ${WRAP:-} bash -c "one $e $q $r"; done
  done
done
"$("$HERE/setup_venv.sh")" "$HERE/report_server.py" "$OUT/server.jsonl" "$OUT/server.png" \
  "${TITLE:-$(basename "$MODEL")}" | tee "$OUT/server.md"
