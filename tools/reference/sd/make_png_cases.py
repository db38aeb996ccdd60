#!/usr/bin/env python3
"""Small PNG files in the layouts an encoder other than ours writes, with the
pixels the PNG codec plugin must decode them to (8-bit; gray+alpha and
palette/gray with transparency expanded to RGBA, 16-bit reduced to the high
byte, palette to RGB). Writes tests/codecs/testdata/<name>.png and
<name>.expected (raw pixels) plus cases.json. Needs Pillow and numpy; CI does not.
(Kept with the SD reference tools: the codec test data has no tools folder of its own.)"""
import json
import os
import zlib
import struct

import numpy as np
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests",
                   "codecs", "testdata")


def chunk(t, data):
    return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data))


def raw_png(w, h, bit_depth, color_type, rows, extra=b""):
    """A PNG written by hand (filter 0 on every row)."""
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 0)
    data = b"".join(b"\x00" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra +
            chunk(b"IDAT", zlib.compress(data)) + chunk(b"IEND", b""))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(3)
    cases = []

    def add(name, png_bytes, expected):
        with open(os.path.join(OUT, name + ".png"), "wb") as f:
            f.write(png_bytes)
        expected = np.ascontiguousarray(expected, dtype=np.uint8)
        with open(os.path.join(OUT, name + ".expected"), "wb") as f:
            f.write(expected.tobytes())
        h, w = expected.shape[:2]
        c = 1 if expected.ndim == 2 else expected.shape[2]
        cases.append({"name": name, "width": w, "height": h, "channels": c})

    def pil_bytes(img, **kw):
        import io
        b = io.BytesIO()
        img.save(b, format="PNG", **kw)
        return b.getvalue()

    rgb = rng.integers(0, 256, (13, 11, 3), dtype=np.uint8)
    add("rgb_interlaced", raw_interlaced(rgb), rgb)
    pal = Image.fromarray(rgb).quantize(colors=16)
    add("palette", pil_bytes(pal), np.array(pal.convert("RGB")))
    la = rng.integers(0, 256, (7, 9, 2), dtype=np.uint8)
    add("gray_alpha", pil_bytes(Image.fromarray(la, mode="LA")),
        np.stack([la[..., 0], la[..., 0], la[..., 0], la[..., 1]], axis=-1))
    g16 = rng.integers(0, 65536, (5, 6), dtype=np.uint16)
    rows = [g16[y].astype(">u2").tobytes() for y in range(5)]
    add("gray16", raw_png(6, 5, 16, 0, rows), (g16 >> 8).astype(np.uint8))
    rgba16 = rng.integers(0, 65536, (4, 3, 4), dtype=np.uint16)
    rows = [rgba16[y].astype(">u2").tobytes() for y in range(4)]
    add("rgba16", raw_png(3, 4, 16, 6, rows), (rgba16 >> 8).astype(np.uint8))
    bits = rng.integers(0, 2, (9, 10), dtype=np.uint8)
    rows = [np.packbits(bits[y]).tobytes() for y in range(9)]
    add("gray1", raw_png(10, 9, 1, 0, rows), bits * 255)
    # Palette with a tRNS chunk: RGBA out.
    plte = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255])
    idx = rng.integers(0, 3, (4, 5), dtype=np.uint8)
    trns = bytes([255, 128, 0])
    rows = [idx[y].tobytes() for y in range(4)]
    png = raw_png(5, 4, 8, 3, rows, chunk(b"PLTE", plte) + chunk(b"tRNS", trns))
    pal_rgb = np.frombuffer(plte, np.uint8).reshape(3, 3)
    exp = np.concatenate([pal_rgb[idx], np.frombuffer(trns, np.uint8)[idx][..., None]], axis=-1)
    add("palette_trns", png, exp)
    g8 = rng.integers(0, 256, (3, 17), dtype=np.uint8)
    add("gray8", pil_bytes(Image.fromarray(g8, mode="L")), g8)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


def raw_interlaced(rgb):
    """Adam7-interlaced 8-bit RGB, written by hand."""
    h, w, _ = rgb.shape
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
              (0, 1, 1, 2)]
    data = b""
    for x0, y0, dx, dy in passes:
        sub = rgb[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        for row in sub:
            data += b"\x00" + row.tobytes()
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 1)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(data)) +
            chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
