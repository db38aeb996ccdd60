#!/usr/bin/env python3
"""Writes tests/gguf/testdata/types.gguf and types_reference.gguf with the
`gguf` package (llama.cpp's gguf-py, pinned in requirements.txt).

types.gguf: metadata of every GGUF value type (arrays of strings and of
numbers included) and one 3x512 tensor per ggml type the reader supports
(F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 quantised from random floats by
gguf-py; Q2_K..Q6_K as random blocks with finite scales).
types_reference.gguf: the same tensors as F32, dequantised by gguf-py
(gguf.quants.dequantize), which the C++ dequantisers must reproduce.

  python3 -m venv /tmp/gguf && /tmp/gguf/bin/pip install -r tools/reference/gguf/requirements.txt
  /tmp/gguf/bin/python tools/reference/gguf/make_gguf_fixture.py
"""
import os

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T
from gguf import quants

ROOT = os.path.join(os.path.dirname(__file__), "../../..")
OUT = os.path.join(ROOT, "tests/gguf/testdata")
CORPUS = os.path.join(ROOT, "fuzz/corpus/gguf")
ROWS, COLS = 3, 512

# Offsets of the f16 scales inside each K-quant block (ggml-common.h).
K_SCALES = {T.Q2_K: (80, 82), T.Q3_K: (108,), T.Q4_K: (0, 2), T.Q5_K: (0, 2), T.Q6_K: (208,)}


def tensor(rng, qtype):
    data = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    if qtype == T.F32:
        return data, data
    if qtype in K_SCALES:
        block, size = gguf.GGML_QUANT_SIZES[qtype]
        raw = rng.integers(0, 256, (ROWS, COLS // block * size), dtype=np.uint8)
        blocks = raw.reshape(-1, size)
        for off in K_SCALES[qtype]:
            d = (rng.random(blocks.shape[0]) * 0.05 + 0.001).astype(np.float16)
            blocks[:, off:off + 2] = d.view(np.uint8).reshape(-1, 2)
        return raw, quants.dequantize(raw, qtype)
    raw = quants.quantize(data, qtype)
    return raw, quants.dequantize(raw, qtype)


def main():
    rng = np.random.default_rng(14)
    w = gguf.GGUFWriter(os.path.join(OUT, "types.gguf"), arch="llama")
    ref = gguf.GGUFWriter(os.path.join(OUT, "types_reference.gguf"), arch="llama")
    w.add_uint8("test.u8", 200)
    w.add_int8("test.i8", -100)
    w.add_uint16("test.u16", 60000)
    w.add_int16("test.i16", -30000)
    w.add_uint32("test.u32", 4000000000)
    w.add_int32("test.i32", -2000000000)
    w.add_float32("test.f32", 0.25)
    w.add_bool("test.bool", True)
    w.add_string("test.string", "héllo")
    w.add_uint64("test.u64", 1 << 40)
    w.add_int64("test.i64", -(1 << 40))
    w.add_float64("test.f64", 1e-300)
    w.add_array("test.strings", ["a", "", "<|im_end|>"])
    w.add_array("test.ints", [1, 2, 3])
    for qtype in [T.F32, T.F16, T.BF16, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0,
                  T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K]:
        raw, deq = tensor(rng, qtype)
        name = "t." + qtype.name
        if qtype == T.F32:
            w.add_tensor(name, raw)
        else:
            w.add_tensor(name, raw, raw_dtype=qtype)
        ref.add_tensor(name, np.ascontiguousarray(deq.reshape(ROWS, COLS), dtype=np.float32))
    for writer in (w, ref):
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()


def corpus():
    """Seeds for fuzz/gguf_header_fuzzer.cc: small valid files and broken ones."""
    rng = np.random.default_rng(15)
    path = os.path.join(CORPUS, "valid_small")
    w = gguf.GGUFWriter(path, arch="qwen35")
    w.add_uint32("qwen35.block_count", 2)
    w.add_array("tokenizer.ggml.tokens", ["a", "b", "<|im_end|>"])
    w.add_tensor("token_embd.weight", rng.standard_normal((3, 32)).astype(np.float32))
    w.add_tensor("blk.0.ffn_up.weight",
                 quants.quantize(rng.standard_normal((2, 32)).astype(np.float32), T.Q8_0),
                 raw_dtype=T.Q8_0)
    raw, _ = tensor(rng, T.Q6_K)
    w.add_tensor("blk.0.ffn_down.weight", raw[:1], raw_dtype=T.Q6_K)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    good = open(path, "rb").read()
    seeds = {
        "bad_magic": b"GGUX" + good[4:],
        "bad_version": good[:4] + b"\x09" + good[5:],
        "bad_truncated_header": good[:40],
        "bad_truncated_data": good[:-100],
        "bad_huge_count": good[:16] + b"\xff" * 8 + good[24:],
    }
    for name, data in seeds.items():
        with open(os.path.join(CORPUS, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
    corpus()
