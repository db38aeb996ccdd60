#!/usr/bin/env bash
# oxinfer --model ORG/NAME end to end against the loopback Hub: a download
# killed with SIGKILL resumes where it stopped; only the files the plugin
# needs are fetched (transformers and diffusers layouts); the text and the
# image equal those from the local folders; then the cache serves offline with
# the Hub gone.
set -euo pipefail
oxinfer=$(readlink -f "$1"); server=$(readlink -f "$2"); fixture="$3"; tokenizer_dir="$4"
sd_fixture="$5"; shift 5
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
fail() { echo "FAIL: $*"; exit 1; }

work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/hub.XXXX")
repo="$work/repo"; sdrepo="$work/sdrepo"; cache="$work/cache"
mkdir -p "$repo/onnx"
cp "$fixture"/config.json "$fixture"/generation_config.json "$fixture"/model.safetensors "$repo/"
cp "$tokenizer_dir"/tokenizer.json "$tokenizer_dir"/tokenizer_config.json "$repo/"
echo "not for us" > "$repo/onnx/model.onnx"; echo "# card" > "$repo/README.md"
cp -r "$sd_fixture" "$sdrepo"; chmod -R u+w "$sdrepo"
echo "single-file checkpoint" > "$sdrepo/v1-5-pruned.safetensors"
echo "fp16 variant" > "$sdrepo/unet/diffusion_pytorch_model.fp16.safetensors"

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
# start_server NAME [VAR=VALUE]: a loopback Hub; its address in $work/NAME.port.
start_server() {
  env ${2:-} "$server" "$work/$1.port" 120 "org/tiny-gemma=$repo" "org/tiny-sd=$sdrepo" \
    2>"$work/$1.log" &
  pids+=($!)
  for _ in $(seq 300); do [ -s "$work/$1.port" ] && break; sleep 0.1; done
  [ -s "$work/$1.port" ] || fail "the loopback Hub $1 did not start"
}
unset HF_TOKEN HF_HUB_OFFLINE OXINFER_CACHE || true
export HF_HOME="$work/hf_home"
run() { "$oxinfer" --plugin-dir="$plugin_dirs" "$@"; }

# 1. SIGKILL mid-download, then the same command resumes with a Range request.
start_server slow FAKE_HUB_SLOW=1
# (oxinfer itself in the background, so that $! is its process.)
HF_ENDPOINT=$(cat "$work/slow.port") "$oxinfer" --model org/tiny-gemma --cache-dir "$cache" \
  --download-only >/dev/null 2>&1 &
downloader=$!
blob_dir="$cache/models--org--tiny-gemma/blobs"
for _ in $(seq 600); do
  part=$(find "$blob_dir" -name '*.incomplete' -size +20k 2>/dev/null | head -1 || true)
  [ -n "$part" ] && break
  sleep 0.05
done
[ -n "$part" ] || fail "no partial download appeared"
kill -9 $downloader; wait $downloader 2>/dev/null || true
kill "${pids[0]}"
snap_glob="$cache/models--org--tiny-gemma/snapshots"
[ ! -e "$(echo "$snap_glob"/*)/model.safetensors" ] || fail "a partial file was linked"
start_server hub
export HF_ENDPOINT=$(cat "$work/hub.port")
snap=$(run --model org/tiny-gemma --cache-dir "$cache" --download-only)
grep -qE 'download model.safetensors range=bytes=[1-9][0-9]*-' "$work/hub.log" \
  || fail "no resumed download: $(cat "$work/hub.log")"
cmp "$snap/model.safetensors" "$repo/model.safetensors" || fail "resumed weights differ"
[ -z "$(find "$blob_dir" -name '*.incomplete' || true)" ] || fail "an .incomplete file was left"

# 2. The transformers layout: the plugin's files only, the same text.
[ -L "$snap/model.safetensors" ] || fail "snapshot file is not a link into blobs/"
[ "$(ls "$snap" | sort | tr '\n' ' ')" = "config.json generation_config.json model.safetensors tokenizer.json tokenizer_config.json " ] \
  || fail "snapshot holds: $(ls "$snap")"
[ -f "$cache/models--org--tiny-gemma/refs/main" ] || fail "no refs/main"
local_out=$(run --model "$repo" -p Hello --max-tokens 8 2>/dev/null)
hub_out=$(run --model org/tiny-gemma --cache-dir "$cache" -p Hello --max-tokens 8 2>"$work/err")
cat "$work/err"
[ -n "$hub_out" ] || fail "no text from the Hub model"
[ "$hub_out" = "$local_out" ] || fail "Hub model differs from the local folder: '$hub_out' vs '$local_out'"
# OXINFER_CACHE is the cache too.
[ "$(OXINFER_CACHE="$cache" run --model org/tiny-gemma --download-only)" = "$snap" ] \
  || fail "--download-only with OXINFER_CACHE"

# 3. The diffusers layout: components only, no single-file checkpoint or
# variant; the same image.
run --model "$sdrepo" -p "a red fox" --steps 2 --seed 7 -o "$work/local.png" 2>/dev/null
run --model org/tiny-sd --cache-dir "$cache" -p "a red fox" --steps 2 --seed 7 -o "$work/hub.png" \
  2>/dev/null
cmp "$work/local.png" "$work/hub.png" || fail "the Hub's SD image differs from the local one"
sd_snap=$(echo "$cache"/models--org--tiny-sd/snapshots/*)
[ ! -e "$sd_snap/v1-5-pruned.safetensors" ] || fail "fetched a single-file checkpoint"
[ ! -e "$sd_snap/unet/diffusion_pytorch_model.fp16.safetensors" ] || fail "fetched a variant"
[ -e "$sd_snap/unet/diffusion_pytorch_model.safetensors" ] || fail "no unet weights"

if err=$(run --model org/missing --cache-dir "$cache" -p x 2>&1); then fail "missing repo accepted"; fi
grep -q "org/missing: no such repository" <<<"$err" || fail "404 message: $err"

# 4. Offline, the Hub gone.
kill "${pids[1]}"; wait "${pids[1]}" 2>/dev/null || true
offline_out=$(HF_HUB_OFFLINE=1 run --model org/tiny-gemma --cache-dir "$cache" -p Hello --max-tokens 8 2>/dev/null)
[ "$offline_out" = "$local_out" ] || fail "offline run differs"
if err=$(HF_HUB_OFFLINE=1 run --model org/other --cache-dir "$cache" -p x 2>&1); then fail "offline miss accepted"; fi
grep -q "HF_HUB_OFFLINE" <<<"$err" || fail "offline message: $err"
echo PASS
