#!/usr/bin/env python3
"""Writes a full-size random-weight Gemma 4 assistant (drafter) for speed tests.

Input: the published assistant config folder (config.json +
tensors.generated.json, shared/data/configs/gemma-4-E4B-it-assistant) and the
main model's config folder it should draft for. The assistant's
backbone_hidden_size and its KV geometry (num_key_value_heads, head_dim,
global_head_dim) are set to the main model's, so an E2B-shaped assistant can be
made from the E4B one (the E2B assistant's own config is not in shared/data);
pre_/post_projection follow the backbone width. Values: matrices N(0, 1/fan_in)
in bf16, q_norm 0.5, other norms and layer_scalar 1, token_ordering a random
permutation. Not a reference: for gemma4_bench's drafter step time only.

Usage: python3 tools/reference/gemma4/make_random_assistant.py ASSISTANT_CONFIG_DIR MAIN_CONFIG_DIR OUT_DIR
"""

import json
import os
import sys

import torch
from safetensors.torch import save_file


def main():
    src, main_dir, out = sys.argv[1:4]
    with open(os.path.join(src, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(src, "tensors.generated.json")) as f:
        tensors = json.load(f)["tensors"]
    with open(os.path.join(main_dir, "config.json")) as f:
        main_cfg = json.load(f)
    mt = main_cfg.get("text_config", main_cfg)
    backbone = mt["hidden_size"]
    t = cfg["text_config"]
    for key in ("num_key_value_heads", "head_dim", "global_head_dim"):
        t[key] = mt[key]
    cfg["backbone_hidden_size"] = backbone
    h, heads = t["hidden_size"], t["num_attention_heads"]
    gen = torch.Generator().manual_seed(0)
    sd = {}
    for name, spec in sorted(tensors.items()):
        shape = list(spec["shape"])
        if name == "pre_projection.weight":
            shape = [h, 2 * backbone]
        elif name == "post_projection.weight":
            shape = [backbone, h]
        elif "q_proj" in name or "o_proj" in name or "q_norm" in name:
            layer = int(name.split(".")[2])
            hd = t["global_head_dim"] if t["layer_types"][layer] == "full_attention" else t["head_dim"]
            shape = {"q_proj": [heads * hd, h], "o_proj": [h, heads * hd], "q_norm": [hd]}[
                name.split(".")[-2]]
        if name.endswith("token_ordering"):
            sd[name] = torch.randperm(shape[0], generator=gen)
        elif name.endswith("layer_scalar") or (name.endswith("norm.weight") and "q_norm" not in name):
            sd[name] = torch.ones(shape, dtype=torch.bfloat16)
        elif name.endswith("q_norm.weight"):
            sd[name] = torch.full(shape, 0.5, dtype=torch.bfloat16)
        else:
            sd[name] = (torch.randn(shape, generator=gen) / shape[1] ** 0.5).to(torch.bfloat16)
    os.makedirs(out, exist_ok=True)
    save_file(sd, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(out, "config.json"), "w") as f:
        f.write(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    print(f"{out}: {sum(v.numel() for v in sd.values())} values, backbone {backbone}")


if __name__ == "__main__":
    main()
