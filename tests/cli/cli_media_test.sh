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

# The same turn from a --messages file, the image given in each spelling a
# client uses: the same prompt, the same ids, the same soft tokens.
b64=$(base64 -w0 "$fixture/image0.png")
for part in '{"type": "image_url", "image_url": {"url": "data:image/png;base64,'"$b64"'"}}' \
            '{"type": "image_url", "image_url": {"url": "file://'"$fixture"'/image0.png"}}' \
            '{"type": "image", "path": "'"$fixture"'/image0.png"}' \
            '{"type": "image", "url": "'"$fixture"'/image0.png"}'; do
  printf '[{"role": "system", "content": "You are terse."}, {"role": "user", "content": [%s, {"type": "text", "text": "Describe this."}]}]' \
    "$part" >messages.json
  run --messages messages.json --print-prompt >m_prompt.txt || fail "--messages --print-prompt"
  cmp m_prompt.txt "$fixture/prompt_case0.txt" || fail "--messages prompt differs: ${part:0:60}"
  run --messages messages.json --max-tokens 4 --show-tokens --dump-soft-tokens m_soft.bin \
    >m_out.txt 2>m_err.txt || { cat m_err.txt; fail "--messages run"; }
  m_ids=$(sed -n 's/^\[prompt tokens: \(.*\)\]$/\1/p' m_err.txt | tr ' ' '\n' | sed 's/:.*//' | grep . | tr '\n' ' ')
  [ "$m_ids" = "$ids" ] || fail "--messages ids differ: ${part:0:60}"
  cmp m_soft.bin soft.bin || fail "--messages soft tokens differ: ${part:0:60}"
  cmp m_out.txt out.txt || fail "--messages reply differs: ${part:0:60}"
done
# Audio the same way: a 0.5 s 16 kHz 16-bit mono WAV, by --audio and as
# input_audio / audio parts.
{ printf 'RIFF\x24\x3e\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00'
  printf '\x00\x7d\x00\x00\x02\x00\x10\x00data\x00\x3e\x00\x00'
  printf '\x00\x10\x00\x30\x00\xf0\x00\xd0%.0s' $(seq 1984); } >clip.wav
[ "$(stat -c %s clip.wav)" = 15916 ] || fail "clip.wav size"
run --audio clip.wav -p "Listen." --no-system --max-tokens 4 --show-tokens --dump-soft-tokens a_soft.bin \
  >a_out.txt 2>a_err.txt || { cat a_err.txt; fail "--audio run"; }
a_ids=$(sed -n 's/^\[prompt tokens: \(.*\)\]$/\1/p' a_err.txt | tr ' ' '\n' | sed 's/:.*//' | grep . | tr '\n' ' ')
[ -s a_soft.bin ] || fail "no audio soft tokens"
for part in '{"type": "input_audio", "input_audio": {"data": "'"$(base64 -w0 clip.wav)"'", "format": "wav"}}' \
            '{"type": "audio", "path": "clip.wav"}'; do
  printf '[{"role": "user", "content": [%s, {"type": "text", "text": "Listen."}]}]' "$part" >a.json
  run --messages a.json --max-tokens 4 --show-tokens --dump-soft-tokens m_soft.bin >m_out.txt \
    2>m_err.txt || { cat m_err.txt; fail "--messages audio run"; }
  m_ids=$(sed -n 's/^\[prompt tokens: \(.*\)\]$/\1/p' m_err.txt | tr ' ' '\n' | sed 's/:.*//' | grep . | tr '\n' ' ')
  [ "$m_ids" = "$a_ids" ] || fail "--messages audio ids differ: ${part:0:40}"
  cmp m_soft.bin a_soft.bin || fail "--messages audio soft tokens differ: ${part:0:40}"
  cmp m_out.txt a_out.txt || fail "--messages audio reply differs: ${part:0:40}"
done

# Without the weights (--print-prompt on a folder of text files only).
mkdir -p textonly
cp "$fixture"/{config.json,tokenizer.json,tokenizer_config.json,chat_template.jinja,processor_config.json} textonly/
"$oxinfer" --plugin-dir="$plugin_dirs" --model textonly --messages messages.json --print-prompt \
  >t_prompt.txt || fail "--print-prompt without weights"
cmp t_prompt.txt "$fixture/prompt_case0.txt" || fail "prompt without weights differs"
# Refusals name the file, the entry and what is wrong.
bad() {
  printf '[{"role": "user", "content": [%s]}]' "$1" >bad.json
  if err=$(run --messages bad.json -p x --max-tokens 1 2>&1); then fail "accepted: $1"; fi
  grep -q "bad.json: message 0, content part 0: .*$2" <<<"$err" || fail "message for $1: $err"
}
bad '{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}' 'not fetched'
bad '{"type": "image", "path": "nothere.png"}' 'nothere.png'
bad '{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}}' 'not valid base64'
bad '{"type": "image_url", "image_url": {"url": "data:image/png,abc"}}' 'only base64'
bad '{"type": "input_audio", "input_audio": {"format": "wav"}}' 'needs "input_audio"'
bad '{"type": "image_url", "image_url": {"url": "data:image/png;base64,'"$(base64 -w0 "$fixture/config.json")"'"}}' ''
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
