#!/usr/bin/env bash
# The CLI's conversation flags end to end: --messages / --tools-file /
# --print-prompt on a folder without weights (the real Gemma 4 template from
# ../shared/data), refusals naming the file and entry, and --tools running the
# built-in calculator in a whole loop with the scripted test model.
set -euo pipefail
oxinfer=$(readlink -f "$1"); tokenizer=$(readlink -f "$2"); shift 2
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
fail() { echo "FAIL: $*"; exit 1; }

shared=""
dir=$(dirname "$tokenizer")
while [ "$dir" != "/" ]; do
  dir=$(dirname "$dir")
  if [ -d "$dir/shared/data/templates" ]; then shared="$dir/shared/data"; break; fi
done
[ -n "${OXINFER_SHARED_DIR:-}" ] && shared="$OXINFER_SHARED_DIR/data"
if [ -z "$shared" ]; then echo "SKIP: shared/data not found (the real chat templates)"; exit 0; fi
template="$shared/templates/gemma4/chat_template.E2B-E4B-it.v4-2026-07-09.jinja"

work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/cli_tools.XXXX")
cd "$work"
mkdir text_only
cp "$tokenizer" text_only/tokenizer.json
cp "$template" text_only/chat_template.jinja
echo '{"bos_token": "<bos>", "eos_token": "<eos>"}' > text_only/tokenizer_config.json

cat > conv.json <<'JSON'
[{"role": "system", "content": "Be exact."},
 {"role": "user", "content": "Weather in Oslo?"},
 {"role": "assistant", "content": null, "tool_calls": [{"id": "w1", "type": "function",
   "function": {"name": "get_weather", "arguments": "{\"unit\": \"celsius\", \"city\": \"Oslo\"}"}}]},
 {"role": "tool", "tool_call_id": "w1", "name": "get_weather", "content": "-3 C"}]
JSON
cat > tools.json <<'JSON'
[{"type": "function", "function": {"name": "get_weather", "description": "Weather now.",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"},
   "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}]
JSON

# A folder without weights renders the conversation; no default system prompt.
"$oxinfer" --model text_only --messages conv.json --tools-file tools.json --print-prompt > p.txt \
  || fail "--print-prompt without weights"
cat p.txt; echo
grep -q '^<bos><|turn>system$' p.txt || fail "no system turn"
grep -q 'running locally' p.txt && fail "a default system prompt was added to --messages"
grep -qF 'Be exact.<|tool>declaration:get_weather{description:<|"|>Weather now.<|"|>' p.txt \
  || fail "the declaration"
grep -qF '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,unit:<|"|>celsius<|"|>}<tool_call|>' p.txt \
  || fail "the call"
grep -qF '<|tool_response>response:get_weather{value:<|"|>-3 C<|"|>}<tool_response|>' p.txt \
  || fail "the tool response"
grep -qF '<|think|>' p.txt && fail "thinking enabled without --think"
"$oxinfer" --model text_only --messages conv.json --tools-file tools.json --print-prompt --think \
  | grep -qF '<|think|>' || fail "--think"
# -p appends a user turn; the builtin tools are declared with --tools.
"$oxinfer" --model text_only --messages conv.json --tools --print-prompt -p "And 2+2?" > q.txt
grep -qF 'declaration:calculate{' q.txt || fail "--tools declares calculate"
grep -qF '<|turn>user
And 2+2?<turn|>' q.txt || fail "-p after --messages"

# Malformed files are refused, naming the file and the entry.
echo '[{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]' > bad.json
if "$oxinfer" --model text_only --messages bad.json --print-prompt 2> err.txt; then fail "bad role accepted"; fi
grep -q "bad.json: message 1: unknown message role 'robot'" err.txt || { cat err.txt; fail "message"; }
echo '[{"type": "function", "function": {"name": "f"}}, {"type": "x"}]' > badtools.json
if "$oxinfer" --model text_only --tools-file badtools.json -p hi --print-prompt 2> err.txt; then
  fail "bad tools accepted"
fi
grep -q 'badtools.json: tool 1: needs "type": "function"' err.txt || { cat err.txt; fail "tools message"; }

# The whole loop: the scripted model calls the calculator, then answers.
mkdir scripted
cp text_only/* scripted/
cat > scripted/config.json <<'JSON'
{"model_type": "scripted", "vocab_size": 276, "stop_tokens": [260],
 "script": [["Let me compute.<|tool_call>call:calculate{expression:<|\"|>1234.5 * 6789 - 2^20<|\"|>}<tool_call|>", 264],
            ["The answer is 7332444.5.", 260]]}
JSON
echo '{"eos_token_id": [257, 260, 264]}' > scripted/generation_config.json
"$oxinfer" --plugin-dir="$plugin_dirs" --model scripted --device cpu --tools \
  -p "What is 1234.5 * 6789 - 2^20?" > out.txt 2> err.txt || { cat err.txt; fail "the tool loop"; }
cat out.txt
grep -qF 'Let me compute.' out.txt || fail "text before the call"
grep -qF '[tool calculate({"expression":"1234.5 * 6789 - 2^20"}) -> 7332444.5]' out.txt \
  || fail "the tool line"
grep -qF 'The answer is 7332444.5.' out.txt || fail "the answer"
grep -qF '<|tool_call>' out.txt && fail "the call's markup was printed"
echo "PASS"
