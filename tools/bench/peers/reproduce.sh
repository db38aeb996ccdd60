#!/usr/bin/env bash
# One command for docs/peers.md: venv, peers' builds, ours' build, models, the runs and the
# report. Writes everything to $OUT (default $PEERS/results-<UTC time>): peers.md (the tables,
# with the machine and the flags), peers_llm.png, peers_sd.png, decode_vs_membench.md, raw logs.
# UPDATE_DOCS=1 also replaces the generated part of docs/peers.md and its plots.
#   tools/bench/peers/reproduce.sh                       # everything (~1-2 h of a 2-core machine)
#   SD=0 GEMMA=0 tools/bench/peers/reproduce.sh          # Qwen 3.5 only
#   WRAP=/work/quiet tools/bench/peers/reproduce.sh      # every round inside a wrapper
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
export PEERS=${PEERS:-/work/peers}
export OUT=${OUT:-$PEERS/results-$(date -u +%Y%m%d-%H%M)}
export SD=${SD:-1} GEMMA=${GEMMA:-0}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
mkdir -p "$OUT"
PY=$("$HERE/setup_venv.sh")
"$HERE/build_llama.sh"
[ "$SD" = 1 ] && "$HERE/build_sdcpp.sh"
[ "${SKIP_BUILD_OURS:-0}" = 1 ] || "$HERE/build_ours.sh"
"$HERE/make_models.sh"
"$HERE/machine.sh" > "$OUT/machine.md"
"$HERE/run_llm.sh" 2> "$OUT/run_llm.log"
"$PY" "$HERE/report_llm.py" "$OUT/llm.jsonl" /work/bigmodels/peers/gguf "$LLAMA" "$OUT/peers_llm.png" > "$OUT/llm.md"
${WRAP:-} "$PY" "$ROOT/tools/bench/decode_vs_membench.py" --rounds 3 --bin "$PEERS/ours" > "$OUT/decode_vs_membench.md"
if [ "$GEMMA" = 1 ]; then
  "$HERE/run_gemma.sh" > "$OUT/gemma.md" 2> "$OUT/run_gemma.log"
fi
if [ "$SD" = 1 ]; then
  "$HERE/run_sd.sh" 2> "$OUT/run_sd.log"
  "$PY" "$HERE/report_sd.py" "$OUT" "$OUT/peers_sd.png" > "$OUT/sd.md"
fi
"$PY" "$HERE/assemble.py" "$OUT" > "$OUT/peers.md"
if [ "${UPDATE_DOCS:-0}" = 1 ]; then
  "$PY" "$HERE/assemble.py" "$OUT" --into "$ROOT/docs/peers.md"
  cp "$OUT/peers_llm.png" "$ROOT/docs/peers_llm.png"
  [ -f "$OUT/peers_sd.png" ] && cp "$OUT/peers_sd.png" "$ROOT/docs/peers_sd.png"
fi
echo "results in $OUT (peers.md)"
