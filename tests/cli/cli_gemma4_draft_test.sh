#!/usr/bin/env bash
# oxinfer --draft DIR end to end with Gemma 4's assistant drafter (the
# e2b_like main fixture with its tokenizer, and e2b_like_assistant): the same
# tokens as without drafting; --profile's acceptance line and --show-drafts'
# rounds agree; refusals: a folder that does not exist, a folder that is no
# assistant, an assistant for another main model, Qwen 3.5 given a folder.
set -euo pipefail
oxinfer=$(readlink -f "$1"); data=$(readlink -f "$2"); qwen="$3"; shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
fail() { echo "FAIL: $*"; exit 1; }
run() { "$oxinfer" --plugin-dir="$plugin_dirs" --device cpu "$@"; }
tokens() { grep '^\[generated tokens:' <<<"$1" || true; }

# The main fixture with the tokenizer its GGUF conversion carries.
model="${TEST_TMPDIR:-$(mktemp -d)}/e2b_like"
mkdir -p "$model"
ln -sf "$data"/e2b_like/* "$model"/
ln -sf "$data"/gguf/e2b_like.tokenizer.json "$model"/tokenizer.json
assistant="$data/e2b_like_assistant"

for prompt in "a b c" "hello world, the quick brown fox"; do
  plain=$(run --model "$model" --raw -p "$prompt" --max-tokens 20 --show-tokens 2>&1 >/dev/null)
  drafted=$(run --model "$model" --raw -p "$prompt" --max-tokens 20 --show-tokens \
    --draft "$assistant" --draft-tokens 4 --profile --show-drafts 2>&1 >/dev/null)
  [ -n "$(tokens "$plain")" ] || fail "no tokens: $plain"
  [ "$(tokens "$plain")" = "$(tokens "$drafted")" ] \
    || fail "'$prompt': drafted $(tokens "$drafted") vs plain $(tokens "$plain")"
  line=$(grep -E '^accepted [0-9]+/[0-9]+ drafts \([0-9.]+%\)$' <<<"$drafted") \
    || fail "no acceptance line: $drafted"
  read -r acc tot < <(sed -E 's#accepted ([0-9]+)/([0-9]+) .*#\1 \2#' <<<"$line")
  sum=$(grep -E '^\[draft [0-9]+:' <<<"$drafted" \
    | sed -E 's#.* -> ([0-9]+)/([0-9]+) accepted\]#\1 \2#' | awk '{a+=$1; d+=$2} END {print a+0, d+0}')
  [ "$sum" = "$acc $tot" ] || fail "--show-drafts rounds add up to $sum, the profile says $acc $tot"
  [ "$tot" -gt 0 ] || fail "nothing drafted: $drafted"
done
echo "replies equal with --draft $assistant; $line"

err=$(run --model "$model" --raw -p x --draft "$data/no_such_assistant" 2>&1) \
  && fail "a missing folder was accepted"
grep -q -- "--draft $data/no_such_assistant: unknown drafter.*no such folder" <<<"$err" \
  || fail "missing folder message: $err"
err=$(run --model "$model" --raw -p x --draft "$data/e2b_like" 2>&1) \
  && fail "the main model's folder was taken as an assistant"
grep -q -- "model_type must be \"gemma4_assistant\"" <<<"$err" || fail "wrong config message: $err"
err=$(run --model "$model" --raw -p x --draft "$data/keqv_sharded_assistant" 2>&1) \
  && fail "another model's assistant was accepted"
grep -q -- "backbone_hidden_size 48 differs from the main model's hidden_size 64" <<<"$err" \
  || fail "misfit message: $err"
err=$(run --model "$qwen" --raw -p x --draft "$assistant" 2>&1) && fail "qwen35 took a draft folder"
grep -q -- "qwen35 takes no separate drafter checkpoint" <<<"$err" || fail "qwen35 message: $err"
echo "refusals name the folder, the config field and the plugin"
