#!/usr/bin/env bash
# Builds the example plugin the way a third party would -- g++ with nothing
# but a copy of the SDK headers -- and checks that the oxinfer host lists it
# as loaded, next to a plugin for another ABI major that it must refuse.
set -euo pipefail
oxinfer="$1"; example_src="$2"; bad_abi="$3"; shift 3
sdk=$(mktemp -d "${TEST_TMPDIR:-/tmp}/sdk.XXXX")
mkdir -p "$sdk/include/oxinfer"
for h in "$@"; do cp "$h" "$sdk/include/oxinfer/"; done

plugins=$(mktemp -d "${TEST_TMPDIR:-/tmp}/plugins.XXXX")
g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror \
  -I "$sdk/include" "$example_src" -o "$plugins/liboxinfer_example.so"
cp "$bad_abi" "$plugins/liboxinfer_future.so"

out=$("$oxinfer" --plugins --devices --plugin-dir="$plugins")
echo "$out"
grep -qE '^backend +example +1\.0\.0 +1 +loaded' <<<"$out" || { echo "FAIL: example not loaded"; exit 1; }
grep -q 'liboxinfer_future.so: built for plugin ABI 3.0, this host speaks ABI 2.0' <<<"$out" \
  || { echo "FAIL: ABI mismatch not reported"; exit 1; }
grep -qE '^rejected|rejected' <<<"$out" || { echo "FAIL: no rejected row"; exit 1; }

# --device naming a plugin that does not exist: a clear error, non-zero exit.
if err=$("$oxinfer" --device=nonexistent --plugin-dir="$plugins" 2>&1); then
  echo "FAIL: unknown device accepted"; exit 1
fi
grep -q "no backend named 'nonexistent'" <<<"$err" || { echo "FAIL: $err"; exit 1; }
echo PASS
