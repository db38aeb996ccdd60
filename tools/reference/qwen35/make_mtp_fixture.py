#!/usr/bin/env python3
"""Builds tests/models/qwen35/testdata/tiny_mtp: tiny_tied with a complete MTP head,
and the head's drafts as reference.

transformers does not run Qwen 3.5's multi-token-prediction head, so the
reference follows vLLM's Qwen3_5MultiTokenPredictor.forward
(vllm/model_executor/models/qwen3_5_mtp.py), built from transformers' own
Qwen 3.5 modules in float32 on the CPU:

  x  = fc(cat([pre_fc_norm_embedding(embed(token[p + 1])),
               pre_fc_norm_hidden(h[p])], -1))      # Qwen3_5RMSNorm (1 + w), nn.Linear
  x  = Qwen3_5DecoderLayer (full_attention) at position p, with its own cache
  h' = norm(x); logits = lm_head(h')                # the main model's (tied) head

h[p] is Qwen3_5TextModel's last_hidden_state (after the final norm), as vLLM's
Qwen3_5Model hands to its drafter. The first draft reads every prompt position
(each with the token after it; the last with the main model's greedy next
token); each further draft reads the head's own h' and its previous draft.

The folder holds tiny_tied's config.json and weights (its partial mtp.* tensors
replaced by a full random head: mtp.fc, the three norms, mtp.layers.0), the
tokenizer of the gguf fixtures, and mtp_reference.safetensors:
  p{i}.tokens        I32 [n]      the prompt
  p{i}.next          I32 [1]      the main model's greedy token after it
  p{i}.drafts        I32 [K]      the head's greedy drafts
  p{i}.draft_logits  F32 [K, V]   the head's logits at each draft
  p{i}.draft_hidden  F32 [K, H]   h' at each draft

Usage: /work/venvs/spec/bin/python tools/reference/qwen35/make_mtp_fixture.py
(torch 2.15.0, transformers 5.24.0, safetensors 0.8.0: requirements.txt).
"""
import copy
import json
import os
import shutil

import torch
from transformers import DynamicCache
from safetensors.torch import load_file, save_file
from transformers.models.qwen3_5.configuration_qwen3_5 import Qwen3_5TextConfig
from transformers.models.qwen3_5.modeling_qwen3_5 import (
    Qwen3_5DecoderLayer,
    Qwen3_5ForCausalLM,
    Qwen3_5RMSNorm,
    Qwen3_5TextRotaryEmbedding,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TESTDATA = os.path.join(ROOT, "tests", "models", "qwen35", "testdata")
SOURCE = os.path.join(TESTDATA, "tiny_tied")
OUT = os.path.join(TESTDATA, "tiny_mtp")
K = 5  # drafts per prompt


def bf16_round(t):
    return t.to(torch.bfloat16).to(torch.float32)


class MtpReference(torch.nn.Module):
    """vLLM's Qwen3_5MultiTokenPredictor (one layer) from transformers' modules."""

    def __init__(self, tc):
        super().__init__()
        h = tc.hidden_size
        cfg = copy.deepcopy(tc)
        cfg.layer_types = ["full_attention"]
        cfg.num_hidden_layers = 1
        cfg._attn_implementation = "eager"
        self.fc = torch.nn.Linear(2 * h, h, bias=False)
        self.pre_fc_norm_embedding = Qwen3_5RMSNorm(h, eps=tc.rms_norm_eps)
        self.pre_fc_norm_hidden = Qwen3_5RMSNorm(h, eps=tc.rms_norm_eps)
        self.norm = Qwen3_5RMSNorm(h, eps=tc.rms_norm_eps)
        self.layers = torch.nn.ModuleList([Qwen3_5DecoderLayer(cfg, 0)])
        self.rotary = Qwen3_5TextRotaryEmbedding(cfg)

    def forward(self, embeds, hidden, pos0, cache):
        """embeds, hidden: [1, q, H] at positions pos0 .. pos0 + q - 1."""
        q = embeds.shape[1]
        x = self.fc(torch.cat([self.pre_fc_norm_embedding(embeds), self.pre_fc_norm_hidden(hidden)], -1))
        positions = torch.arange(pos0, pos0 + q).view(1, 1, q)
        cos, sin = self.rotary(x, positions)
        past = cache.get_seq_length(0)
        assert past == pos0, (past, pos0)
        kv = past + q
        mask = torch.full((1, 1, q, kv), float("-inf"))
        for i in range(q):
            mask[0, 0, i, : past + i + 1] = 0.0
        x = self.layers[0](x, position_embeddings=(cos, sin), attention_mask=mask, cache=cache)
        return self.norm(x)


def random_head(tc, gen):
    """Every mtp.* tensor random (bf16-rounded), shaped as the published ones."""
    h, hd = tc.hidden_size, tc.head_dim
    nh, nkv, inter = tc.num_attention_heads, tc.num_key_value_heads, tc.intermediate_size

    def mat(rows, cols, gain=1.0):
        return bf16_round(gain * torch.randn((rows, cols), generator=gen) / cols ** 0.5)

    def norm(n):
        return bf16_round(0.3 * torch.randn((n,), generator=gen))

    p = "mtp.layers.0."
    return {
        "mtp.fc.weight": mat(h, 2 * h),
        "mtp.pre_fc_norm_embedding.weight": norm(h),
        "mtp.pre_fc_norm_hidden.weight": norm(h),
        "mtp.norm.weight": bf16_round(-0.5 + 0.15 * torch.randn((h,), generator=gen)),
        p + "input_layernorm.weight": norm(h),
        p + "post_attention_layernorm.weight": norm(h),
        p + "self_attn.q_proj.weight": mat(2 * nh * hd, h),
        p + "self_attn.k_proj.weight": mat(nkv * hd, h),
        p + "self_attn.v_proj.weight": mat(nkv * hd, h),
        p + "self_attn.o_proj.weight": mat(h, nh * hd, 0.5),
        p + "self_attn.q_norm.weight": norm(hd),
        p + "self_attn.k_norm.weight": norm(hd),
        p + "mlp.gate_proj.weight": mat(inter, h),
        p + "mlp.up_proj.weight": mat(inter, h),
        p + "mlp.down_proj.weight": mat(h, inter, 0.5),
    }


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(35)
    config = json.load(open(os.path.join(SOURCE, "config.json")))
    tc = Qwen3_5TextConfig(**config["text_config"])
    tc._attn_implementation = "eager"
    weights = load_file(os.path.join(SOURCE, "model.safetensors"))

    model = Qwen3_5ForCausalLM(tc).eval()
    state = {}
    for k, v in weights.items():
        if k.startswith("model.language_model."):
            state["model." + k[len("model.language_model."):]] = v.to(torch.float32)
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected and all(m == "lm_head.weight" for m in missing), (missing, unexpected)
    model.tie_weights()

    head = random_head(tc, gen)
    mtp = MtpReference(tc).eval()
    mtp_state = {k[len("mtp."):]: v for k, v in head.items()}
    mtp_state = {("layers." + k[len("layers."):] if k.startswith("layers.") else k): v
                 for k, v in mtp_state.items()}
    missing, unexpected = mtp.load_state_dict(mtp_state, strict=False)
    assert not unexpected and all(m.startswith("rotary.") for m in missing), (missing, unexpected)

    source_ref = load_file(os.path.join(SOURCE, "reference.safetensors"))
    prompts = [source_ref[f"p{i}.tokens"].to(torch.int64) for i in (1, 0, 2, 4)]

    out = {}
    embed = model.model.embed_tokens
    with torch.no_grad():
        for i, tokens in enumerate(prompts):
            ids = tokens.view(1, -1)
            n = ids.shape[1]
            hid = model.model(input_ids=ids, use_cache=False).last_hidden_state  # [1, n, H]
            logits = model.lm_head(hid)
            nxt = int(torch.argmax(logits[0, -1]))
            cache = DynamicCache()
            follow = torch.cat([ids[0, 1:], torch.tensor([nxt])]).view(1, -1)
            e, h, pos0 = embed(follow), hid, 0
            drafts, dl, dh = [], [], []
            for s in range(K):
                hp = mtp(e, h, pos0, cache)
                lg = model.lm_head(hp[:, -1])
                d = int(torch.argmax(lg[0]))
                drafts.append(d)
                dl.append(lg[0].clone())
                dh.append(hp[0, -1].clone())
                pos0 += e.shape[1]
                e = embed(torch.tensor([[d]]))
                h = hp[:, -1:]
            out[f"p{i}.tokens"] = tokens.to(torch.int32).contiguous()
            out[f"p{i}.next"] = torch.tensor([nxt], dtype=torch.int32)
            out[f"p{i}.drafts"] = torch.tensor(drafts, dtype=torch.int32)
            out[f"p{i}.draft_logits"] = torch.stack(dl).contiguous()
            out[f"p{i}.draft_hidden"] = torch.stack(dh).contiguous()
            want = int(source_ref[f"p{[1, 0, 2, 4][i]}.greedy"][0])
            assert nxt == want, (nxt, want)  # the main model is tiny_tied's
            print(f"p{i}: {n} tokens, next {nxt}, drafts {drafts}")

    os.makedirs(OUT, exist_ok=True)
    shutil.copy(os.path.join(SOURCE, "config.json"), os.path.join(OUT, "config.json"))
    shutil.copy(os.path.join(TESTDATA, "gguf", "tiny_tied.tokenizer.json"), os.path.join(OUT, "tokenizer.json"))
    stored = {k: v for k, v in weights.items() if not k.startswith("mtp.")}
    for k, v in head.items():
        stored[k] = v.to(torch.bfloat16).contiguous()
    save_file(stored, os.path.join(OUT, "model.safetensors"), metadata={"format": "pt"})
    save_file(out, os.path.join(OUT, "mtp_reference.safetensors"))
    with open(os.path.join(OUT, "REFERENCE.md"), "w") as f:
        f.write("# tiny_mtp (generated by tools/reference/qwen35/make_mtp_fixture.py)\n\n"
                "tiny_tied's config and weights with a complete random MTP head (mtp.fc, "
                "pre_fc_norm_embedding, pre_fc_norm_hidden, norm, mtp.layers.0); the tokenizer of "
                "the gguf fixtures. mtp_reference.safetensors: per prompt p0..p3 the tokens, the "
                f"main model's greedy next token, and {K} MTP drafts with their logits and hidden "
                "states, computed as vLLM's Qwen3_5MultiTokenPredictor.forward does, from "
                "transformers' Qwen 3.5 modules in float32.\n")


if __name__ == "__main__":
    main()
