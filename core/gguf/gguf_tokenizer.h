// The tokenizer embedded in a GGUF file (tokenizer.ggml.*, written by
// llama.cpp's converter from the checkpoint's tokenizer.json) as a Hugging
// Face tokenizer.json for our tokenizer engine, and its chat template and
// special tokens as tokenizer_config.json / generation_config.json.
#ifndef OXINFER_CORE_GGUF_GGUF_TOKENIZER_H_
#define OXINFER_CORE_GGUF_GGUF_TOKENIZER_H_

#include "absl/status/status.h"
#include "core/gguf/gguf_mapping.h"

namespace oxinfer::gguf {

// Fills out->tokenizer_json, tokenizer_config_json and generation_config_json.
// tokenizer.ggml.model "gpt2" (byte-level BPE) with the pre-tokenizers
// tokenizer.ggml.pre names that we know the regex of, and "gemma4".
absl::Status MapTokenizer(GgufMapping& m, GgufCheckpoint* out);

}  // namespace oxinfer::gguf

#endif  // OXINFER_CORE_GGUF_GGUF_TOKENIZER_H_
