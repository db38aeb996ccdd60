#!/usr/bin/env bash
# Builds every oxinfer binary the harness runs (-c opt, the project default) and copies them
# out of bazel-bin into $OURS (default $PEERS/ours), so that another build in the same tree
# cannot swap them in the middle of a run. Records the commit in $OURS/COMMIT.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
PEERS=${PEERS:-/work/peers}
OURS=${OURS:-$PEERS/ours}
TARGETS=(//:dist //tests/models/qwen35:qwen35_bench //tests/models/gemma4:gemma4_bench
         //plugins/models/sd:sd_bench //tools/bench:membench //tools/bench:matmul_bench)
cd "$ROOT"
${BAZEL:-bazel} build -c opt "${TARGETS[@]}"
BIN=$(${BAZEL:-bazel} info -c opt bazel-bin)
rm -rf "$OURS" && mkdir -p "$OURS"
cp -rL "$BIN/dist" "$OURS/"
for b in tests/models/qwen35/qwen35_bench tests/models/gemma4/gemma4_bench plugins/models/sd/sd_bench \
         tools/bench/membench tools/bench/matmul_bench; do
  cp -L "$BIN/$b" "$OURS/"
done
{ git -C "$ROOT" rev-parse HEAD; git -C "$ROOT" status --porcelain | head -20; } > "$OURS/COMMIT"
echo "ours in $OURS (commit $(head -1 "$OURS/COMMIT"))"
