#!/usr/bin/env python3
"""Writes a full-size random-weight Qwen 3.5 checkpoint for loading and speed tests.

Input: a folder with the published config.json and tensors.generated.json (as in
shared/data/configs/Qwen3.5-0.8B). Output: <out>/config.json and
<out>/model.safetensors with every listed tensor (text, vision, MTP) under its
published name and dtype, filled with small random values (norm weights zero,
A_log = log(uniform(1, 16)), dt_bias one), so that a forward pass stays finite.
Not a reference: nothing here is compared against transformers.

Usage: python3 tools/reference/qwen35/make_random_checkpoint.py CONFIG_DIR OUT_DIR [--seed 0]
           [--fast] [--max-shard-gb X]

--fast (for the 27B): bulk values cut from pools of random bf16 (the writer of
tools/reference/gemma4/make_random_checkpoint.py), A_log = log(8) everywhere;
disk-bound instead of RNG-bound. --max-shard-gb X (with --fast): Hugging Face
shards model-0000i-of-0000N.safetensors of at most X GB plus
model.safetensors.index.json (0, the default: one model.safetensors).
--sparse (with --fast): the big matrices are holes (zeros) in sparse files: a
load and speed test without writing 55 GB; load time excludes disk reads.
"""

import argparse
import json
import os
import shutil
import struct

import numpy as np

DT = {"BF16": ("<u2", 2), "F32": ("<f4", 4), "F16": ("<f2", 2)}


def to_bf16(x):
    u = x.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fast", action="store_true")
    ap.add_argument("--max-shard-gb", type=float, default=0.0)
    ap.add_argument("--sparse", action="store_true",
                    help="with --fast: big matrices are file holes (zeros); see the Gemma 4 writer")
    args = ap.parse_args()
    if args.fast:
        return write_fast(args)
    rng = np.random.default_rng(args.seed)
    tensors = json.load(open(os.path.join(args.config_dir, "tensors.generated.json")))["tensors"]
    os.makedirs(args.out_dir, exist_ok=True)
    shutil.copy(os.path.join(args.config_dir, "config.json"), os.path.join(args.out_dir, "config.json"))
    header, off = {}, 0
    names = sorted(tensors)
    for n in names:
        t = tensors[n]
        nbytes = int(np.prod(t["shape"], dtype=np.int64)) * DT[t["dtype"]][1]
        header[n] = {"dtype": t["dtype"], "shape": t["shape"], "data_offsets": [off, off + nbytes]}
        off += nbytes
    hb = json.dumps(header, separators=(",", ":")).encode()
    hb += b" " * ((8 - len(hb) % 8) % 8)
    with open(os.path.join(args.out_dir, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for n in names:
            t = tensors[n]
            shape = t["shape"]
            size = int(np.prod(shape, dtype=np.int64))
            if n.endswith("A_log"):
                x = np.log(rng.uniform(1.0, 16.0, size))
            elif n.endswith("dt_bias"):
                x = np.ones(size)
            elif n.endswith("linear_attn.norm.weight"):
                x = np.ones(size)
            elif "norm" in n and len(shape) == 1:
                x = np.zeros(size)
            else:
                fan_in = shape[-1] if len(shape) > 1 else 1
                x = rng.standard_normal(size, dtype=np.float32) * (1.0 / np.sqrt(fan_in))
            if t["dtype"] == "BF16":
                f.write(to_bf16(np.asarray(x, np.float32)).tobytes())
            else:
                f.write(np.asarray(x, DT[t["dtype"]][0]).tobytes())
    print(f"wrote {len(names)} tensors, {off / 1e9:.2f} GB to {args.out_dir}")


def fast_rule(n, shape):
    if n.endswith("A_log"):
        return ("const", float(np.log(8.0)))
    if n.endswith("dt_bias") or n.endswith("linear_attn.norm.weight"):
        return ("const", 1.0)
    if "norm" in n and len(shape) == 1:
        return ("const", 0.0)
    if len(shape) < 2:
        return ("const", 0.0)
    return ("rand", 1.0 / np.sqrt(shape[-1]))


def write_fast(args):
    import sys
    import time
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gemma4"))
    import make_random_checkpoint as g  # the Gemma 4 writer: pools, shards

    tensors = json.load(open(os.path.join(args.config_dir, "tensors.generated.json")))["tensors"]
    os.makedirs(args.out_dir, exist_ok=True)
    for extra in ("config.json", "generation_config.json"):
        if os.path.exists(os.path.join(args.config_dir, extra)):
            shutil.copy(os.path.join(args.config_dir, extra), os.path.join(args.out_dir, extra))
            os.chmod(os.path.join(args.out_dir, extra), 0o644)
    names = sorted(tensors)
    total = sum(int(np.prod(tensors[n]["shape"], dtype=np.int64)) * g.BYTES[tensors[n]["dtype"]] for n in names)
    free = shutil.disk_usage(args.out_dir).free
    if total > free - (1 << 30):
        raise SystemExit(f"needs {total / 1e9:.1f} GB, {free / 1e9:.1f} GB free in {args.out_dir}")
    shards = g.plan_shards(names, tensors, int(args.max_shard_gb * 1e9))
    filler = g.Filler(args.seed, args.sparse)
    t0 = time.time()
    if len(shards) == 1:
        g.write_shard(os.path.join(args.out_dir, "model.safetensors"), shards[0], tensors, filler, fast_rule)
    else:
        weight_map = {}
        for i, sh in enumerate(shards):
            fn = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
            g.write_shard(os.path.join(args.out_dir, fn), sh, tensors, filler, fast_rule)
            weight_map.update({n: fn for n in sh})
            print(f"  {fn} ({time.time() - t0:.0f} s)", flush=True)
        with open(os.path.join(args.out_dir, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    print(f"wrote {len(names)} tensors, {total / 1e9:.2f} GB in {len(shards)} file(s) to "
          f"{args.out_dir} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
