#!/usr/bin/env bash
# Third-party plugins as their authors would build them: plain g++ with
# nothing but a copy of the SDK headers (and its version script), then run by
# the real host:
#   - the example model plugin (a bigram table) generates text through the CLI,
#     with the tokenizer, template and sampling of the host;
#   - the example partial backend runs the ops it supports while the CPU runs
#     the rest, with the same greedy output as the CPU alone;
#   - a plugin built for another ABI major is refused with both versions named.
set -euo pipefail
oxinfer="$1"; model_src="$2"; backend_src="$3"; bigram_dir="$4"; bad_abi="$5"; shift 5
sdk=$(mktemp -d "${TEST_TMPDIR:-/tmp}/sdk.XXXX")
for h in "$@"; do
  case "$h" in
    *.lds) cp "$h" "$sdk/" ;;
    */oxinfer/sdk/*) mkdir -p "$sdk/include/oxinfer/sdk"; cp "$h" "$sdk/include/oxinfer/sdk/" ;;
    *) mkdir -p "$sdk/include/oxinfer"; cp "$h" "$sdk/include/oxinfer/" ;;
  esac
done
fail() { echo "FAIL: $*"; exit 1; }

plugins=$(mktemp -d "${TEST_TMPDIR:-/tmp}/plugins.XXXX")
for pair in "$model_src:bigram" "$backend_src:example"; do
  g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror \
    -Wl,--version-script="$sdk/plugin_exports.lds" \
    -I "$sdk/include" "${pair%%:*}" -o "$plugins/liboxinfer_${pair##*:}.so"
done
for so in "$plugins"/*.so; do
  syms=$(nm -D --defined-only "$so" | awk '{print $3}')
  [ "$syms" = "oxinfer_plugin_entry" ] || fail "$so exports: $syms"
done
cp "$bad_abi" "$plugins/liboxinfer_old_abi.so"

out=$("$oxinfer" --plugins --devices --plugin-dir="$plugins")
echo "$out"
grep -qE '^model +bigram +1\.0\.0 .*loaded' <<<"$out" || fail "bigram model not loaded"
grep -qE '^backend +example +1\.0\.0 .*loaded' <<<"$out" || fail "example backend not loaded"
grep -q 'liboxinfer_old_abi.so: built for plugin ABI 1\.1, this host speaks ABI 2\.[0-9][0-9]*' <<<"$out" \
  || fail "ABI mismatch not reported"

# The model plugin through the CLI: raw prompt, greedy; each token t is
# followed by (t + 7) % 256 until an id >= 240 leads to <eos> (make_fixture.py).
model=$(mktemp -d "${TEST_TMPDIR:-/tmp}/bigram.XXXX")
cp "$bigram_dir"/* "$model/"
err=$("$oxinfer" --plugin-dir="$plugins" --model="$model" --raw -p "a" --show-tokens \
        --max-tokens 64 2>&1 >/dev/null)
echo "$err"
ids=$(sed -n 's/^\[generated tokens:\(.*\)\]$/\1/p' <<<"$err" | grep -oE ' [0-9]+:' | tr -d ' :' | xargs)
last=$(sed -n 's/^\[prompt tokens:\(.*\)\]$/\1/p' <<<"$err" | grep -oE ' [0-9]+:' | tr -d ' :' | tail -n 1)
[ -n "$ids" ] || fail "no generated tokens"
expect=""; t=$last
while [ "$t" -lt 240 ]; do t=$(( (t + 7) % 256 )); expect="${expect:+$expect }$t"; done
[ "$ids" = "$expect" ] || fail "bigram chain: got '$ids', expected '$expect'"

# The partial backend: binary ops on it, everything else on the CPU, the same
# greedy text as the CPU alone.
cpu_out=$("$oxinfer" -p "In the beginning" --max-tokens 16 --device cpu 2>/dev/null)
acc_out=$("$oxinfer" --plugin-dir="$plugins" -p "In the beginning" --max-tokens 16 \
            --device example --profile 2>prof.txt)
cat prof.txt
[ "$cpu_out" = "$acc_out" ] || fail "partial backend changed the output: '$acc_out' vs '$cpu_out'"
grep -qE '^ *binary +example' prof.txt || fail "no binary op ran on the example backend"
grep -qE '^ *matmul +cpu' prof.txt || fail "matmul did not fall back to the CPU"

# --device naming a plugin that does not exist: a clear error, non-zero exit.
if err=$("$oxinfer" --device=nonexistent --plugin-dir="$plugins" -p x 2>&1); then
  fail "unknown device accepted"
fi
grep -q "no backend named 'nonexistent'" <<<"$err" || fail "$err"
echo PASS
