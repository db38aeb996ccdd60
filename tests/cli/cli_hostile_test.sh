#!/usr/bin/env bash
# The oxinfer CLI against hostile input (docs/limits.md): invalid UTF-8 in
# prompts, files that are not regular files, endless stdin, bad flag values.
# Each case must end with a clear message and a non-zero exit: never a crash
# (signal), a hang (the `timeout` below) or unbounded memory (ulimit -v).
set -uo pipefail
oxinfer="$1"; fixture="$2"; tokenizer_dir="$3"; shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
oxinfer=$(readlink -f "$oxinfer")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/hostile.XXXX")
fail() { echo "FAIL: $*"; exit 1; }

# A fresh copy of the model folder.
fresh() {
  rm -rf "$work/model"; mkdir "$work/model"
  cp "$fixture"/config.json "$fixture"/generation_config.json "$fixture"/model.safetensors \
     "$tokenizer_dir"/tokenizer.json "$tokenizer_dir"/tokenizer_config.json "$work/model/"
}

# expect_refusal NAME PATTERN ARGS... (stdin from $STDIN, default /dev/null):
# exit 1 or 2, within 60 s, in 2 GB of address space, stderr matching PATTERN.
expect_refusal() {
  local name="$1" pattern="$2"; shift 2
  local rc
  (ulimit -v 4000000; timeout 60 "$oxinfer" --plugin-dir="$plugin_dirs" "$@" \
     < "${STDIN:-/dev/null}" > "$work/out.txt" 2> "$work/err.txt")
  rc=$?
  [ "$rc" -ne 124 ] || fail "$name: hung (killed after 60 s)"
  [ "$rc" -lt 128 ] || fail "$name: died of signal $((rc - 128)): $(tail -3 "$work/err.txt")"
  [ "$rc" -ne 0 ] || fail "$name: accepted (exit 0)"
  grep -qE "$pattern" "$work/err.txt" || fail "$name: message '$(cat "$work/err.txt")' lacks /$pattern/"
  echo "ok: $name: $(tail -1 "$work/err.txt")"
}

fresh
m="$work/model"
# Invalid UTF-8 in user text.
expect_refusal "-p with an invalid byte" "UTF-8" --model="$m" -p $'Hello \xff'
expect_refusal "--system with an invalid byte" "UTF-8" --model="$m" -p Hi --system $'\xc3('
printf 'Hello \xfe\n' > "$work/chat.txt"
STDIN="$work/chat.txt" expect_refusal "--chat line with an invalid byte" "UTF-8" --model="$m" --chat
expect_refusal "--raw with an invalid byte" "UTF-8" --model="$m" --raw -p $'\xed\xa0\x80'

# Endless stdin.
STDIN=/dev/zero expect_refusal "--chat < /dev/zero" "longer than the limit" --model="$m" --chat

# Files that are not regular files: refused before they are opened for reading.
for f in config.json tokenizer.json tokenizer_config.json model.safetensors; do
  fresh; rm "$m/$f"; mkfifo "$m/$f"
  expect_refusal "FIFO $f" "$f.*FIFO" --model="$m" -p Hi
  fresh; rm "$m/$f"; ln -s /dev/zero "$m/$f"
  expect_refusal "$f -> /dev/zero" "$f.*character device" --model="$m" -p Hi
done
fresh; mkfifo "$m/chat_template.jinja"
expect_refusal "FIFO chat_template.jinja" "chat_template.jinja.*FIFO" --model="$m" -p Hi
fresh; ln -s /dev/zero "$m/chat_template.jinja"
expect_refusal "chat_template.jinja -> /dev/zero" "chat_template.jinja.*character device" \
  --model="$m" -p Hi

# A FIFO among the plugins is reported as rejected, the others still load.
mkdir "$work/fifo_plugins"; mkfifo "$work/fifo_plugins/liboxinfer_fifo.so"
out=$(timeout 60 "$oxinfer" --plugin-dir="$work/fifo_plugins:$plugin_dirs" --plugins 2>&1)
rc=$?
[ "$rc" -eq 0 ] || fail "--plugins with a FIFO plugin: exit $rc: $out"
grep -q "liboxinfer_fifo.so.*FIFO" <<<"$out" || fail "FIFO plugin not reported: $out"
grep -q "gemma4" <<<"$out" || fail "real plugins not loaded next to the FIFO: $out"
echo "ok: FIFO plugin rejected"

# Flags: negative values are errors, not defaults; bounds; a missing folder.
fresh
expect_refusal "--max-tokens -1" "max-tokens=-1" --model="$m" -p Hi --max-tokens=-1
expect_refusal "--threads 100000" "threads=100000" --model="$m" -p Hi --threads=100000
expect_refusal "--threads -3" "threads=-3" --model="$m" -p Hi --threads=-3
expect_refusal "--top-k -1" "top-k=-1" --model="$m" -p Hi --top-k=-1
expect_refusal "--context -5" "context=-5" --model="$m" -p Hi --context=-5
expect_refusal "--prefill-chunk -1" "prefill-chunk=-1" --model="$m" -p Hi --prefill-chunk=-1
expect_refusal "--steps -1" "steps=-1" --model="$m" -p Hi --steps=-1
expect_refusal "--temp nan" "temp=nan" --model="$m" -p Hi --temp=nan
expect_refusal "--guidance inf" "guidance=inf" --model="$m" -p Hi --guidance=inf
expect_refusal "--plugin-dir missing" "plugin-dir.*/nonexistent/plugins" \
  --plugin-dir=/nonexistent/plugins --model="$m" -p Hi
# Output paths are checked before the work starts.
expect_refusal "--dump-logits into a missing folder" "dump-logits.*/nonexistent/x.bin" \
  --model="$m" --raw -p Hi --dump-logits=/nonexistent/x.bin
echo PASS
