#!/usr/bin/env python3
"""Reference image and audio preprocessing for Gemma 4 (transformers' own code).

Writes tests/models/gemma4/testdata/media/preprocess.safetensors and
preprocess.json: the pixel values of Gemma4ImageProcessor (the torchvision
backend, the one AutoProcessor picks when torchvision is installed) for
images of several sizes, modes and budgets, and the log-mel features and masks
of Gemma4AudioFeatureExtractor for clips shorter than a second up to past the
30 s cap. The C++ test //tests/models/gemma4:gemma4_media_preprocess_test
compares against them without Python.

Inputs are made here, deterministically: images from numpy's seeded generator
(stored in the fixture), audio from a 32-bit LCG that the C++ test recomputes
bit for bit (so the 31 s clip need not be stored).

Pixel values are stored as the 8-bit values they rescale (checked lossless
here: pixel_values == u8 * rescale_factor exactly), which keeps the file small.

    python3 tools/reference/gemma4_media/make_preprocess_fixtures.py
"""
import json
import os
import sys
import tempfile

import numpy as np
import PIL.Image
import torch
import transformers
import torchvision
from safetensors.numpy import save_file
from transformers.models.gemma4.feature_extraction_gemma4 import Gemma4AudioFeatureExtractor
from transformers.models.gemma4.image_processing_gemma4 import Gemma4ImageProcessor
from transformers.models.gemma4.image_processing_pil_gemma4 import Gemma4ImageProcessorPil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(ROOT, "tests/models/gemma4/testdata/media")

# The published E2B processor's settings, and a small one (tiny models).
REAL_IMAGE = dict(patch_size=16, pooling_kernel_size=3, max_soft_tokens=280)
TINY_IMAGE = dict(patch_size=4, pooling_kernel_size=2, max_soft_tokens=70)
REAL_AUDIO = dict(feature_size=128)
TINY_AUDIO = dict(feature_size=24, min_frequency=60.0, max_frequency=7600.0)


def lcg_samples(n, seed):
    """int16 PCM from x <- 1664525 x + 1013904223 (mod 2^32), top 16 bits,
    shaped by a slow sine envelope computed in integers; / 32768 in float32."""
    out = np.empty(n, dtype=np.int32)
    x = seed & 0xFFFFFFFF
    for i in range(n):
        x = (1664525 * x + 1013904223) & 0xFFFFFFFF
        v = (x >> 16) - 32768  # [-32768, 32767]
        env = (i // 400) % 8 + 1  # 1..8, a staircase envelope
        out[i] = (v * env) // 8
    return out.astype(np.float32) / np.float32(32768.0)


def make_image(rng, h, w, mode):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    base = np.stack([
        127 + 100 * np.sin(xx / max(w, 1) * 6.1 + yy / max(h, 1) * 1.3),
        127 + 100 * np.cos(yy / max(h, 1) * 4.7),
        127 + 100 * np.sin((xx + yy) / max(w + h, 1) * 9.0),
    ], axis=-1)
    img = np.clip(base + rng.normal(0, 25, size=base.shape), 0, 255).astype(np.uint8)
    if mode == "L":
        return img[..., 0].copy()
    if mode == "RGBA":
        alpha = (rng.random((h, w)) * 255).astype(np.uint8)
        alpha[: h // 3] = 255
        return np.concatenate([img, alpha[..., None]], axis=-1)
    return img


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261201)
    tensors = {}
    meta = {"transformers": transformers.__version__, "torch": torch.__version__,
            "torchvision": torchvision.__version__, "numpy": np.__version__,
            "pillow": PIL.__version__, "images": [], "audio": []}

    # AutoImageProcessor's choice for the published image processor settings.
    with open(os.path.join(OUT, "processor_config.json")) as f:
        published = json.load(f)["image_processor"]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "preprocessor_config.json"), "w") as f:
            json.dump(published, f)
        meta["auto_image_processor"] = type(transformers.AutoImageProcessor.from_pretrained(d)).__name__

    # (name, config, height, width, mode, budget)
    image_cases = [
        ("real_small_up", REAL_IMAGE, 48, 64, "RGB", 70),      # upscaled into 70 tokens
        ("real_portrait", REAL_IMAGE, 150, 61, "RGBA", 70),    # alpha over white, tall
        ("tiny_down", TINY_IMAGE, 150, 200, "RGB", 70),        # downscaled
        ("tiny_wide", TINY_IMAGE, 9, 250, "RGB", 70),          # height rounds to 0
        ("tiny_tall_grey", TINY_IMAGE, 230, 14, "L", 140),     # width rounds to 0, grey
        ("tiny_exact", TINY_IMAGE, 48, 56, "RGB", 70),         # already on the grid
        ("tiny_280", TINY_IMAGE, 97, 131, "RGBA", 280),
    ]
    pil_vs_tv = 0.0
    for i, (name, cfg, h, w, mode, budget) in enumerate(image_cases):
        arr = make_image(rng, h, w, mode)
        pil = PIL.Image.fromarray(arr, mode=mode)
        proc = Gemma4ImageProcessor(**cfg)
        out = proc(images=[pil], max_soft_tokens=budget, return_tensors="pt")
        pv = out["pixel_values"][0]
        pos = out["image_position_ids"][0]
        n_real = int((pos != -1).all(-1).sum())
        pv, pos = pv[:n_real], pos[:n_real]
        u8 = torch.round(pv / proc.rescale_factor).to(torch.uint8)
        assert torch.equal(u8.float() * proc.rescale_factor, pv), name
        soft = int(out["num_soft_tokens_per_image"][0])
        p = cfg["patch_size"]
        gw = int(pos[:, 0].max()) + 1
        gh = int(pos[:, 1].max()) + 1
        tensors[f"img{i}.source"] = np.ascontiguousarray(arr.reshape(h, w, -1))
        tensors[f"img{i}.patches"] = u8.numpy()
        tensors[f"img{i}.positions"] = pos.to(torch.int32).numpy()
        if i == 0:  # the float values themselves, for a few patches
            tensors[f"img{i}.pixel_values"] = pv[:16].numpy().astype(np.float32)
        pil_out = Gemma4ImageProcessorPil(**cfg)(images=[pil], max_soft_tokens=budget,
                                                   return_tensors="np")
        diff = float(np.abs(pil_out["pixel_values"][0][:n_real] - pv.numpy()).max())
        pil_vs_tv = max(pil_vs_tv, diff)
        meta["images"].append(dict(name=name, patch_size=p, pooling_kernel_size=cfg["pooling_kernel_size"],
                                   height=h, width=w, mode=mode, max_soft_tokens=budget,
                                   resized_height=gh * p, resized_width=gw * p,
                                   n_patches=n_real, n_soft_tokens=soft,
                                   pil_backend_max_abs_diff=diff))
    meta["pil_backend_max_abs_diff"] = pil_vs_tv

    # (name, config, samples, seed, stored frames: None = all)
    audio_cases = [
        ("real_half_second", REAL_AUDIO, 8001, 1, None),
        ("real_2s", REAL_AUDIO, 36800, 2, None),
        ("real_31s", REAL_AUDIO, 496000, 3, "sampled"),
        ("tiny_short", TINY_AUDIO, 5000, 4, None),
        ("tiny_one_frame", TINY_AUDIO, 200, 5, None),
    ]
    for i, (name, cfg, n, seed, stored) in enumerate(audio_cases):
        wave = lcg_samples(n, seed)
        fe = Gemma4AudioFeatureExtractor(**cfg)
        out = fe([wave], return_tensors="np")
        feats = out["input_features"][0].astype(np.float32)
        mask = out["input_features_mask"][0].astype(np.uint8)
        if stored == "sampled":
            rows = sorted(set(range(0, 24)) | set(range(feats.shape[0] - 24, feats.shape[0]))
                          | set(range(0, feats.shape[0], 97)))
        else:
            rows = list(range(feats.shape[0]))
        tensors[f"aud{i}.rows"] = np.array(rows, dtype=np.int32)
        tensors[f"aud{i}.features"] = np.ascontiguousarray(feats[rows])
        tensors[f"aud{i}.mask"] = mask
        meta["audio"].append(dict(name=name, samples=n, seed=seed, feature_size=cfg["feature_size"],
                                  min_frequency=cfg.get("min_frequency", 0.0),
                                  max_frequency=cfg.get("max_frequency", 8000.0),
                                  n_frames=int(feats.shape[0]), n_valid=int(mask.sum())))

    save_file(tensors, os.path.join(OUT, "preprocess.safetensors"))
    with open(os.path.join(OUT, "preprocess.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    sys.exit(main())
