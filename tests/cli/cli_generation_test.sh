#!/usr/bin/env bash
# The oxinfer CLI end to end on a tiny Gemma 4 fixture with a tiny tokenizer:
# chat formatting, streaming, stop tokens, speed line, logits dump, flags.
set -euo pipefail
oxinfer="$1"; fixture="$2"; tokenizer_dir="$3"; shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done

model=$(mktemp -d "${TEST_TMPDIR:-/tmp}/model.XXXX")
cp "$fixture"/config.json "$fixture"/generation_config.json "$fixture"/model.safetensors "$model/"
cp "$tokenizer_dir"/tokenizer.json "$tokenizer_dir"/tokenizer_config.json "$model/"
oxinfer=$(readlink -f "$oxinfer")
cd "$model"
run() { "$oxinfer" --plugin-dir="$plugin_dirs" --model="$model" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

# The prompt as the chat template renders it, with the default system prompt.
run -p "Hello" --print-prompt > prompt.txt
prompt=$(cat prompt.txt)
echo "$prompt"
grep -q '^<bos><|turn>system$' <<<"$prompt" || fail "no system turn"
grep -q 'running locally' <<<"$prompt" || fail "default system prompt missing"
[ "$(tail -c 38 prompt.txt)" = "$(printf '<|turn>user\nHello<turn|>\n<|turn>model\n')" ] \
  || fail "user turn / generation prompt"
run -p "Hello" --no-system --print-prompt | grep -q system && fail "--no-system kept a system turn"
run -p "Hi" --system "Be brief." --print-prompt | grep -q '^Be brief.<turn|>$' || fail "--system"

# Greedy generation streams text and reports speed; greedy is deterministic.
# A fixed system prompt: the default one carries the minute, which may change
# between two runs.
out1=$(run -p "Hello" --system "Be brief." --max-tokens 12 2>err.txt)
cat err.txt
grep -qE 'prefill: [0-9]+ tokens in .* tok/s\); decode: [0-9]+ tokens' err.txt || fail "no speed line"
out2=$(run -p "Hello" --system "Be brief." --max-tokens 12 2>/dev/null)
[ "$out1" = "$out2" ] || fail "greedy output differs between runs"
[ -n "$out1" ] || fail "no text generated"

# Seeded sampling is reproducible.
s1=$(run -p "Hello" --system "Be brief." --max-tokens 12 --temp 0.9 --top-k 40 --seed 7 2>/dev/null)
s2=$(run -p "Hello" --system "Be brief." --max-tokens 12 --temp 0.9 --top-k 40 --seed 7 2>/dev/null)
[ "$s1" = "$s2" ] || fail "seeded sampling differs"

# --raw --dump-logits writes vocab_size floats; --show-tokens lists ids.
run --raw -p "Once upon a time" --max-tokens 1 --dump-logits="$model/logits.bin" --show-tokens 2>err.txt >/dev/null
[ "$(stat -c %s "$model/logits.bin")" -eq $((256 * 4)) ] || fail "logits file size"
grep -q '\[prompt tokens: 2:<bos>' err.txt || fail "--show-tokens"

# --raw with an empty prompt feeds <bos> alone (tokenizers encodes "" to [<bos>]).
run --raw -p "" --max-tokens 1 --show-tokens 2>err.txt >/dev/null || fail "--raw -p '' refused"
grep -q '^\[prompt tokens: 2:<bos>\]$' err.txt || fail "--raw '': $(cat err.txt)"

# Quantised at load, profiled.
run -p "Hello" --max-tokens 4 --quant q8 --profile 2>err.txt >/dev/null
grep -q '^matmul ' err.txt || fail "--profile table"
run -p "Hello" --max-tokens 4 --quant q4 --device cpu-scalar >/dev/null 2>&1 || fail "q4 on cpu-scalar"

# Bad input: clear errors, non-zero exit.
if err=$("$oxinfer" --plugin-dir="$plugin_dirs" --model=/nonexistent -p x 2>&1); then fail "missing model accepted"; fi
grep -q 'not a model folder' <<<"$err" || fail "missing-model message: $err"
if err=$(run -p x --quant q3 2>&1); then fail "bad --quant accepted"; fi
grep -q 'expected q8 or q4' <<<"$err" || fail "bad --quant message: $err"
echo PASS
