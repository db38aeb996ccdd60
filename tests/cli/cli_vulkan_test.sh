#!/usr/bin/env bash
# The oxinfer CLI with the Vulkan backend (Mesa's lavapipe in CI): --devices
# lists every Vulkan device, --device vulkan runs the tiny Gemma 4 fixture
# with the same greedy text as the CPU alone, --device vulkan:N checks N, and
# --profile shows ops that ran on Vulkan. Where the plugin declines (no
# loader, no device), --plugins must say why, and the rest is skipped.
set -euo pipefail
oxinfer="$1"; fixture="$2"; tokenizer_dir="$3"; shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done

model=$(mktemp -d "${TEST_TMPDIR:-/tmp}/model.XXXX")
cp "$fixture"/config.json "$fixture"/generation_config.json "$fixture"/model.safetensors "$model/"
cp "$tokenizer_dir"/tokenizer.json "$tokenizer_dir"/tokenizer_config.json "$model/"
oxinfer=$(readlink -f "$oxinfer")
cd "$model"
# --no-system: the default system prompt holds the local time to the minute,
# so runs on either side of a minute would get different prompts (and, with
# this tiny random model, different greedy text).
run() { "$oxinfer" --plugin-dir="$plugin_dirs" --model="$model" --no-system "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

run --plugins > plugins.txt
cat plugins.txt
grep -q '^backend  *vulkan ' plugins.txt || fail "--plugins does not list vulkan"
if grep -A1 '^backend  *vulkan ' plugins.txt | grep -q declined; then
  grep -A1 '^backend  *vulkan ' plugins.txt | grep -qE 'no Vulkan (loader|device)' \
    || fail "declined without the reason"
  echo "skipped: the Vulkan plugin declines here"
  exit 0
fi

run --devices --device vulkan > devices.txt
cat devices.txt
grep -qE '^ +vulkan:0  .*subgroup [0-9]+' devices.txt || fail "--devices lacks vulkan:0 with its subgroup size"
grep -qE 'vulkan:0 .*\(chosen\)' devices.txt || fail "--device vulkan did not choose vulkan:0"

# --device auto passes over a software device (lavapipe) and says so.
if ! grep -E '^ +vulkan:[0-9]+ ' devices.txt | grep -vq llvmpipe; then
  run --devices > auto.txt
  grep -q 'passed over vulkan (llvmpipe' auto.txt || { cat auto.txt; fail "--device auto did not say it passed over lavapipe"; }
fi

cpu=$(run -p "Hello" --max-tokens 8 --device cpu-avx2 2>/dev/null)
vk=$(run -p "Hello" --max-tokens 8 --device vulkan --profile 2>err.txt)
cat err.txt
[ -n "$vk" ] || fail "no text on vulkan"
[ "$cpu" = "$vk" ] || fail "greedy text differs: cpu '$cpu', vulkan '$vk'"
grep -qE '^matmul +vulkan' err.txt || fail "--profile shows no matmul on vulkan"
vk0=$(run -p "Hello" --max-tokens 8 --device vulkan:0 2>/dev/null)
[ "$vk0" = "$vk" ] || fail "vulkan:0 differs from vulkan: '$vk0' vs '$vk'"

if run -p "Hello" --max-tokens 1 --device vulkan:99 >/dev/null 2>err.txt; then fail "vulkan:99 accepted"; fi
grep -q "backend 'vulkan' has" err.txt || { cat err.txt; fail "vulkan:99 without the device count"; }
echo PASS
