#!/usr/bin/env python3
"""Builds tiny random-weight Gemma 4 checkpoints and their float32 reference outputs.

Each fixture is a folder laid out like a real Hugging Face Gemma 4 checkpoint
(multimodal wrapper `Gemma4ForConditionalGeneration`, key names
`model.language_model.*`, config.json in the published 5.5 layout with
`global_head_dim` / `num_global_key_value_heads`, generation_config.json), plus

  reference.safetensors  float32 / int32 tensors, for every prompt i:
      prompt_{i}.tokens          int32 [T]      the prompt token ids
      prompt_{i}.logits          f32  [T, V]    logits of every prompt position (one prefill)
      prompt_{i}.greedy          int32 [G]      greedy continuation (G = 32 new tokens)
      prompt_{i}.greedy_logits   f32  [G, V]    logits that chose each greedy token
                                                (row g = logits after prompt + greedy[:g])
      prompt_{i}.logits_f64, prompt_{i}.greedy_logits_f64
                                 f32            the same from the model run in float64
                                                (rounded to f32): how far float32 itself
                                                is from exact, for diagnosis
  reference.json         the same token lists in text, shapes, the smallest
                         top-1/top-2 margin on the greedy path, tool versions.

The reference is transformers' own Gemma 4 code (eager attention, float32), run
on the checkpoint as saved (loaded back with from_pretrained), so a loader bug in
the saved layout shows up here too. The greedy path recomputes the whole
sequence at every step (no KV cache: the purest reference) and is cross-checked
against generate() with the cache.

Usage: python3 tools/reference/gemma4/make_fixtures.py [--out tests/models/gemma4/testdata]
Deterministic: fixed seeds, CPU, single thread.
"""

import argparse
import json
import os
import shutil

import numpy as np
import torch
import transformers
from safetensors.torch import load_file, save_file
from transformers import (Gemma4Config, Gemma4ForCausalLM, Gemma4ForConditionalGeneration,
                          Gemma4TextConfig)

GREEDY_TOKENS = 32

# Common text_config fields, in the layout of the published E2B / 31B configs.
BASE_TEXT = {
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 2,
    "dtype": "bfloat16",
    "enable_moe_block": False,
    "eos_token_id": 1,
    "expert_intermediate_size": None,
    "hidden_activation": "gelu_pytorch_tanh",
    "initializer_range": 0.02,
    "max_position_embeddings": 131072,
    "model_type": "gemma4_text",
    "num_experts": None,
    "pad_token_id": 0,
    "rms_norm_eps": 1e-06,
    "rope_parameters": {
        "full_attention": {
            "partial_rotary_factor": 0.25,
            "rope_theta": 1000000.0,
            "rope_type": "proportional",
        },
        "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"},
    },
    "tie_word_embeddings": True,
    "top_k_experts": None,
    "use_cache": True,
}

S, F = "sliding_attention", "full_attention"

FIXTURES = [
    {
        # E2B-like: PLE, KV sharing over the last 3 layers (both types), double-wide
        # MLP on the shared layers, separate V projection, bf16 weights, one file.
        # Like the real E2B file, the shared layers still carry (unused) k_proj,
        # v_proj and k_norm.
        "name": "e2b_like",
        "seed": 1234,
        "dtype": torch.bfloat16,
        "shards": 1,
        "extra_shared_kv_weights": True,
        "text": {
            "attention_k_eq_v": False,
            "final_logit_softcapping": 3.0,
            "global_head_dim": 32,
            "head_dim": 16,
            "hidden_size": 64,
            "hidden_size_per_layer_input": 8,
            "intermediate_size": 96,
            "layer_types": [S, S, S, F, S, S, S, F],
            "num_attention_heads": 4,
            "num_global_key_value_heads": None,
            "num_hidden_layers": 8,
            "num_key_value_heads": 1,
            "num_kv_shared_layers": 3,
            "sliding_window": 8,
            "use_bidirectional_attention": None,
            "use_double_wide_mlp": True,
            "vocab_size": 256,
            "vocab_size_per_layer_input": 256,
        },
    },
    {
        # All features at once: PLE, KV sharing, double-wide MLP, k = v on the
        # global layers with their own KV-head count; f32 weights in two shards.
        "name": "keqv_sharded",
        "seed": 4321,
        "dtype": torch.float32,
        "shards": 2,
        "extra_shared_kv_weights": False,
        "text": {
            "attention_k_eq_v": True,
            "final_logit_softcapping": 3.0,
            "global_head_dim": 32,
            "head_dim": 16,
            "hidden_size": 48,
            "hidden_size_per_layer_input": 8,
            "intermediate_size": 64,
            "layer_types": [S, S, F, S, S, F, S, F],
            "num_attention_heads": 4,
            "num_global_key_value_heads": 1,
            "num_hidden_layers": 8,
            "num_key_value_heads": 2,
            "num_kv_shared_layers": 3,
            "sliding_window": 6,
            "use_bidirectional_attention": None,
            "use_double_wide_mlp": True,
            "vocab_size": 200,
            "vocab_size_per_layer_input": 200,
        },
    },
    {
        # A text-only checkpoint (Gemma4ForCausalLM, keys model.*) written by
        # transformers' own save_pretrained: its config.json has model_type
        # gemma4_text and the newer per_layer_config layout instead of
        # global_head_dim / num_global_key_value_heads. f32, one file.
        "name": "text_only_saved",
        "seed": 99,
        "dtype": torch.float32,
        "shards": 1,
        "extra_shared_kv_weights": False,
        "text_only": True,
        "text": {
            "attention_k_eq_v": True,
            "final_logit_softcapping": 4.0,
            "global_head_dim": 16,
            "head_dim": 8,
            "hidden_size": 32,
            "hidden_size_per_layer_input": 4,
            "intermediate_size": 64,
            "layer_types": [S, F, S, S, F],
            "num_attention_heads": 2,
            "num_global_key_value_heads": 1,
            "num_hidden_layers": 5,
            "num_key_value_heads": 2,
            "num_kv_shared_layers": 2,
            "sliding_window": 5,
            "use_bidirectional_attention": None,
            "use_double_wide_mlp": True,
            "vocab_size": 160,
            "vocab_size_per_layer_input": 160,
        },
    },
    {
        # 31B-like dense: no PLE, no KV sharing, k = v on global layers, bf16.
        "name": "dense_31b_like",
        "seed": 777,
        "dtype": torch.bfloat16,
        "shards": 1,
        "extra_shared_kv_weights": False,
        "text": {
            "attention_k_eq_v": True,
            "final_logit_softcapping": 5.0,
            "global_head_dim": 32,
            "head_dim": 16,
            "hidden_size": 64,
            "hidden_size_per_layer_input": 0,
            "intermediate_size": 128,
            "layer_types": [S, S, F, S, S, F],
            "num_attention_heads": 4,
            "num_global_key_value_heads": 2,
            "num_hidden_layers": 6,
            "num_key_value_heads": 4,
            "num_kv_shared_layers": 0,
            "sliding_window": 10,
            "use_bidirectional_attention": "vision",
            "use_double_wide_mlp": False,
            "vocab_size": 256,
            "vocab_size_per_layer_input": 256,
        },
    },
]


def top_config(text):
    """The wrapper config.json, as the published text+vision checkpoints write it."""
    return {
        "architectures": ["Gemma4ForConditionalGeneration"],
        "audio_config": None,
        "audio_token_id": 258881,
        "boa_token_id": 256000,
        "boi_token_id": 255999,
        "dtype": "bfloat16",
        "eoa_token_id": 258883,
        "eoa_token_index": 258883,
        "eoi_token_id": 258882,
        "eos_token_id": [1, 106],
        "image_token_id": 258880,
        "initializer_range": 0.02,
        "model_type": "gemma4",
        "text_config": text,
        "tie_word_embeddings": True,
        "transformers_version": "5.5.0.dev0",
        "video_token_id": 258884,
        "vision_config": None,
    }


GENERATION_CONFIG = {
    "bos_token_id": 2,
    "do_sample": True,
    "eos_token_id": [1, 106, 50],
    "pad_token_id": 0,
    "temperature": 1.0,
    "top_k": 64,
    "top_p": 0.95,
    "transformers_version": "5.5.0.dev0",
}


def randomize(model, gen):
    """Deterministic weights with O(1) activations, so every op matters."""
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name.endswith(("q_norm.weight", "k_norm.weight")):
                # Attention has no 1/sqrt(d) scale (q and k are RMS-normalised), so
                # these set the score range; [0.25, 0.75] keeps the softmax soft
                # enough that float32 rounding noise stays ~1e-5 at the logits.
                p.copy_(0.25 + 0.5 * torch.rand(p.shape, generator=gen))
            elif name.endswith("norm.weight"):
                p.copy_(0.5 + torch.rand(p.shape, generator=gen))  # used as-is (not 1 + w)
            elif p.dim() == 2 and "embed" in name:
                # The model multiplies embeddings by sqrt(width): O(1) inputs, and
                # O(1) tied logits, so the softcap bends them without saturating.
                p.copy_(torch.randn(p.shape, generator=gen) / np.sqrt(p.shape[1]))
            elif p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=gen) / np.sqrt(p.shape[1]))
            else:
                raise ValueError(f"unexpected parameter {name} {tuple(p.shape)}")
        for name, b in sorted(model.named_buffers()):
            if name.endswith("layer_scalar"):
                b.copy_(0.5 + torch.rand(b.shape, generator=gen))


def build_state_dict(fx, text):
    gen = torch.Generator().manual_seed(fx["seed"])
    cfg = Gemma4Config(**{k: v for k, v in top_config(dict(text)).items() if k != "architectures"})
    # The config says bfloat16 (as the real ones do), which the constructor
    # honours: draw in float32, then round to the fixture's storage dtype.
    model = Gemma4ForConditionalGeneration(cfg).float().eval()
    randomize(model, gen)
    sd = {k: v.detach().clone() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    if fx["extra_shared_kv_weights"]:
        # Real E2B/E4B files keep k_proj, v_proj and k_norm on the KV-shared layers;
        # transformers ignores them on load. So must every loader.
        n_layers = text["num_hidden_layers"]
        first_shared = n_layers - text["num_kv_shared_layers"]
        for i in range(first_shared, n_layers):
            hd = text["global_head_dim"] if text["layer_types"][i] == F else text["head_dim"]
            nkv = text["num_key_value_heads"]
            h = text["hidden_size"]
            p = f"model.language_model.layers.{i}.self_attn."
            sd[p + "k_proj.weight"] = torch.randn((nkv * hd, h), generator=gen) * 100.0
            sd[p + "v_proj.weight"] = torch.randn((nkv * hd, h), generator=gen) * 100.0
            sd[p + "k_norm.weight"] = torch.randn((hd,), generator=gen) * 100.0
    return {k: v.to(fx["dtype"]).contiguous() for k, v in sorted(sd.items())}


def save_checkpoint(out, fx, text, sd):
    with open(os.path.join(out, "config.json"), "w") as f:
        f.write(json.dumps(top_config(text), indent=2, sort_keys=True) + "\n")
    with open(os.path.join(out, "generation_config.json"), "w") as f:
        f.write(json.dumps(GENERATION_CONFIG, indent=2, sort_keys=True) + "\n")
    meta = {"format": "pt"}
    if fx["shards"] == 1:
        save_file(sd, os.path.join(out, "model.safetensors"), metadata=meta)
        return
    names = list(sd.keys())
    n = fx["shards"]
    per = (len(names) + n - 1) // n
    weight_map = {}
    total = 0
    for s in range(n):
        fname = f"model-{s + 1:05d}-of-{n:05d}.safetensors"
        part = {k: sd[k] for k in names[s * per:(s + 1) * per]}
        save_file(part, os.path.join(out, fname), metadata=meta)
        for k, v in part.items():
            weight_map[k] = fname
            total += v.numel() * v.element_size()
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
        f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")


def save_text_only(out, fx, text):
    """Gemma4ForCausalLM saved by transformers itself (its own config layout)."""
    gen = torch.Generator().manual_seed(fx["seed"])
    cfg = Gemma4TextConfig(**{k: v for k, v in text.items() if k not in ("model_type", "dtype")})
    model = Gemma4ForCausalLM(cfg).float().eval()
    randomize(model, gen)
    model.to(fx["dtype"]).save_pretrained(out)
    with open(os.path.join(out, "generation_config.json"), "w") as f:
        f.write(json.dumps(GENERATION_CONFIG, indent=2, sort_keys=True) + "\n")
    # Make the saved config deterministic (drop nothing, but fix key order).
    path = os.path.join(out, "config.json")
    with open(path) as f:
        saved = json.load(f)
    with open(path, "w") as f:
        f.write(json.dumps(saved, indent=2, sort_keys=True) + "\n")
    return {k: v.to(fx["dtype"]) for k, v in model.state_dict().items() if k != "lm_head.weight"}


MIN_MARGIN = 2e-3  # greedy top-1/top-2 gap required on the whole path


def prompt_lengths(window):
    # A single token, a short prompt, one past the window, several windows long.
    return [1, 5, window + 3, 4 * window + 5]


def draw_prompt(g, vocab, length):
    ids = g.randint(3, vocab, size=length).tolist()
    ids[0] = 2  # <bos>
    return ids


@torch.no_grad()
def run_reference(model, prompt):
    def logits_of(ids):
        return model(input_ids=torch.tensor([ids]), use_cache=False).logits[0].float()

    full = logits_of(prompt)
    seq = list(prompt)
    greedy, greedy_logits, margin = [], [], float("inf")
    for _ in range(GREEDY_TOKENS):
        last = logits_of(seq)[-1]
        top2 = torch.topk(last, 2).values
        margin = min(margin, float(top2[0] - top2[1]))
        tok = int(torch.argmax(last))
        greedy.append(tok)
        greedy_logits.append(last)
        seq.append(tok)
    # Cross-check with the cached generate path of transformers.
    gen = model.generate(
        input_ids=torch.tensor([prompt]),
        max_new_tokens=GREEDY_TOKENS,
        min_new_tokens=GREEDY_TOKENS,
        do_sample=False,
        eos_token_id=None,
        pad_token_id=0,
    )[0, len(prompt):].tolist()
    if gen != greedy:
        raise RuntimeError(f"generate() disagrees with the no-cache greedy path: {gen} vs {greedy}")
    return full, greedy, torch.stack(greedy_logits), margin


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/models/gemma4/testdata")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    for fx in FIXTURES:
        text = dict(BASE_TEXT)
        text.update(fx["text"])
        out = os.path.join(args.out, fx["name"])
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        if fx.get("text_only"):
            sd = save_text_only(out, fx, text)
            cls = Gemma4ForCausalLM
        else:
            sd = build_state_dict(fx, text)
            save_checkpoint(out, fx, text, sd)
            cls = Gemma4ForConditionalGeneration

        model = cls.from_pretrained(out, dtype=torch.float32, attn_implementation="eager").eval()
        model64 = cls.from_pretrained(out, dtype=torch.float64, attn_implementation="eager").eval()
        # The load must have used every live weight as saved (bf16 values upcast exactly).
        live = model.state_dict()
        for k, v in sd.items():
            if k in live and not torch.equal(live[k], v.float()):
                raise RuntimeError(f"{fx['name']}: {k} did not load as saved")
        tc = model.config.get_text_config()
        assert tc.sliding_window == text["sliding_window"]

        g = np.random.RandomState(fx["seed"])
        ref, info = {}, {"fixture": fx["name"], "weights_dtype": str(fx["dtype"]).replace("torch.", ""),
                         "transformers": transformers.__version__, "torch": torch.__version__,
                         "greedy_tokens": GREEDY_TOKENS, "prompts": []}
        for i, length in enumerate(prompt_lengths(text["sliding_window"])):
            # Redraw (deterministically) until the greedy path has no near-ties, so
            # that "identical greedy tokens" is a fair test at 1e-4 accuracy.
            for attempt in range(50):
                prompt = draw_prompt(g, text["vocab_size"], length)
                full, greedy, glogits, margin = run_reference(model, prompt)
                if margin >= MIN_MARGIN:
                    break
            else:
                raise RuntimeError(f"{fx['name']}: no prompt of length {length} without near-ties")
            ref[f"prompt_{i}.tokens"] = torch.tensor(prompt, dtype=torch.int32)
            ref[f"prompt_{i}.logits"] = full.contiguous()
            ref[f"prompt_{i}.greedy"] = torch.tensor(greedy, dtype=torch.int32)
            ref[f"prompt_{i}.greedy_logits"] = glogits.contiguous()
            with torch.no_grad():
                l64 = model64(input_ids=torch.tensor([prompt + greedy]), use_cache=False).logits[0]
            t = len(prompt)
            ref[f"prompt_{i}.logits_f64"] = l64[:t].float().contiguous()
            ref[f"prompt_{i}.greedy_logits_f64"] = l64[t - 1:t - 1 + len(greedy)].float().contiguous()
            f32_vs_f64 = max(float((l64[:t] - full.double()).abs().max()),
                             float((l64[t - 1:t - 1 + len(greedy)] - glogits.double()).abs().max()))
            info["prompts"].append({"tokens": prompt, "greedy": greedy,
                                    "min_top2_margin": round(margin, 6),
                                    "torch_f32_vs_f64_max_abs": float(f"{f32_vs_f64:.3g}"),
                                    "last_logits_absmax": round(float(full[-1].abs().max()), 4)})
            print(f"{fx['name']} prompt {i}: len {len(prompt)}, margin {margin:.4g}, "
                  f"f32 vs f64 {f32_vs_f64:.3g}, greedy {greedy[:8]}...")
        save_file(ref, os.path.join(out, "reference.safetensors"), metadata={"format": "oxinfer-reference"})
        with open(os.path.join(out, "reference.json"), "w") as f:
            f.write(json.dumps(info, indent=1) + "\n")
        for name in os.listdir(out):  # safetensors writes 0600
            os.chmod(os.path.join(out, name), 0o644)


if __name__ == "__main__":
    main()
