#!/usr/bin/env python3
"""Reference logits for prompts with soft tokens (embedding rows), on the saved fixtures.

For each fixture folder made by make_fixtures.py (a Gemma4ForConditionalGeneration
checkpoint), writes reference_embeddings.safetensors:

  tokens      int32 [T]     the prompt; image_token_id at the soft-token positions
  mask        uint8 [T]     1 where a soft token (an embedding row) comes in
  embeddings  f32   [T, H]  the soft-token rows (zero elsewhere)
  logits      f32   [T, V]  transformers' float32 logits of every position

The reference is transformers' own multimodal merge: Gemma4Model.forward with
input_ids holding image_token_id and precomputed image features
(mm_encoder_outputs), which replaces those ids by pad_token_id for the embedding
lookup and the per-layer inputs (PLE), then scatters the features into
inputs_embeds. Without mm_token_type_ids the text attention stays causal.

Usage: python3 tools/reference/gemma4/make_embedding_fixtures.py [--dir tests/models/gemma4/testdata]
Deterministic: fixed seeds, CPU, single thread.
"""

import argparse
import os
import types

import numpy as np
import torch
from safetensors.torch import save_file
from transformers import Gemma4ForConditionalGeneration

FIXTURES = ["e2b_like", "keqv_sharded", "dense_31b_like"]


@torch.no_grad()
def make(folder, seed):
    model = Gemma4ForConditionalGeneration.from_pretrained(
        folder, dtype=torch.float32, attn_implementation="eager").eval()
    cfg = model.config
    tc = cfg.get_text_config()
    g = np.random.RandomState(seed)
    window = tc.sliding_window
    length = 2 * window + 7
    tokens = g.randint(3, tc.vocab_size, size=length)
    tokens[0] = 2  # <bos>
    # Two images: a short block early, a longer one straddling the first window.
    mask = np.zeros(length, dtype=np.uint8)
    mask[2:5] = 1
    mask[window - 2:window + 4] = 1
    tokens = np.where(mask == 1, cfg.image_token_id, tokens)
    n_soft = int(mask.sum())
    feats = torch.from_numpy(g.randn(n_soft, tc.hidden_size).astype(np.float32))
    out = model(
        input_ids=torch.tensor([tokens.tolist()]),
        mm_encoder_outputs={"image": types.SimpleNamespace(pooler_output=[feats])},
        use_cache=False,
    )
    logits = out.logits[0].float().contiguous()
    emb = torch.zeros(length, tc.hidden_size)
    emb[torch.from_numpy(mask.astype(bool))] = feats
    ref = {
        "tokens": torch.tensor(tokens.tolist(), dtype=torch.int32),
        "mask": torch.from_numpy(mask),
        "embeddings": emb.contiguous(),
        "logits": logits,
    }
    path = os.path.join(folder, "reference_embeddings.safetensors")
    save_file(ref, path, metadata={"format": "oxinfer-reference"})
    os.chmod(path, 0o644)
    print(f"{folder}: {length} positions, {n_soft} soft tokens, |logits| max "
          f"{float(logits.abs().max()):.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="tests/models/gemma4/testdata")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    for i, name in enumerate(FIXTURES):
        make(os.path.join(args.dir, name), 2024 + i)


if __name__ == "__main__":
    main()
