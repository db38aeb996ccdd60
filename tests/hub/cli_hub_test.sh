#!/usr/bin/env bash
# oxinfer --model ORG/NAME end to end against the loopback Hub: downloaded
# into the cache (only the files the plugin needs), the same text as from the
# local folder, then the cache reused offline with the Hub gone.
set -euo pipefail
oxinfer=$(readlink -f "$1"); server=$(readlink -f "$2"); fixture="$3"; tokenizer_dir="$4"; shift 4
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
fail() { echo "FAIL: $*"; exit 1; }

work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/hub.XXXX")
repo="$work/repo"; cache="$work/cache"
mkdir -p "$repo/onnx"
cp "$fixture"/config.json "$fixture"/generation_config.json "$fixture"/model.safetensors "$repo/"
cp "$tokenizer_dir"/tokenizer.json "$tokenizer_dir"/tokenizer_config.json "$repo/"
echo "not for us" > "$repo/onnx/model.onnx"; echo "# card" > "$repo/README.md"

"$server" "$work/port" 120 "org/tiny-gemma=$repo" &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || fail "the loopback Hub did not start"
export HF_ENDPOINT=$(cat "$work/port")
unset HF_TOKEN HF_HUB_OFFLINE OXINFER_CACHE || true
export HF_HOME="$work/hf_home"

run() { "$oxinfer" --plugin-dir="$plugin_dirs" "$@"; }
local_out=$(run --model "$repo" -p Hello --max-tokens 8 2>/dev/null)
hub_out=$(run --model org/tiny-gemma --cache-dir "$cache" -p Hello --max-tokens 8 2>"$work/err")
cat "$work/err"
[ -n "$hub_out" ] || fail "no text from the Hub model"
[ "$hub_out" = "$local_out" ] || fail "Hub model differs from the local folder: '$hub_out' vs '$local_out'"

snap=$(echo "$cache"/models--org--tiny-gemma/snapshots/*)
[ -L "$snap/model.safetensors" ] || fail "snapshot file is not a link into blobs/"
[ "$(ls "$snap" | sort | tr '\n' ' ')" = "config.json generation_config.json model.safetensors tokenizer.json tokenizer_config.json " ] \
  || fail "snapshot holds: $(ls "$snap")"
[ -f "$cache/models--org--tiny-gemma/refs/main" ] || fail "no refs/main"
cmp "$snap/model.safetensors" "$repo/model.safetensors" || fail "weights differ"

# --download-only prints the snapshot; OXINFER_CACHE is the cache too.
[ "$(OXINFER_CACHE="$cache" run --model org/tiny-gemma --download-only)" = "$snap" ] \
  || fail "--download-only"
if err=$(run --model org/missing --cache-dir "$cache" -p x 2>&1); then fail "missing repo accepted"; fi
grep -q "org/missing: no such repository" <<<"$err" || fail "404 message: $err"

kill $server_pid; wait $server_pid 2>/dev/null || true
offline_out=$(HF_HUB_OFFLINE=1 run --model org/tiny-gemma --cache-dir "$cache" -p Hello --max-tokens 8 2>/dev/null)
[ "$offline_out" = "$local_out" ] || fail "offline run differs"
if err=$(HF_HUB_OFFLINE=1 run --model org/other --cache-dir "$cache" -p x 2>&1); then fail "offline miss accepted"; fi
grep -q "HF_HUB_OFFLINE" <<<"$err" || fail "offline message: $err"
echo PASS
