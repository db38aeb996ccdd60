#!/usr/bin/env bash
# oxinfer --decode: what a model receives from an image (PNG of the RGB
# pixels) and from audio (16 kHz mono float32 WAV), the printed format, size
# or duration and codec; --plugins lists each codec's formats.
set -euo pipefail
oxinfer=$(readlink -f "$1"); data=$(readlink -f "$2"); shift 2
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
cd "${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
run() { "$oxinfer" --plugin-dir="$plugin_dirs" "$@"; }
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }

run --plugins >plugins.txt
grep -q 'formats: jpeg,jpg (decodes images)' plugins.txt || fail "--plugins: $(cat plugins.txt)"
grep -q 'formats: png (decodes images, encodes images)' plugins.txt || fail "--plugins png"

# An EXIF-rotated JPEG: 23x17 stored, 17x23 as the model sees it.
out=$(run --decode "$data/images/jpeg_exif_orientation_6.jpg" -o rotated.png)
echo "$out"
grep -q 'jpeg baseline ycbcr 4:2:0, 17x23 (codec jpeg)' <<<"$out" || fail "image line: $out"
[ "$(png_size rotated.png)" = "17x23" ] || fail "size $(png_size rotated.png)"
# The PNG written holds exactly those pixels: decoding it again gives the same file.
run --decode rotated.png -o again.png >/dev/null
cmp -s rotated.png again.png || fail "PNG round trip differs"

# Audio at 16 kHz mono: the samples are the reference's, byte for byte.
out=$(run --decode "$data/audio/wav_pcm16_mono_16k.wav" -o a.wav)
echo "$out"
grep -q 'wav (Signed 16 bit PCM), 16000 Hz, 1 channel, 0.100 s (codec sndfile)' <<<"$out" ||
  fail "audio line: $out"
[ "$(head -c 4 a.wav)" = "RIFF" ] || fail "not RIFF"
[ "$(od -An -tu2 -j20 -N2 a.wav | tr -d ' ')" = "3" ] || fail "not IEEE float"
[ "$(od -An -tu4 -j24 -N4 a.wav | tr -d ' ')" = "16000" ] || fail "rate"
tail -c +59 a.wav | cmp -s - "$data/audio/wav_pcm16_mono_16k.f32" || fail "samples differ"
out=$(run --decode "$data/audio/aac_stereo_44k.m4a" -o b.wav)
grep -q 'mov,mp4,m4a,3gp,3g2,mj2 / aac, 44100 Hz, 2 channels' <<<"$out" || fail "m4a line: $out"

# Wrong kinds and unknown bytes are refused, naming the file.
if err=$(run --decode "$data/images/png_rgb8.png" -o x.wav 2>&1); then fail "image as audio"; fi
grep -q "png_rgb8.png: not an audio file: codec 'png' recognises it as an image" <<<"$err" ||
  fail "kind message: $err"
printf 'hello, not media' >junk.bin
if err=$(run --decode junk.bin -o x.png 2>&1); then fail "junk accepted"; fi
grep -q 'junk.bin: no codec plugin recognises this as an image file' <<<"$err" || fail "$err"
echo PASS
