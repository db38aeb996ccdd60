#!/usr/bin/env bash
# The oxinfer CLI on the tiny SD fixtures: text to image, written as PNG
# through the codec plugin; seeded runs are reproducible.
set -euo pipefail
oxinfer=$(readlink -f "$1"); sd1=$(readlink -f "$2"); sd2=$(readlink -f "$3"); shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
cd "${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
run() { "$oxinfer" --plugin-dir="$plugin_dirs" "$@"; }

# Width and height from the PNG's IHDR chunk.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }

run --model "$sd1" -p "a red fox in the snow" --negative "blurry" --steps 3 --seed 7 -o a.png 2>err.txt
cat err.txt
[ "$(head -c 8 a.png | od -An -tx1 | tr -d ' ')" = "89504e470d0a1a0a" ] || fail "not a PNG"
[ "$(png_size a.png)" = "64x64" ] || fail "size $(png_size a.png)"
grep -q 'image in' err.txt || fail "no timing line"
run --model "$sd1" -p "a red fox in the snow" --negative "blurry" --steps 3 --seed 7 -o b.png 2>/dev/null
cmp -s a.png b.png || fail "same seed, different image"
run --model "$sd1" -p "a red fox in the snow" --negative "blurry" --steps 3 --seed 8 -o c.png 2>/dev/null
cmp -s a.png c.png && fail "different seed, same image"

run --model "$sd2" -p "a lighthouse" --sampler euler --steps 2 --guidance 3 -o d.png 2>/dev/null
[ "$(png_size d.png)" = "64x64" ] || fail "sd2 size"

# Any multiple of 8, as diffusers takes them (odd latent sides: 9x5).
run --model "$sd1" -p "a lighthouse" --steps 2 --size 72x40 -o f.png 2>/dev/null || fail "--size 72x40"
[ "$(png_size f.png)" = "72x40" ] || fail "72x40 size $(png_size f.png)"
if err=$(run --model "$sd1" -p "x" --size 60x64 -o e.png 2>&1); then fail "60x64 accepted"; fi
grep -q 'must be multiples of 8 up to 2048' <<<"$err" || fail "60x64 message: $err"
if err=$(run --model "$sd1" -p "x" --size 12by12 -o e.png 2>&1); then fail "bad --size accepted"; fi
grep -q 'expected WIDTHxHEIGHT' <<<"$err" || fail "bad --size message: $err"
if err=$(run --model "$sd1" -p "x" -o e.bmpx 2>&1); then fail "unknown format accepted"; fi
grep -q 'no codec plugin writes .bmpx' <<<"$err" || fail "format message: $err"
echo PASS
