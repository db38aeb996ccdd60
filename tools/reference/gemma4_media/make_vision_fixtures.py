#!/usr/bin/env python3
"""A tiny random Gemma4ForConditionalGeneration with its vision tower on, and
transformers' float32 reference for prompts with images.

Writes tests/models/gemma4/testdata/media/vision_tiny/: config.json,
generation_config.json, processor_config.json, model.safetensors (f32) and
reference.safetensors / reference.json with, per case (an image at a budget,
or two images in one prompt):
  case{i}.image{j}  u8 [h][w][3]  the source images (seeded numpy)
  case{i}.tokens    i32 [T]       the prompt as the processor expands it
                                  (<bos> text <boi> <image>*n <eoi> text)
  case{i}.soft      f32 [n][H]    the soft tokens (embed_vision(vision_tower)),
                                  all images of the prompt in order
  case{i}.logits    f32 [V]       the last position's logits of the prompt
  case{i}.greedy    i32 [32]      32 greedy tokens (full recompute each step)
Sizes are unlike the real ones (patch 4, pooling 2, vision hidden 40, head dim
16, 2 heads / 1 KV head), with clipped linears whose bounds do clip and the
standardisation on, so every part of the tower matters.

    python3 tools/reference/gemma4_media/make_vision_fixtures.py
"""
import json
import os
import sys

import numpy as np
import PIL.Image
import torch
import transformers
from safetensors.numpy import save_file as save_np
from safetensors.torch import save_file
from transformers import Gemma4Config, Gemma4ForConditionalGeneration
from transformers.models.gemma4.image_processing_gemma4 import Gemma4ImageProcessor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(ROOT, "tests/models/gemma4/testdata/media/vision_tiny")

S, F = "sliding_attention", "full_attention"
VOCAB = 300
IDS = dict(image_token_id=260, boi_token_id=261, eoi_token_id=262, audio_token_id=263,
           boa_token_id=264, eoa_token_id=265, eoa_token_index=265, video_token_id=266)

TEXT = {
    "attention_bias": False, "attention_dropout": 0.0, "attention_k_eq_v": False,
    "bos_token_id": 2, "enable_moe_block": False, "eos_token_id": 1,
    "final_logit_softcapping": 3.0, "global_head_dim": 32, "head_dim": 16,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 64, "hidden_size_per_layer_input": 8,
    "initializer_range": 0.02, "intermediate_size": 96, "layer_types": [S, S, S, F, S, F],
    "max_position_embeddings": 4096, "model_type": "gemma4_text", "num_attention_heads": 4,
    "num_global_key_value_heads": None, "num_hidden_layers": 6, "num_key_value_heads": 1,
    "num_kv_shared_layers": 2, "pad_token_id": 0, "rms_norm_eps": 1e-06,
    "rope_parameters": {
        "full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0,
                           "rope_type": "proportional"},
        "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"},
    },
    "sliding_window": 16, "tie_word_embeddings": True, "use_bidirectional_attention": None,
    "use_cache": True, "use_double_wide_mlp": True, "vocab_size": VOCAB,
    "vocab_size_per_layer_input": VOCAB,
}

VISION = {
    "model_type": "gemma4_vision", "hidden_size": 40, "intermediate_size": 72,
    "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16,
    "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-06, "patch_size": 4,
    "pooling_kernel_size": 2, "position_embedding_size": 48,
    "rope_parameters": {"rope_theta": 100.0, "rope_type": "default"},
    "use_clipped_linears": True, "standardize": True,
}

PROCESSOR = {
    "image_processor": {
        "do_convert_rgb": True, "do_normalize": False, "do_rescale": True, "do_resize": True,
        "image_mean": [0.0, 0.0, 0.0], "image_processor_type": "Gemma4ImageProcessor",
        "image_std": [1.0, 1.0, 1.0], "max_soft_tokens": 70, "patch_size": 4,
        "pooling_kernel_size": 2, "resample": 3, "rescale_factor": 1.0 / 255.0,
    },
    "processor_class": "Gemma4Processor",
}


def top_config():
    c = {"architectures": ["Gemma4ForConditionalGeneration"], "audio_config": None,
         "dtype": "float32", "eos_token_id": [1, 106], "initializer_range": 0.02,
         "model_type": "gemma4", "text_config": TEXT, "tie_word_embeddings": True,
         "transformers_version": transformers.__version__, "vision_config": VISION,
         "vision_soft_tokens_per_image": 70}
    c.update(IDS)
    return c


GENERATION_CONFIG = {"bos_token_id": 2, "eos_token_id": [1, 106], "pad_token_id": 0}


def randomize(model, gen):
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name.endswith(("q_norm.weight", "k_norm.weight")):
                p.copy_(0.25 + 0.5 * torch.rand(p.shape, generator=gen))
            elif name.endswith("norm.weight"):
                p.copy_(0.5 + torch.rand(p.shape, generator=gen))
            elif name.endswith("position_embedding_table"):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
            elif p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=gen) / np.sqrt(p.shape[1]))
            else:
                raise ValueError(f"unexpected parameter {name} {tuple(p.shape)}")
        for name, b in sorted(model.named_buffers()):
            if name.endswith("layer_scalar"):
                b.copy_(0.5 + torch.rand(b.shape, generator=gen))
            elif name.endswith("input_min") or name.endswith("output_min"):
                b.fill_(-1.5 - float(torch.rand((), generator=gen)))  # clips the tails
            elif name.endswith("input_max") or name.endswith("output_max"):
                b.fill_(1.5 + float(torch.rand((), generator=gen)))
            elif name.endswith("std_bias"):
                b.copy_(torch.randn(b.shape, generator=gen) * 0.3)
            elif name.endswith("std_scale"):
                b.copy_(0.5 + torch.rand(b.shape, generator=gen))


def make_image(rng, h, w):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    base = np.stack([127 + 100 * np.sin(xx / w * 5.3 + yy / h * 2.1),
                     127 + 100 * np.cos(yy / h * 3.7 - xx / w),
                     127 + 100 * np.sin((xx - yy) / (w + h) * 7.0)], axis=-1)
    return np.clip(base + rng.normal(0, 20, size=base.shape), 0, 255).astype(np.uint8)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(20261201)
    cfg = Gemma4Config(**{k: v for k, v in top_config().items() if k != "architectures"})
    model = Gemma4ForConditionalGeneration(cfg).float().eval()
    model.config._attn_implementation = "eager"
    randomize(model, gen)
    sd = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()
          if k != "lm_head.weight"}
    with open(os.path.join(OUT, "config.json"), "w") as f:
        f.write(json.dumps(top_config(), indent=2, sort_keys=True) + "\n")
    with open(os.path.join(OUT, "generation_config.json"), "w") as f:
        f.write(json.dumps(GENERATION_CONFIG, indent=2, sort_keys=True) + "\n")
    with open(os.path.join(OUT, "processor_config.json"), "w") as f:
        f.write(json.dumps(PROCESSOR, indent=2, sort_keys=True) + "\n")
    save_file(dict(sorted(sd.items())), os.path.join(OUT, "model.safetensors"),
              metadata={"format": "pt"})
    model = Gemma4ForConditionalGeneration.from_pretrained(OUT, dtype=torch.float32).eval()
    model.config._attn_implementation = "eager"

    rng = np.random.default_rng(7)
    proc = Gemma4ImageProcessor(**{k: v for k, v in PROCESSOR["image_processor"].items()
                                   if k != "image_processor_type"})
    # (images as (h, w), budget, text before, text after)
    cases = [([(40, 90)], 70, [2, 40, 41], [42, 43, 44]),       # wide, default budget
             ([(120, 50)], 140, [2, 45], [46, 47]),             # tall, 140
             ([(33, 37), (64, 48)], 70, [2, 50], [51, 52, 53]),  # two images in one prompt
             ([(150, 160)], 280, [2], [54])]                    # large budget
    tensors, meta = {}, {"transformers": transformers.__version__, "torch": torch.__version__,
                         "cases": []}
    for i, (sizes, budget, before, after) in enumerate(cases):
        images = [make_image(rng, h, w) for h, w in sizes]
        out = proc(images=[PIL.Image.fromarray(a) for a in images], max_soft_tokens=budget,
                   return_tensors="pt")
        tokens = list(before)
        for j, n in enumerate(out["num_soft_tokens_per_image"]):
            tokens += [IDS["boi_token_id"]] + [IDS["image_token_id"]] * int(n) + [IDS["eoi_token_id"]]
            if j + 1 < len(images):
                tokens += [48]
        tokens += after
        with torch.no_grad():
            feats = model.model.get_image_features(out["pixel_values"], out["image_position_ids"],
                                                   return_dict=True).pooler_output
            soft = torch.cat(feats, dim=0)

            def logits_of(ids):
                return model(input_ids=torch.tensor([ids]), pixel_values=out["pixel_values"],
                             image_position_ids=out["image_position_ids"]).logits[0, -1]

            last = logits_of(tokens)
            seq, greedy, gaps = list(tokens), [], []
            for _ in range(32):
                lg = logits_of(seq)
                top = torch.topk(lg, 2).values
                gaps.append(float(top[0] - top[1]))
                t = int(torch.argmax(lg))
                greedy.append(t)
                seq.append(t)
        for j, a in enumerate(images):
            tensors[f"case{i}.image{j}"] = a
        tensors[f"case{i}.tokens"] = np.array(tokens, dtype=np.int32)
        tensors[f"case{i}.soft"] = soft.numpy().astype(np.float32)
        tensors[f"case{i}.logits"] = last.numpy().astype(np.float32)
        tensors[f"case{i}.greedy"] = np.array(greedy, dtype=np.int32)
        meta["cases"].append(dict(images=[list(s) for s in sizes], max_soft_tokens=budget,
                                  n_soft=[int(n) for n in out["num_soft_tokens_per_image"]],
                                  n_tokens=len(tokens), greedy=greedy,
                                  min_greedy_gap=min(gaps)))
    save_np(tensors, os.path.join(OUT, "reference.safetensors"))
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    sys.exit(main())
