#!/usr/bin/env bash
# --save-quantized: a tiny Qwen 3.5 saved at q4 on cpu-avx2 (Q4_0_X8 layouts)
# loads again without --quant (mapped, too) and gives the logits of quantising
# at load, byte for byte; on cpu-scalar (plain Q4_0) the folder is re-laid at
# load, the same logits as scalar's own q4; another --quant, a busy output
# folder and a save without --quant are refused with the flag named, before
# any work; a previous save is replaced; -p goes on to run after saving.
set -euo pipefail
oxinfer="$1"; fixture="$2"; tokenizer_dir="$3"; shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done

work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/save.XXXX")
model="$work/model"; out="$work/saved"
mkdir "$model"
cp "$fixture"/config.json "$fixture"/model.safetensors "$model/"
cp "$tokenizer_dir"/tokenizer.json "$tokenizer_dir"/tokenizer_config.json "$model/"
oxinfer=$(readlink -f "$oxinfer")
cd "$work"
run() { "$oxinfer" --plugin-dir="$plugin_dirs" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }
logits() {  # logits FILE ARGS...: the prompt's last logits
  local f="$1"; shift
  run --raw -p "Once upon a time" --max-tokens 1 --dump-logits "$f" "$@" >/dev/null 2>err.txt \
    || fail "$*: $(cat err.txt)"
}

run --model "$model" --device cpu-avx2 --quant q4 --save-quantized "$out" 2>err.txt \
  || fail "save: $(cat err.txt)"
grep -qE "^oxinfer: saved [0-9]+ tensors \(.* GiB\) in 1 shards to $out$" err.txt \
  || fail "no summary: $(cat err.txt)"
for f in config.json tokenizer.json tokenizer_config.json model.safetensors.index.json \
  model-00001-of-00001.safetensors; do
  [ -f "$out/$f" ] || fail "$f not in the saved folder"
done
grep -q '"oxinfer.precision": "q4_0"' "$out/model.safetensors.index.json" || fail "no precision"
grep -q '"oxinfer.device": "cpu-avx2"' "$out/model.safetensors.index.json" || fail "no device"
grep -qa 'q4_0x8' "$out/model-00001-of-00001.safetensors" || fail "no Q4_0_X8 layout recorded"
[ "$(ls -A "$work" | wc -l)" = 3 ] || fail "a temporary folder was left: $(ls -A "$work")"

logits at_load.bin --model "$model" --device cpu-avx2 --quant q4
logits saved.bin --model "$out" --device cpu-avx2 --profile
# Nothing is quantised again: the count says the matrices came as they are.
grep -qE "^\[qwen35\] info: [1-9][0-9]* matrices already q4_0 in the checkpoint, [0-9]+ kept as stored" err.txt \
  || fail "reload: no already-q4_0 count: $(grep info err.txt)"
grep -q "info: quantised" err.txt && fail "reload said it quantised: $(grep info err.txt)"
cmp at_load.bin saved.bin || fail "saved folder's logits differ from quantising at load"
logits saved_mmap.bin --model "$out" --device cpu-avx2 --mmap --quant q4
cmp at_load.bin saved_mmap.bin || fail "--mmap: logits differ"
# Another layout: re-laid at load (x8 -> plain), the scalar's own q4 logits.
logits scalar_at_load.bin --model "$model" --device cpu-scalar --quant q4
logits scalar_saved.bin --model "$out" --device cpu-scalar
cmp scalar_at_load.bin scalar_saved.bin || fail "cpu-scalar: logits differ"

# Another precision: refused, naming both and the flags.
if run --model "$out" --device cpu-avx2 --quant q8 -p hi 2>err.txt >/dev/null; then
  fail "--quant q8 on a q4 save ran"
fi
grep -qF -- "--quant q8_0: $out was saved at q4_0 (--save-quantized)" err.txt \
  || fail "no precision message: $(cat err.txt)"

# A busy folder and a missing --quant: refused before loading.
mkdir busy && echo mine > busy/notes.txt
if run --model "$model" --quant q8 --save-quantized busy 2>err.txt; then fail "saved into busy"; fi
grep -qF -- "--save-quantized busy: the folder is not empty and holds no previous save" err.txt \
  || fail "busy: $(cat err.txt)"
grep -q loading err.txt && fail "busy: the model was loaded first"
[ "$(cat busy/notes.txt)" = mine ] || fail "busy folder touched"
if run --model "$model" --save-quantized fresh 2>err.txt; then fail "saved without --quant"; fi
grep -qF -- "--save-quantized needs --quant q8 or q4" err.txt || fail "no --quant: $(cat err.txt)"

# A previous save is replaced whole (here at q8), and -p runs after saving.
run --model "$model" --device cpu-avx2 --quant q8 --save-quantized "$out" --raw -p "Once" \
  --max-tokens 2 >reply.txt 2>err.txt || fail "re-save: $(cat err.txt)"
[ -s reply.txt ] || fail "-p printed nothing after saving"
grep -q '"oxinfer.precision": "q8_0"' "$out/model.safetensors.index.json" || fail "not replaced"
[ "$(ls -A "$work" | grep -c "^\.saved")" = 0 ] || fail "a temporary folder was left: $(ls -A "$work")"
echo PASS
