#!/usr/bin/env python3
"""Writes a full-size random-weight Gemma 4 checkpoint for loading and speed tests.

Input: a folder with a published config.json and a tensor list, either
tensors.generated.json or tensor_manifest.lattice.json (both {"tensors": {name:
{"dtype", "shape"}}}), as in shared/data/configs/gemma-4-{E2B,E4B,31B}-it.
Output: config.json, generation_config.json (if present) and safetensors with
every listed tensor (text, vision, audio) under its published name, dtype and
shape, sharded like a Hugging Face save:
  --max-shard-gb 0   one model.safetensors (how google/gemma-4-E2B-it is
                     published: its manifest was read from a single
                     model.safetensors of 10.2 GB);
  --max-shard-gb X   model-0000i-of-0000N.safetensors of at most X GB each plus
                     model.safetensors.index.json (default 5, the
                     save_pretrained default of transformers 4.x; the real
                     shard sizes of E4B / 31B are not in shared/data).

Values (Gemma 4 uses its norm weights as-is, not 1 + w): matrices N(0, 1/fan_in)
(embeddings N(0, 1/width): the model scales them by sqrt(width)); q_norm /
k_norm 0.5 (attention has no 1/sqrt(d): keeps softmax soft); other norms 1;
layer_scalar 1; clip scalars of the vision/audio linears -/+ 1e4. Bulk data is
cut from a 64 Mi-value pool of random bf16 per scale at a random offset (a
62 GB checkpoint in disk time rather than RNG time); every tensor is random,
but tensors can share stretches of values. Not a reference.

Usage: python3 tools/reference/gemma4/make_random_checkpoint.py CONFIG_DIR OUT_DIR
           [--max-shard-gb 5] [--seed 0] [--text-only] [--sparse]

--sparse: the big matrices are holes in sparse files (all-zero weights, no disk
write, seconds instead of ~20 min for the 31B on a busy 2-core machine). The
plugin's load path, quantisation work and memory are the same; the load time
excludes the disk reads, and the logits are constant (only speed is meaningful).
"""

import argparse
import json
import os
import shutil
import struct
import sys
import time

import numpy as np

BYTES = {"BF16": 2, "F32": 4, "F16": 2, "I64": 8, "I32": 4}
POOL = 1 << 26


def to_bf16(x):
    u = np.asarray(x, np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


class Filler:
    def __init__(self, seed, sparse=False):
        self.sparse = sparse
        self.rng = np.random.default_rng(seed)
        self.pools = {}
        self.base = None

    def pool(self, scale, dtype):
        key = (round(float(scale), 9), dtype)
        if key not in self.pools:
            if self.base is None:
                self.base = self.rng.standard_normal(POOL, dtype=np.float32)
            x = self.base * np.float32(scale)
            if dtype == "BF16":
                self.pools[key] = to_bf16(x)
            elif dtype == "F16":
                self.pools[key] = x.astype(np.float16)
            else:
                self.pools[key] = x.astype(np.float32)
        return self.pools[key]

    def write_random(self, f, n, scale, dtype):
        if self.sparse and n >= (1 << 20):  # a hole: reads as zeros, costs no disk
            f.seek(n * BYTES[dtype], 1)
            return
        p = self.pool(scale, dtype)
        off = int(self.rng.integers(0, POOL))
        while n > 0:
            k = min(n, POOL - off)
            f.write(memoryview(p[off:off + k]))
            n -= k
            off = 0

    @staticmethod
    def write_const(f, n, value, dtype):
        if dtype == "BF16":
            a = to_bf16(np.full(min(n, 1 << 20), value, np.float32))
        elif dtype == "I64":
            a = np.full(min(n, 1 << 20), int(value), np.int64)
        elif dtype == "I32":
            a = np.full(min(n, 1 << 20), int(value), np.int32)
        else:
            a = np.full(min(n, 1 << 20), value, np.float16 if dtype == "F16" else np.float32)
        while n > 0:
            k = min(n, len(a))
            f.write(memoryview(a[:k]))
            n -= k


def rule(name, shape):
    """('const', value) or ('rand', scale) for one tensor."""
    base = name.rsplit(".", 1)[-1] if not name.endswith(".weight") else name[:-len(".weight")].rsplit(".", 1)[-1]
    if name.endswith("layer_scalar"):
        return ("const", 1.0)
    if base in ("input_min", "output_min"):
        return ("const", -1e4)
    if base in ("input_max", "output_max"):
        return ("const", 1e4)
    if name.endswith(("q_norm.weight", "k_norm.weight")):
        return ("const", 0.5)
    if "norm" in name and len(shape) == 1:
        return ("const", 1.0)
    if len(shape) == 0 or len(shape) == 1:
        return ("const", 0.0) if "bias" in name else ("const", 1.0)
    fan_in = shape[-1]
    return ("rand", 1.0 / np.sqrt(fan_in))


def plan_shards(names, tensors, max_bytes):
    shards, cur, size = [], [], 0
    for n in names:
        t = tensors[n]
        nb = int(np.prod(t["shape"], dtype=np.int64)) * BYTES[t["dtype"]]
        if max_bytes and cur and size + nb > max_bytes:
            shards.append(cur)
            cur, size = [], 0
        cur.append(n)
        size += nb
    shards.append(cur)
    return shards


def write_shard(path, names, tensors, filler, rule_fn=rule):
    header, off = {}, 0
    for n in names:
        t = tensors[n]
        nb = int(np.prod(t["shape"], dtype=np.int64)) * BYTES[t["dtype"]]
        header[n] = {"dtype": t["dtype"], "shape": t["shape"], "data_offsets": [off, off + nb]}
        off += nb
    header["__metadata__"] = {"format": "pt"}
    hb = json.dumps(header, separators=(",", ":")).encode()
    hb += b" " * ((8 - len(hb) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for n in names:
            t = tensors[n]
            size = int(np.prod(t["shape"], dtype=np.int64))
            kind, v = rule_fn(n, t["shape"])
            if kind == "const":
                filler.write_const(f, size, v, t["dtype"])
            else:
                filler.write_random(f, size, v, t["dtype"])
        f.truncate()
    return off


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--max-shard-gb", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--text-only", action="store_true", help="only model.language_model.* (smaller)")
    ap.add_argument("--sparse", action="store_true",
                    help="matrices of 1 Mi values or more are file holes (zeros): a load test "
                         "without the disk write; load time then excludes the disk reads")
    args = ap.parse_args()
    src = args.config_dir
    lst = os.path.join(src, "tensors.generated.json")
    if not os.path.exists(lst):
        lst = os.path.join(src, "tensor_manifest.lattice.json")
    tensors = json.load(open(lst))["tensors"]
    if args.text_only:
        tensors = {k: v for k, v in tensors.items() if k.startswith("model.language_model.")}
    os.makedirs(args.out_dir, exist_ok=True)
    for extra in ("config.json", "generation_config.json"):
        if os.path.exists(os.path.join(src, extra)):
            shutil.copy(os.path.join(src, extra), os.path.join(args.out_dir, extra))
            os.chmod(os.path.join(args.out_dir, extra), 0o644)
    names = sorted(tensors)
    total = sum(int(np.prod(tensors[n]["shape"], dtype=np.int64)) * BYTES[tensors[n]["dtype"]] for n in names)
    free = shutil.disk_usage(args.out_dir).free
    if total > free - (1 << 30):
        sys.exit(f"needs {total / 1e9:.1f} GB, {free / 1e9:.1f} GB free in {args.out_dir}")
    shards = plan_shards(names, tensors, int(args.max_shard_gb * 1e9))
    filler = Filler(args.seed, args.sparse)
    t0 = time.time()
    if len(shards) == 1:
        write_shard(os.path.join(args.out_dir, "model.safetensors"), shards[0], tensors, filler)
    else:
        weight_map = {}
        for i, s in enumerate(shards):
            fn = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
            write_shard(os.path.join(args.out_dir, fn), s, tensors, filler)
            weight_map.update({n: fn for n in s})
            print(f"  {fn} ({time.time() - t0:.0f} s)", flush=True)
        with open(os.path.join(args.out_dir, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    print(f"wrote {len(names)} tensors, {total / 1e9:.2f} GB in {len(shards)} file(s) to "
          f"{args.out_dir} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
