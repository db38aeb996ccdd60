#!/usr/bin/env python3
"""Writes one case of prompt_reference.safetensors as files a host can send
(for the C API test of the soft-token budget): its images as PNG, its
rendered text and its ids. Derived from the committed reference alone, with
the standard library (no transformers run), so the files are exactly the
pixels, text and ids transformers' processor saw and made.

  python3 tools/reference/gemma4_media/export_case_files.py [CASE]   # default 1

Writes tests/models/gemma4/testdata/media/vision_tiny/prompt_case{CASE}.image{j}.png,
prompt_case{CASE}.txt and prompt_case{CASE}.ids.
"""
import json
import os
import struct
import sys
import zlib

OUT = os.path.join(os.path.dirname(__file__), "../../../tests/models/gemma4/testdata/media/vision_tiny")


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    header.pop("__metadata__", None)
    out = {}
    for name, t in header.items():
        begin, end = t["data_offsets"]
        out[name] = (t["dtype"], t["shape"], data[begin:end])
    return out


def png_bytes(width, height, rgb):
    """An 8-bit RGB PNG, filter 0 on every row."""
    rows = b"".join(b"\x00" + rgb[y * width * 3:(y + 1) * width * 3] for y in range(height))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def main():
    case = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    t = read_safetensors(os.path.join(OUT, "prompt_reference.safetensors"))
    j = 0
    while f"case{case}.image{j}" in t:
        dtype, (h, w, c), raw = t[f"case{case}.image{j}"]
        assert dtype == "U8" and c == 3
        with open(os.path.join(OUT, f"prompt_case{case}.image{j}.png"), "wb") as f:
            f.write(png_bytes(w, h, raw))
        j += 1
    _, _, text = t[f"case{case}.text"]
    with open(os.path.join(OUT, f"prompt_case{case}.txt"), "wb") as f:
        f.write(text)
    _, (n,), ids = t[f"case{case}.ids"]
    with open(os.path.join(OUT, f"prompt_case{case}.ids"), "w") as f:
        f.write(" ".join(str(i) for i in struct.unpack(f"<{n}i", ids)) + "\n")
    print(f"case {case}: {j} images, {n} ids")


if __name__ == "__main__":
    main()
