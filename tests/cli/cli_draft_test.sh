#!/usr/bin/env bash
# oxinfer --draft mtp end to end on the tiny_mtp fixture (tiny_tied with a
# random MTP head): the same tokens as without drafting, greedy and with a
# repetition penalty; --profile's acceptance line and --show-drafts' rounds
# agree; the flags' refusals name the flags.
set -euo pipefail
oxinfer=$(readlink -f "$1"); fixture="$2"; no_head="$3"; shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
fail() { echo "FAIL: $*"; exit 1; }
run() { "$oxinfer" --plugin-dir="$plugin_dirs" --device cpu "$@"; }
tokens() { grep '^\[generated tokens:' <<<"$1" || true; }

for prompt in "Hello there, world" "a b c d e f" "The quick brown fox"; do
  for extra in "" "--repeat-penalty 1.3"; do
    # shellcheck disable=SC2086
    plain=$(run --model "$fixture" --raw -p "$prompt" --max-tokens 30 --show-tokens $extra 2>&1 >/dev/null)
    # shellcheck disable=SC2086
    drafted=$(run --model "$fixture" --raw -p "$prompt" --max-tokens 30 --show-tokens $extra \
      --draft mtp --draft-tokens 4 --profile --show-drafts 2>&1 >/dev/null)
    [ -n "$(tokens "$plain")" ] || fail "no tokens for '$prompt': $plain"
    [ "$(tokens "$plain")" = "$(tokens "$drafted")" ] \
      || fail "'$prompt' $extra: drafted $(tokens "$drafted") vs plain $(tokens "$plain")"
    line=$(grep -E '^accepted [0-9]+/[0-9]+ drafts \([0-9.]+%\)$' <<<"$drafted") \
      || fail "no acceptance line: $drafted"
    # The rounds --show-drafts printed add up to the acceptance line.
    read -r acc tot < <(sed -E 's#^accepted ([0-9]+)/([0-9]+).*#\1 \2#' <<<"$line")
    sum_acc=0; sum_tot=0
    while read -r a d; do sum_acc=$((sum_acc + a)); sum_tot=$((sum_tot + d)); done < <(
      grep -E '^\[draft [0-9]+:' <<<"$drafted" | sed -E 's#.* -> ([0-9]+)/([0-9]+) accepted\]#\1 \2#')
    [ "$tot" -gt 0 ] || fail "nothing drafted: $drafted"
    [ "$acc $tot" = "$sum_acc $sum_tot" ] || fail "rounds $sum_acc/$sum_tot vs $line"
  done
done
echo "greedy and penalised replies equal with --draft mtp; $line"

err=$(run --model "$no_head" --raw -p x --draft mtp 2>&1) && fail "a checkpoint without mtp.* drafted"
grep -q -- "--draft mtp: .*no complete multi-token-prediction head.*mtp.layers.0" <<<"$err" \
  || fail "no-head message: $err"
err=$(run --model "$fixture" --raw -p x --draft eagle 2>&1) && fail "--draft eagle accepted"
grep -q -- "--draft eagle: unknown drafter" <<<"$err" || fail "unknown drafter message: $err"
err=$(run --model "$fixture" --raw -p x --show-drafts 2>&1) && fail "--show-drafts alone accepted"
grep -q -- "--show-drafts needs --draft" <<<"$err" || fail "--show-drafts message: $err"
err=$(run --model "$fixture" --raw -p x --draft mtp --draft-tokens 0 2>&1) && fail "--draft-tokens 0"
grep -q -- "draft-tokens" <<<"$err" || fail "--draft-tokens message: $err"
echo PASS
