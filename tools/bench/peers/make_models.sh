#!/usr/bin/env bash
# Random full-size checkpoints and their GGUF conversions (llama.cpp's own converter).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
PEERS=${PEERS:-/work/peers}
LLAMA=${LLAMA:-$PEERS/llama_cpp_python-0.3.36/vendor/llama.cpp}
BIG=${BIG:-/work/bigmodels/peers}
SHARED=${SHARED:-/work/shared/data}
Q=$BIG/qwen35-0.8b; G=$BIG/gguf
mkdir -p "$G"
[ -f "$Q/model.safetensors" ] || python3 "$ROOT/tools/reference/qwen35/make_random_checkpoint.py" "$SHARED/configs/Qwen3.5-0.8B" "$Q" --fast
cp "$SHARED/tokenizers/qwen3/tokenizer.json" "$SHARED/tokenizers/qwen3/tokenizer_config.json" "$Q/"
[ -f "$G/qwen35-0.8b-bf16.gguf" ] || python3 "$LLAMA/convert_hf_to_gguf.py" "$Q" --outtype bf16 --outfile "$G/qwen35-0.8b-bf16.gguf"
[ -f "$G/qwen35-0.8b-q8_0.gguf" ] || python3 "$LLAMA/convert_hf_to_gguf.py" "$Q" --outtype q8_0 --outfile "$G/qwen35-0.8b-q8_0.gguf"
[ -f "$G/qwen35-0.8b-q4_0.gguf" ] || "$LLAMA/build/bin/llama-quantize" "$G/qwen35-0.8b-bf16.gguf" "$G/qwen35-0.8b-q4_0.gguf" Q4_0 2
[ -f "$BIG/sd-turbo/unet/diffusion_pytorch_model.safetensors" ] || \
  python3 "$ROOT/tools/reference/sd/make_full_size.py" "$SHARED/configs/sd-turbo" "$BIG/sd-turbo" --dtype f16
ls -la "$G" "$BIG/sd-turbo"/*/
