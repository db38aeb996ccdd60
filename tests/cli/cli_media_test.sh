#!/usr/bin/env bash
# The oxinfer CLI with images on the tiny Gemma 4 vision fixture
# (tests/models/gemma4/testdata/media/vision_tiny, prompt_case0.* from
# tools/reference/gemma4_media/make_prompt_fixtures.py): --print-prompt as
# apply_chat_template(tokenize=False), --show-tokens as the processor's ids,
# --dump-soft-tokens, /image in --chat, and the refusals; with an audio clip
# (clip0.wav, prompt_audio.*) beside an image, /audio in --chat.
set -euo pipefail
oxinfer=$(readlink -f "$1"); fixture=$(readlink -f "$2"); shift 2
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
cd "${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
run() { "$oxinfer" --plugin-dir="$plugin_dirs" --device cpu --model "$fixture" "$@"; }

# The template's text: one placeholder per image, before expansion.
run --system "You are terse." --image "$fixture/image0.png" -p "Describe this." --print-prompt \
  >prompt.txt
cmp prompt.txt "$fixture/prompt_case0.txt" || fail "--print-prompt differs from the processor's"

# The expanded ids, the soft tokens, a reply.
run --system "You are terse." --image "$fixture/image0.png" -p "Describe this." --max-tokens 4 \
  --show-tokens --dump-soft-tokens soft.bin >out.txt 2>err.txt || { cat err.txt; fail "run"; }
ids=$(sed -n 's/^\[prompt tokens: \(.*\)\]$/\1/p' err.txt | tr ' ' '\n' | sed 's/:.*//' | grep . | tr '\n' ' ')
[ "$ids" = "$(tr -d '\n' <"$fixture/prompt_case0.ids") " ] || fail "ids differ: $ids"
n_soft=$(tr ' ' '\n' <"$fixture/prompt_case0.ids" | grep -cx 260)
[ "$(stat -c %s soft.bin)" = "$((n_soft * 64 * 4))" ] || fail "soft.bin size $(stat -c %s soft.bin)"
grep -q "$n_soft soft tokens of 64 floats" err.txt || fail "no soft-token line"

# Two images and a budget; a later --chat turn takes an image with /image.
run --image "$fixture/image0.png" --image "$fixture/image1.png" --max-soft-tokens 140 -p "Same?" \
  --print-prompt >two.txt
[ "$(grep -o '<|image|>' two.txt | wc -l)" = 2 ] || fail "two images, not two placeholders"
printf 'Hello\n/image %s\nAnd this?\n' "$fixture/image1.png" |
  run --chat --max-tokens 2 --show-tokens >chat.txt 2>chat_err.txt || { cat chat_err.txt; fail "chat"; }
grep -q 'image attached to the next turn' chat_err.txt || fail "/image not acknowledged"
[ "$(grep -c '^\[prompt tokens:.*261:<|image>' chat_err.txt)" = 1 ] || fail "the image is not in turn 2"

# An image and a clip: the processor's text and ids, soft tokens of both.
run --no-system --image "$fixture/image0.png" --audio "$fixture/clip0.wav" -p "Describe both." --print-prompt \
  >aprompt.txt
cmp aprompt.txt "$fixture/prompt_audio.txt" || fail "--print-prompt with audio differs"
run --no-system --image "$fixture/image0.png" --audio "$fixture/clip0.wav" -p "Describe both." --max-tokens 4 \
  --show-tokens --dump-soft-tokens asoft.bin >aout.txt 2>aerr.txt || { cat aerr.txt; fail "audio run"; }
ids=$(sed -n 's/^\[prompt tokens: \(.*\)\]$/\1/p' aerr.txt | tr ' ' '\n' | sed 's/:.*//' | grep . | tr '\n' ' ')
[ "$ids" = "$(tr -d '\n' <"$fixture/prompt_audio.ids") " ] || fail "audio ids differ: $ids"
n_soft=$(tr ' ' '\n' <"$fixture/prompt_audio.ids" | grep -cx '260\|263')
[ "$(stat -c %s asoft.bin)" = "$((n_soft * 64 * 4))" ] || fail "asoft.bin size $(stat -c %s asoft.bin)"
[ -s aout.txt ] || fail "no reply with audio"
run --audio "$fixture/clip0.wav" -p "Describe" --max-tokens 2 >/dev/null 2>aerr2.txt ||
  { cat aerr2.txt; fail "audio alone"; }
printf 'Hello\n/audio %s\nAnd this?\n' "$fixture/clip0.wav" |
  run --chat --max-tokens 2 --show-tokens >achat.txt 2>achat_err.txt || { cat achat_err.txt; fail "chat audio"; }
[ "$(grep -c '^\[prompt tokens:.*264:<|audio>' achat_err.txt)" = 1 ] || fail "the clip is not in turn 2"

# Refusals name the flag or the file.
if err=$(run --image "$fixture/image0.png" -p x --max-soft-tokens 100 2>&1); then fail "budget 100"; fi
grep -q -- '--max-soft-tokens=100' <<<"$err" || fail "budget message: $err"
if err=$(run --image missing.png -p x 2>&1); then fail "missing file accepted"; fi
grep -q 'missing.png' <<<"$err" || fail "missing-file message: $err"
if err=$(run --image "$fixture/config.json" -p x 2>&1); then fail "a JSON file as image"; fi
grep -q 'config.json' <<<"$err" || fail "not-an-image message: $err"
if err=$(run --audio missing.wav -p x 2>&1); then fail "missing audio accepted"; fi
grep -q 'missing.wav' <<<"$err" || fail "missing-audio message: $err"
if err=$(run --audio "$fixture/config.json" -p x 2>&1); then fail "a JSON file as audio"; fi
grep -q 'config.json' <<<"$err" || fail "not-audio message: $err"
head -c 30 "$fixture/clip0.wav" >cut.wav
if err=$(run --audio cut.wav -p x 2>&1); then fail "a truncated WAV accepted"; fi
grep -q 'cut.wav' <<<"$err" || fail "truncated-WAV message: $err"
if err=$(run --image "$fixture/image0.png" -p x --raw 2>&1); then fail "--raw with --image"; fi
grep -q 'not --raw' <<<"$err" || fail "--raw message: $err"
if err=$(printf '/image nothere.png\nHi\n' | run --chat --max-tokens 1 2>&1); then :; fi
grep -q 'nothere.png' <<<"$err" || fail "/image of a missing file not reported: $err"
echo PASS
