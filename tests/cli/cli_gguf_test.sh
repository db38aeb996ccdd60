#!/usr/bin/env bash
# oxinfer --model FILE.gguf end to end: a llama.cpp-converted Qwen 3.5 fixture
# generates the same tokens as its safetensors folder (with the tokenizer the
# converter read), renders its embedded chat template, leaves no staged
# folder behind, and refuses a broken file by name.
set -euo pipefail
oxinfer=$(readlink -f "$1"); gguf_dir="$2"; fixture="$3"; shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/gguf.XXXX")
export TMPDIR="$work/tmp"; mkdir -p "$TMPDIR"
folder="$work/folder"; mkdir "$folder"
cp "$fixture"/config.json "$fixture"/model.safetensors "$folder/"
cp "$gguf_dir"/tiny_tied.tokenizer.json "$folder/tokenizer.json"
run() { "$oxinfer" --plugin-dir="$plugin_dirs" --device cpu-avx2 "$@"; }

from_file=$(run --model "$gguf_dir/tiny_tied.bf16.gguf" --raw -p "Hello there, world" \
  --max-tokens 12 --show-tokens 2>&1 >/dev/null | grep 'tokens:')
from_folder=$(run --model "$folder" --raw -p "Hello there, world" \
  --max-tokens 12 --show-tokens 2>&1 >/dev/null | grep 'tokens:')
echo "$from_file"
[ -n "$from_file" ] || fail "no tokens from the .gguf"
[ "$from_file" = "$from_folder" ] || fail "the .gguf and the folder differ: $from_folder"

prompt=$(run --model "$gguf_dir/tiny_tied.q8_0.gguf" -p "Hi" --no-system --print-prompt)
[ "$prompt" = "$(printf '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>')" ] \
  || fail "chat template: $prompt"
run --model "$gguf_dir/tiny_tied.q8_0.gguf" -p "Hi" --max-tokens 4 >/dev/null 2>&1 \
  || fail "q8_0 file did not generate"
[ -z "$(ls -A "$TMPDIR")" ] || fail "staged folders left: $(ls "$TMPDIR")"

head -c 5000 "$gguf_dir/tiny_tied.q8_0.gguf" > "$work/cut.gguf"
if err=$(run --model "$work/cut.gguf" -p x 2>&1); then fail "a cut file was accepted"; fi
grep -q "cut.gguf: truncated GGUF" <<<"$err" || fail "cut-file message: $err"
echo PASS
