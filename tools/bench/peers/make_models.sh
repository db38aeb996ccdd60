#!/usr/bin/env bash
# Random full-size checkpoints and their GGUF conversions (llama.cpp's own converter).
# Every model the harness runs; skips what exists. GEMMA=1 adds gemma-4-E2B (BF16, Q8_0, Q4_0 GGUFs).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PY=$("$HERE/setup_venv.sh")   # the harness's venv (torch, transformers, numpy for the converter)
PEERS=${PEERS:-/work/peers}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
BIG=${BIG:-/work/bigmodels/peers}
SHARED=${SHARED:-/work/shared/data}
Q=$BIG/qwen35-0.8b; G=$BIG/gguf
mkdir -p "$G"
[ -f "$Q/model.safetensors" ] || "$PY" "$ROOT/tools/reference/qwen35/make_random_checkpoint.py" "$SHARED/configs/Qwen3.5-0.8B" "$Q" --fast
cp "$SHARED/tokenizers/qwen3/tokenizer.json" "$SHARED/tokenizers/qwen3/tokenizer_config.json" "$Q/"
[ -f "$G/qwen35-0.8b-bf16.gguf" ] || "$PY" "$LLAMA/convert_hf_to_gguf.py" "$Q" --outtype bf16 --outfile "$G/qwen35-0.8b-bf16.gguf"
[ -f "$G/qwen35-0.8b-q8_0.gguf" ] || "$PY" "$LLAMA/convert_hf_to_gguf.py" "$Q" --outtype q8_0 --outfile "$G/qwen35-0.8b-q8_0.gguf"
[ -f "$G/qwen35-0.8b-q4_0.gguf" ] || "$LLAMA/build/bin/llama-quantize" "$G/qwen35-0.8b-bf16.gguf" "$G/qwen35-0.8b-q4_0.gguf" Q4_0 2
if [ "${SD:-1}" = 1 ]; then   # SD=0: no SD-Turbo folder
  [ -f "$BIG/sd-turbo/unet/diffusion_pytorch_model.safetensors" ] || \
    "$PY" "$ROOT/tools/reference/sd/make_full_size.py" "$SHARED/configs/sd-turbo" "$BIG/sd-turbo" --dtype f16
  ls -la "$BIG/sd-turbo"/*/
fi
ls -la "$G"

# gemma-4-E2B (GEMMA=1): text-only random checkpoint, the Gemma 3 tokenizer trimmed to the
# checkpoint's 262144 rows (llama.cpp sizes token_embd from the tokenizer), GGUF BF16.
if [ "${GEMMA:-0}" = 1 ]; then
  E=$BIG/gemma4-e2b
  [ -f "$E/model.safetensors" ] || "$PY" "$ROOT/tools/reference/gemma4/make_random_checkpoint.py" \
    "$SHARED/configs/gemma-4-E2B-it" "$E" --max-shard-gb 0 --text-only
  cp "$SHARED/tokenizers/gemma3/tokenizer.json" "$SHARED/tokenizers/gemma3/tokenizer_config.json" "$E/"
  "$PY" - "$E" <<'PY'
import json, sys
d = sys.argv[1]
t = json.load(open(f"{d}/tokenizer.json"))
t["added_tokens"] = [a for a in t["added_tokens"] if a["id"] < 262144]
t["model"]["vocab"] = {k: v for k, v in t["model"]["vocab"].items() if v < 262144}
json.dump(t, open(f"{d}/tokenizer.json", "w"))
c = json.load(open(f"{d}/tokenizer_config.json"))
for k in ("image_token", "boi_token", "eoi_token", "processor_class"):
    c.pop(k, None)
c["extra_special_tokens"] = {}
c["added_tokens_decoder"] = {k: v for k, v in c.get("added_tokens_decoder", {}).items() if int(k) < 262144}
json.dump(c, open(f"{d}/tokenizer_config.json", "w"))
PY
  [ -f "$G/gemma4-e2b-bf16.gguf" ] || "$PY" "$LLAMA/convert_hf_to_gguf.py" "$E" --outtype bf16 --outfile "$G/gemma4-e2b-bf16.gguf"
  for q in Q8_0 Q4_0; do
    l=$(echo $q | tr A-Z a-z)
    [ -f "$G/gemma4-e2b-$l.gguf" ] || "$LLAMA/build/bin/llama-quantize" "$G/gemma4-e2b-bf16.gguf" "$G/gemma4-e2b-$l.gguf" $q 2
  done
fi
