"""Q4_K and Q6_K blocks in ggml's layout (block_q4_K, block_q6_K of
ggml-common.h), for test files: gguf-py 0.19 can read these types but not
write them, and llama.cpp's quantize tool is not in the Python package.

The quantisation is plain (per sub-block min / max, round to nearest), not
llama.cpp's search for the best scales; what a file holds is still an exact
Q4_K / Q6_K tensor, and gguf-py's dequantize reads it back (checked below).
"""
import numpy as np

QK_K = 256


def _f16(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16)


def quantize_q4_k(values):
    """values: float32 [rows, cols] (cols % 256 == 0) -> uint8 [rows, cols / 256 * 144]."""
    x = np.asarray(values, dtype=np.float32).reshape(-1, 8, 32)  # blocks, sub-blocks, elements
    lo = np.minimum(x.min(axis=2), 0.0)
    hi = x.max(axis=2)
    scale = np.maximum(hi - lo, 1e-30) / 15.0  # per sub-block step
    mins = -lo
    # 6-bit sub-block scales and mins against the block's f16 d / dmin.
    d = _f16(scale.max(axis=1) / 63.0).astype(np.float32)
    dmin = _f16(mins.max(axis=1) / 63.0).astype(np.float32)
    sc = np.clip(np.rint(scale / np.maximum(d[:, None], 1e-30)), 1, 63).astype(np.uint8)
    m = np.clip(np.rint(mins / np.maximum(dmin[:, None], 1e-30)), 0, 63).astype(np.uint8)
    step = d[:, None] * sc
    off = dmin[:, None] * m
    q = np.clip(np.rint((x + off[:, :, None]) / step[:, :, None]), 0, 15).astype(np.uint8)
    n = x.shape[0]
    scales = np.zeros((n, 12), dtype=np.uint8)
    scales[:, 0:4] = (sc[:, 0:4] & 63) | ((sc[:, 4:8] >> 4) << 6)
    scales[:, 4:8] = (m[:, 0:4] & 63) | ((m[:, 4:8] >> 4) << 6)
    scales[:, 8:12] = (sc[:, 4:8] & 0xF) | ((m[:, 4:8] & 0xF) << 4)
    # qs: per 64 values, 32 bytes: low nibbles sub-block 2j, high nibbles 2j + 1.
    qs = (q[:, 0::2, :] | (q[:, 1::2, :] << 4)).reshape(n, 128)
    out = np.concatenate([_f16(d).view(np.uint8).reshape(n, 2), _f16(dmin).view(np.uint8).reshape(n, 2),
                          scales, qs], axis=1)
    return out.reshape(values.shape[0], -1)


def quantize_q6_k(values):
    """values: float32 [rows, cols] (cols % 256 == 0) -> uint8 [rows, cols / 256 * 210]."""
    x = np.asarray(values, dtype=np.float32).reshape(-1, 16, 16)
    amax = np.abs(x).max(axis=2)
    scale = np.maximum(amax, 1e-30) / 31.0
    d = _f16(scale.max(axis=1) / 127.0).astype(np.float32)
    sc = np.clip(np.rint(scale / np.maximum(d[:, None], 1e-30)), 1, 127).astype(np.int8)
    step = d[:, None] * sc.astype(np.float32)
    q = (np.clip(np.rint(x / step[:, :, None]), -32, 31) + 32).astype(np.uint8).reshape(-1, 256)
    n = q.shape[0]
    ql = np.zeros((n, 128), dtype=np.uint8)
    qh = np.zeros((n, 64), dtype=np.uint8)
    for half in range(2):
        y = q[:, half * 128:(half + 1) * 128]
        a, b, c, e = y[:, 0:32], y[:, 32:64], y[:, 64:96], y[:, 96:128]
        ql[:, half * 64:half * 64 + 32] = (a & 0xF) | ((c & 0xF) << 4)
        ql[:, half * 64 + 32:half * 64 + 64] = (b & 0xF) | ((e & 0xF) << 4)
        qh[:, half * 32:half * 32 + 32] = (a >> 4) | ((b >> 4) << 2) | ((c >> 4) << 4) | ((e >> 4) << 6)
    out = np.concatenate([ql, qh, sc.view(np.uint8), _f16(d).view(np.uint8).reshape(n, 2)], axis=1)
    return out.reshape(values.shape[0], -1)


def check(gguf, rng=np.random.default_rng(0)):
    """Round trip through gguf-py's dequantize: within the types' rounding."""
    x = rng.standard_normal((4, 512)).astype(np.float32)
    for f, t, tol in ((quantize_q4_k, gguf.GGMLQuantizationType.Q4_K, 0.6),
                      (quantize_q6_k, gguf.GGMLQuantizationType.Q6_K, 0.07)):
        y = gguf.dequantize(f(x), t).reshape(x.shape)
        err = np.abs(y - x).max()
        assert err < tol, (t, err)
