#!/usr/bin/env python3
"""A full-size random-weight diffusers folder from the published configs and
tensor lists in shared/data/configs (sd-turbo, stable-diffusion-v1-5,
stable-diffusion-2-1-base): for loading and speed runs, never committed.

The real CLIP vocabulary is not available offline, so the tokenizer is the
tiny one of the test fixtures (its ids are valid for any CLIP vocabulary).

Usage: make_full_size.py CONFIG_DIR OUT_DIR [--dtype f16|f32]
"""
import argparse
import json
import os
import shutil

import numpy as np
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
TINY_TOKENIZER = os.path.join(HERE, "..", "..", "..", "tests", "models", "sd", "testdata", "sd2",
                              "tokenizer")


def write_component(src, dst, dtype, rng, file_name):
    os.makedirs(dst, exist_ok=True)
    shutil.copy(os.path.join(src, "config.json"), dst)
    with open(os.path.join(src, "tensors.generated.json")) as f:
        spec = json.load(f)["tensors"]
    out = {}
    for name, t in spec.items():
        shape = tuple(t["shape"])
        if t["dtype"] not in ("F32", "F16", "BF16"):
            out[name] = np.zeros(shape, dtype=np.int64)
            continue
        if name.endswith(".bias"):
            a = np.zeros(shape, np.float32)
        elif "norm" in name and name.endswith("weight"):
            a = np.ones(shape, np.float32)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            a = rng.standard_normal(shape, dtype=np.float32) / np.sqrt(fan_in)
        out[name] = a.astype(dtype)
    save_file(out, os.path.join(dst, file_name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--dtype", default="f16", choices=["f16", "f32"])
    args = ap.parse_args()
    dtype = np.float16 if args.dtype == "f16" else np.float32
    rng = np.random.default_rng(0)
    os.makedirs(args.out_dir, exist_ok=True)
    shutil.copy(os.path.join(args.config_dir, "model_index.json"), args.out_dir)
    os.makedirs(os.path.join(args.out_dir, "scheduler"), exist_ok=True)
    shutil.copy(os.path.join(args.config_dir, "scheduler", "scheduler_config.json"),
                os.path.join(args.out_dir, "scheduler"))
    shutil.rmtree(os.path.join(args.out_dir, "tokenizer"), ignore_errors=True)
    shutil.copytree(TINY_TOKENIZER, os.path.join(args.out_dir, "tokenizer"))
    write_component(os.path.join(args.config_dir, "text_encoder"),
                    os.path.join(args.out_dir, "text_encoder"), dtype, rng, "model.safetensors")
    for part in ("unet", "vae"):
        write_component(os.path.join(args.config_dir, part), os.path.join(args.out_dir, part),
                        dtype, rng, "diffusion_pytorch_model.safetensors")


if __name__ == "__main__":
    main()
