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
from transformers.models.gemma4.feature_extraction_gemma4 import Gemma4AudioFeatureExtractor
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

# The audio tower, sizes unlike the real ones: 24 mel bins (so the
# subsampler's 26 channels // 4 = 6 = 24 / 4 frequency rows), chunks of 4 with
# 5 past frames (n_rel = 9 // 2 + 1 = 5 < past + 1: far keys get no relative
# term), a softcap that bites, clipped linears whose bounds clip.
AUDIO = {
    "model_type": "gemma4_audio", "hidden_size": 36, "num_hidden_layers": 2,
    "num_attention_heads": 3, "hidden_act": "silu", "subsampling_conv_channels": [26, 5],
    "conv_kernel_size": 3, "residual_weight": 0.5, "attention_chunk_size": 4,
    "attention_context_left": 6, "attention_context_right": 0, "attention_logit_cap": 4.0,
    "attention_invalid_logits_value": -1.0e9, "use_clipped_linears": True,
    "rms_norm_eps": 1e-06, "gradient_clipping": 1e10, "output_proj_dims": 44,
}

FEATURES = {
    "dither": 0.0, "feature_extractor_type": "Gemma4AudioFeatureExtractor", "feature_size": 24,
    "fft_length": 512, "fft_overdrive": False, "frame_length": 320, "hop_length": 160,
    "input_scale_factor": 1.0, "max_frequency": 7600.0, "mel_floor": 0.001,
    "min_frequency": 60.0, "padding_side": "right", "padding_value": 0.0, "per_bin_mean": None,
    "per_bin_stddev": None, "preemphasis": 0.0, "preemphasis_htk_flavor": True,
    "return_attention_mask": True, "sampling_rate": 16000,
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
    "audio_ms_per_token": 40, "audio_seq_length": 750, "feature_extractor": FEATURES,
    "image_processor": {
        "do_convert_rgb": True, "do_normalize": False, "do_rescale": True, "do_resize": True,
        "image_mean": [0.0, 0.0, 0.0], "image_processor_type": "Gemma4ImageProcessor",
        "image_std": [1.0, 1.0, 1.0], "max_soft_tokens": 70, "patch_size": 4,
        "pooling_kernel_size": 2, "resample": 3, "rescale_factor": 1.0 / 255.0,
    },
    "processor_class": "Gemma4Processor",
}


def top_config():
    c = {"architectures": ["Gemma4ForConditionalGeneration"], "audio_config": AUDIO,
         "dtype": "float32", "eos_token_id": [1, 106], "initializer_range": 0.02,
         "model_type": "gemma4", "text_config": TEXT, "tie_word_embeddings": True,
         "transformers_version": transformers.__version__, "vision_config": VISION,
         "vision_soft_tokens_per_image": 70}
    c.update(IDS)
    return c


GENERATION_CONFIG = {"bos_token_id": 2, "eos_token_id": [1, 106], "pad_token_id": 0}


def is_audio(name):
    return name.startswith(("model.audio_tower.", "model.embed_audio."))


def randomize(model, gen, audio_gen):
    """Every weight random. The audio tower draws from its own generator, so
    the rest is what it was before the tower was added (same fixtures)."""
    randomize_part(model, gen, lambda n: not is_audio(n))
    randomize_part(model, audio_gen, is_audio)


def randomize_part(model, gen, part):
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if not part(name):
                continue
            if name.endswith(("q_norm.weight", "k_norm.weight")):
                p.copy_(0.25 + 0.5 * torch.rand(p.shape, generator=gen))
            elif name.endswith("norm.weight") or name.split(".")[-2].startswith("norm_"):
                p.copy_(0.5 + torch.rand(p.shape, generator=gen))
            elif name.endswith("position_embedding_table"):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
            elif p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=gen) / np.sqrt(p.shape[1]))
            elif p.dim() in (3, 4):  # audio convolutions: [out][in / groups][kernel...]
                p.copy_(torch.randn(p.shape, generator=gen) / np.sqrt(p[0].numel()))
            elif name.endswith("per_dim_scale"):
                p.copy_(torch.randn(p.shape, generator=gen))
            elif name.endswith("output_proj.bias"):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
            else:
                raise ValueError(f"unexpected parameter {name} {tuple(p.shape)}")
        for name, b in sorted(model.named_buffers()):
            if not part(name):
                continue
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
    audio_gen = torch.Generator().manual_seed(20261202)
    cfg = Gemma4Config(**{k: v for k, v in top_config().items() if k != "architectures"})
    model = Gemma4ForConditionalGeneration(cfg).float().eval()
    model.config._attn_implementation = "eager"
    randomize(model, gen, audio_gen)
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
    audio_reference(model, proc, rng)


def lcg_samples(n, seed):
    """int16 PCM from x <- 1664525 x + 1013904223 (mod 2^32), top 16 bits, a
    staircase envelope; / 32768 in float32 (make_preprocess_fixtures.py's
    clips, which the C++ tests recompute bit for bit)."""
    out = np.empty(n, dtype=np.int64)
    x = seed & 0xFFFFFFFF
    for i in range(n):
        x = (1664525 * x + 1013904223) & 0xFFFFFFFF
        out[i] = (((x >> 16) - 32768) * ((i // 400) % 8 + 1)) // 8
    return out.astype(np.float32) / np.float32(32768.0)


def audio_soft_count(mask):
    """The processor's count: two stride-2 convolutions on the frame mask."""
    for _ in range(2):
        mask = mask[::2][:(len(mask) + 2 - 3) // 2 + 1]
    return int(mask.sum())


def audio_reference(model, proc, rng):
    """Per case (clips alone and with an image), into audio_reference.*:
      case{i}.image{j}   u8 [h][w][3]  the images (before the clips in the prompt)
      case{i}.tokens     i32 [T]       <bos> text, per image <boi> <image>*n <eoi>,
                                       per clip <boa> <audio>*m <eoa>, text
      case{i}.audio_soft f32 [m][H]    the clips' soft tokens (embed_audio(audio_tower),
                                       the valid frames), all clips in order
      case{i}.image_soft f32 [n][H]    the images' soft tokens
      case{i}.logits     f32 [V]       the last position's logits
      case{i}.greedy     i32 [32]      32 greedy tokens (full recompute each step)
    The clips are lcg_samples(samples, seed); the json lists both."""
    fe = Gemma4AudioFeatureExtractor(**{k: v for k, v in FEATURES.items()
                                        if k not in ("feature_extractor_type", "padding_side")})
    # (clips as (samples, seed), images as (h, w), text before, text after)
    cases = [([(1600, 21)], [], [2, 60], [61, 62]),             # 3 soft tokens: under a chunk
             ([(21920, 22)], [], [2, 63, 64], [65]),            # 35 soft tokens: many chunks
             ([(496000, 23)], [], [2], [66, 67]),               # 31 s: cut at 30 s, 750 tokens
             ([(40000, 24)], [(40, 90)], [2, 68], [69, 70]),    # an image, then a clip
             ([(5000, 25), (9000, 26)], [], [2, 71], [72])]     # two clips in one prompt
    tensors, meta = {}, {"transformers": transformers.__version__, "torch": torch.__version__,
                         "cases": []}
    for i, (clips, sizes, before, after) in enumerate(cases):
        waves = [lcg_samples(n, seed) for n, seed in clips]
        images = [make_image(rng, h, w) for h, w in sizes]
        tokens = list(before)
        extra = {}
        image_soft = None
        if images:
            out = proc(images=[PIL.Image.fromarray(a) for a in images], return_tensors="pt")
            for n in out["num_soft_tokens_per_image"]:
                tokens += [IDS["boi_token_id"]] + [IDS["image_token_id"]] * int(n) + [IDS["eoi_token_id"]]
            extra = dict(pixel_values=out["pixel_values"],
                         image_position_ids=out["image_position_ids"])
            with torch.no_grad():
                feats = model.model.get_image_features(out["pixel_values"],
                                                       out["image_position_ids"],
                                                       return_dict=True).pooler_output
            image_soft = torch.cat(feats, dim=0)
        feats = fe(waves, return_tensors="pt")
        counts = [audio_soft_count(m.numpy()) for m in feats["input_features_mask"]]
        for j, m in enumerate(counts):
            tokens += [IDS["boa_token_id"]] + [IDS["audio_token_id"]] * m + [IDS["eoa_token_id"]]
            if j + 1 < len(counts):
                tokens += [48]
        tokens += after
        with torch.no_grad():
            ao = model.model.get_audio_features(feats["input_features"],
                                                feats["input_features_mask"], return_dict=True)
            soft = ao.pooler_output[ao.attention_mask]
            assert soft.shape[0] == sum(counts), (soft.shape, counts)

            def logits_of(ids):
                return model(input_ids=torch.tensor([ids]), input_features=feats["input_features"],
                             input_features_mask=feats["input_features_mask"],
                             **extra).logits[0, -1]

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
        tensors[f"case{i}.audio_soft"] = soft.numpy().astype(np.float32)
        if image_soft is not None:
            tensors[f"case{i}.image_soft"] = image_soft.numpy().astype(np.float32)
        tensors[f"case{i}.logits"] = last.numpy().astype(np.float32)
        tensors[f"case{i}.greedy"] = np.array(greedy, dtype=np.int32)
        meta["cases"].append(dict(clips=[dict(samples=n, seed=seed) for n, seed in clips],
                                  images=[list(s) for s in sizes], n_audio_soft=counts,
                                  n_tokens=len(tokens), greedy=greedy,
                                  min_greedy_gap=min(gaps)))
    save_np(tensors, os.path.join(OUT, "audio_reference.safetensors"))
    with open(os.path.join(OUT, "audio_reference.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps([{k: v for k, v in c.items() if k != "greedy"} for c in meta["cases"]],
                     indent=1))


if __name__ == "__main__":
    sys.exit(main())
