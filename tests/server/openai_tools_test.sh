#!/usr/bin/env bash
# openai_tools_test.py on a scripted checkpoint: the scripted test model, the
# byte tokenizer and the real Gemma 4 chat template from ../shared/data
# (skipped without it, as //tests/cli:cli_tools_test).
set -euo pipefail
venv=/opt/oxinfer/test-venv
here=$(dirname "$(readlink -f "$0")")
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
  echo "FAIL: $venv does not hold tests/server/requirements.txt: run tools/setup.sh"
  exit 1
fi
server=$(readlink -f "$1"); tokenizer=$(readlink -f "$2"); shift 2
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done

shared=""
dir=$here
while [ "$dir" != "/" ]; do
  dir=$(dirname "$dir")
  if [ -d "$dir/shared/data/templates" ]; then shared="$dir/shared/data"; break; fi
done
[ -n "${OXINFER_SHARED_DIR:-}" ] && shared="$OXINFER_SHARED_DIR/data"
if [ -z "$shared" ]; then echo "SKIP: shared/data not found (the real chat templates)"; exit 0; fi

ckpt="${TEST_TMPDIR:-$(mktemp -d)}/scripted"
mkdir -p "$ckpt"
cp "$tokenizer" "$ckpt/tokenizer.json"
cp "$shared/templates/gemma4/chat_template.E2B-E4B-it.v4-2026-07-09.jinja" "$ckpt/chat_template.jinja"
echo '{"bos_token": "<bos>", "eos_token": "<eos>"}' > "$ckpt/tokenizer_config.json"
echo '{"eos_token_id": [257, 260, 264]}' > "$ckpt/generation_config.json"
# Replies, per sequence: a reasoning trace, text and a call; the answer; the
# same again for the streamed round.
call='<think>I should use the calculator.</think>Let me compute.<|tool_call>call:calculate{expression:<|\"|>1234.5 * 6789 - 2^20<|\"|>}<tool_call|>'
cat > "$ckpt/config.json" <<JSON
{"model_type": "scripted", "vocab_size": 276, "stop_tokens": [260],
 "reasoning_start": "<think>", "reasoning_end": "</think>",
 "script": [["$call", 264], ["The answer is 7332444.5.", 260],
            ["$call", 264], ["The answer is 7332444.5.", 260]]}
JSON
cd "$here"
exec timeout 300 "$venv/bin/python" -u openai_tools_test.py "$server" "$ckpt" "$plugin_dirs"
