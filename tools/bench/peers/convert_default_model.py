#!/usr/bin/env python3
"""llama.cpp's own converter on the embedded default model (models/default), for llama-server.

The converter recognises a BPE pre-tokenizer by hashing what a known vocabulary makes of a
test text; the default model's 4,096-id vocabulary is the project's own, so no hash matches.
Its pre-tokenizer is Qwen 3.5's (the same Split regex and ByteLevel, docs/default_model.md),
so the converter is told "qwen35" and runs otherwise unchanged.
  convert_default_model.py LLAMA_DIR MODEL_DIR OUT.gguf [converter flags...]
"""
import runpy
import sys

llama, model, out, *extra = sys.argv[1:]
sys.path.insert(0, llama)
from conversion import base  # noqa: E402  (llama.cpp's package, from its tree)

base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "qwen35"
# No MTP head in the default model; bf16 as it is stored.
sys.argv = ["convert_hf_to_gguf.py", model, "--no-mtp", "--outtype", "bf16", "--outfile", out, *extra]
runpy.run_path(f"{llama}/convert_hf_to_gguf.py", run_name="__main__")
