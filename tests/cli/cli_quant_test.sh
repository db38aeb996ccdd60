#!/usr/bin/env bash
# --quant on a checkpoint whose hidden size (48) is not a multiple of 32: the
# matrices that width cannot be quantised stay as stored, and the CLI says so
# (--verbose: one line per matrix with its name, shape and why; --profile: the
# count).
set -euo pipefail
oxinfer="$1"; fixture="$2"; tokenizer_dir="$3"; shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done

model=$(mktemp -d "${TEST_TMPDIR:-/tmp}/model.XXXX")
cp "$fixture"/config.json "$fixture"/model.safetensors "$model/"
cp "$tokenizer_dir"/tokenizer.json "$tokenizer_dir"/tokenizer_config.json "$model/"
oxinfer=$(readlink -f "$oxinfer")
cd "$model"
run() { "$oxinfer" --plugin-dir="$plugin_dirs" --model="$model" --device=cpu-scalar "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

run --raw -p "Once upon a time" --max-tokens 1 --quant q8 --verbose 2>err.txt >/dev/null \
  || fail "--quant q8 --verbose: $(cat err.txt)"
cat err.txt
# Width 48 (gate / up / q / k / v projections): kept, each named with its shape.
grep -qF '[qwen35] info: model.language_model.layers.0.mlp.gate_proj.weight [96 x 48] kept as bf16, not q8_0: its width 48 is not a multiple of 32' err.txt \
  || fail "no line for layers.0.mlp.gate_proj"
# Width 96: quantised, so not listed.
grep -q 'layers.0.mlp.down_proj.weight .* kept as' err.txt && fail "down_proj (width 96) listed as kept"
kept=$(grep -c '\] kept as bf16, not q8_0: its width [0-9]* is not a multiple of 32$' err.txt || true)
[ "$kept" -gt 0 ] || fail "no kept matrices listed"
# The summary's count is the number of lines.
grep -qE "^\[qwen35\] info: quantised [1-9][0-9]* matrices to q8_0, $kept kept as stored \(their width is not a multiple of 32\)$" err.txt \
  || fail "no summary with $kept kept"

# --profile shows the count too (q4: the same widths).
run --raw -p "Once upon a time" --max-tokens 1 --quant q4 --profile 2>err.txt >/dev/null \
  || fail "--quant q4 --profile: $(cat err.txt)"
grep -qE "^\[qwen35\] info: quantised [1-9][0-9]* matrices to q4_0, $kept kept as stored" err.txt \
  || fail "--profile: no count: $(cat err.txt)"

# Without --quant nothing is said about quantisation.
run --raw -p "Once upon a time" --max-tokens 1 --verbose 2>err.txt >/dev/null || fail "plain run"
grep -q 'kept as\|quantised' err.txt && fail "quantisation lines without --quant"
echo PASS
