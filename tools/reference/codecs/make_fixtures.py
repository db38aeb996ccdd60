#!/usr/bin/env python3
"""Media fixtures for //tests/media: image files of every flavour the codec
plugins read, written with Pillow (and, for YCCK JPEG, libturbojpeg through
ctypes), each with the pixels transformers' load_image gives for it
(ImageOps.exif_transpose, then convert("RGB")); and audio files of every
flavour, written with soundfile (and FFmpeg for AAC/M4A, MP4, MKV, WebM),
each with what transformers.audio_utils.load_audio(path, 16000,
backend="soundfile") gives (for FFmpeg's formats: the same down-mix and soxr
HQ applied to FFmpeg's decode). CI compares without Python.

    pip install pillow==13.0.0 soundfile==0.14.0 soxr==1.1.0 numpy==2.4.6
    python3 tools/reference/codecs/make_fixtures.py [images|audio]

Writes tests/media/testdata/{images,audio}/: the files, <name>.rgb (raw RGB
rows) or <name>.f32 (little-endian float32 samples) and cases.json.
Deterministic: rerunning gives identical files.
"""
import ctypes
import ctypes.util
import io
import json
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image, ImageOps

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
OUT = os.path.join(ROOT, "tests", "media", "testdata")

W, H = 23, 17  # odd, so that chroma subsampling and rotations show


def smooth_rgb(w=W, h=H, seed=0):
    """A gradient plus noise: JPEG artefacts without huge files."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1),
                     (x + y) * 255 // (w + h - 2)], axis=-1)
    noise = rng.integers(-40, 40, size=(h, w, 3))
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def expected(data):
    im = Image.open(io.BytesIO(data))
    im = ImageOps.exif_transpose(im)
    return np.asarray(im.convert("RGB"), dtype=np.uint8)


def exif_with_orientation(o):
    ex = Image.Exif()
    ex[0x0112] = o
    return ex.tobytes()


def save(im, fmt, **kw):
    b = io.BytesIO()
    im.save(b, fmt, **kw)
    return b.getvalue()


def chunk(t, data):
    return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data))


def raw_png(w, h, bit_depth, color_type, rows, before=b"", after=b""):
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 0)
    data = b"".join(b"\x00" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + before +
            chunk(b"IDAT", zlib.compress(data, 9)) + after + chunk(b"IEND", b""))


def ycck_jpeg(cmyk):
    """A YCCK JPEG: TurboJPEG compresses CMYK pixels as YCCK (Pillow cannot)."""
    lib = ctypes.CDLL(ctypes.util.find_library("turbojpeg") or "libturbojpeg.so.0")
    lib.tjInitCompress.restype = ctypes.c_void_p
    h = lib.tjInitCompress()
    buf = ctypes.POINTER(ctypes.c_ubyte)()
    size = ctypes.c_ulong(0)
    src = np.ascontiguousarray(cmyk)
    TJPF_CMYK, TJSAMP_420 = 11, 2
    rc = lib.tjCompress2(ctypes.c_void_p(h), src.ctypes.data_as(ctypes.c_void_p),
                         src.shape[1], 0, src.shape[0], TJPF_CMYK, ctypes.byref(buf),
                         ctypes.byref(size), TJSAMP_420, 90, 0)
    assert rc == 0, "tjCompress2 failed"
    data = ctypes.string_at(buf, size.value)
    lib.tjFree(buf)
    lib.tjDestroy(ctypes.c_void_p(h))
    return data


def image_cases():
    rgb = smooth_rgb()
    im = Image.fromarray(rgb)
    rng = np.random.default_rng(7)
    alpha = rng.integers(0, 256, size=(H, W), dtype=np.uint8)
    rgba = Image.fromarray(np.dstack([rgb, alpha]))
    gray = im.convert("L")
    cases = {}
    # JPEG: subsampling (0 4:4:4, 1 4:2:2, 2 4:2:0), progressive, gray,
    # CMYK, YCCK, every EXIF orientation, XMP orientation.
    for sub, name in [(0, "444"), (1, "422"), (2, "420")]:
        cases[f"jpeg_baseline_{name}.jpg"] = save(im, "JPEG", quality=90, subsampling=sub)
        cases[f"jpeg_progressive_{name}.jpg"] = save(im, "JPEG", quality=90, subsampling=sub,
                                                     progressive=True)
    cases["jpeg_optimized.jpg"] = save(im, "JPEG", quality=75, optimize=True)
    cases["jpeg_gray.jpg"] = save(gray, "JPEG", quality=90)
    cases["jpeg_gray_progressive.jpg"] = save(gray, "JPEG", quality=90, progressive=True)
    cases["jpeg_cmyk.jpg"] = save(im.convert("CMYK"), "JPEG", quality=90)
    cmyk = np.asarray(im.convert("CMYK"))
    cases["jpeg_ycck.jpg"] = ycck_jpeg(cmyk)
    for o in range(1, 9):
        cases[f"jpeg_exif_orientation_{o}.jpg"] = save(im, "JPEG", quality=90,
                                                       exif=exif_with_orientation(o))
    xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/'
           b'22-rdf-syntax-ns#"><rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" '
           b'tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>')
    cases["jpeg_xmp_orientation_6.jpg"] = save(im, "JPEG", quality=90, xmp=xmp)
    # PNG: every colour type and depth, palettes, transparency, interlacing.
    cases["png_rgb8.png"] = save(im, "PNG")
    cases["png_rgba8.png"] = save(rgba, "PNG")
    cases["png_gray8.png"] = save(gray, "PNG")
    cases["png_graya8.png"] = save(gray.convert("LA"), "PNG")
    cases["png_palette8.png"] = save(im.quantize(200), "PNG")
    cases["png_palette_trns.png"] = save(im.quantize(16), "PNG", transparency=3)
    cases["png_gray_trns.png"] = save(gray, "PNG", transparency=128)
    cases["png_rgb_trns.png"] = save(im, "PNG", transparency=(10, 20, 30))
    cases["png_exif_orientation_6.png"] = save(im, "PNG", exif=exif_with_orientation(6))
    cases["png_exif_orientation_3.png"] = save(rgba, "PNG", exif=exif_with_orientation(3))
    rows16 = rng.integers(0, 65536, size=(H, W), dtype=np.uint16)
    cases["png_gray16.png"] = raw_png(W, H, 16, 0, [r.astype(">u2").tobytes() for r in rows16])
    low16 = rng.integers(0, 400, size=(H, W), dtype=np.uint16)
    cases["png_gray16_low.png"] = raw_png(W, H, 16, 0, [r.astype(">u2").tobytes() for r in low16])
    for ct, ch, name in [(2, 3, "rgb16"), (6, 4, "rgba16"), (4, 2, "graya16")]:
        px = rng.integers(0, 65536, size=(H, W, ch), dtype=np.uint16)
        cases[f"png_{name}.png"] = raw_png(W, H, 16, ct, [r.astype(">u2").tobytes() for r in px])
    for depth in (1, 2, 4):
        vals = rng.integers(0, 1 << depth, size=(H, W), dtype=np.uint8)
        rows = [np.packbits(np.unpackbits(r[:, None], axis=1)[:, 8 - depth:].reshape(-1))
                .tobytes() for r in vals]
        cases[f"png_gray{depth}.png"] = raw_png(W, H, depth, 0, rows)
        plte = chunk(b"PLTE", rng.integers(0, 256, size=3 * (1 << depth), dtype=np.uint8)
                     .tobytes())
        cases[f"png_palette{depth}.png"] = raw_png(W, H, depth, 3, rows, before=plte)
    idx = rng.integers(0, 8, size=(H, W), dtype=np.uint8)
    short = chunk(b"PLTE", bytes(range(10, 10 + 3 * 5)))  # 5 entries: 5..7 are past its end
    cases["png_palette_short.png"] = raw_png(W, H, 8, 3, [r.tobytes() for r in idx], before=short)
    cases["png_interlaced_rgb.png"] = interlaced_png(rgb)
    cases["png_exif_after_idat.png"] = raw_png(
        W, H, 8, 2, [r.tobytes() for r in rgb],
        after=chunk(b"eXIf", exif_with_orientation(8)))
    # WebP
    cases["webp_lossy.webp"] = save(im, "WEBP", quality=80)
    cases["webp_lossless.webp"] = save(im, "WEBP", lossless=True)
    cases["webp_lossy_alpha.webp"] = save(rgba, "WEBP", quality=80)
    cases["webp_lossless_alpha.webp"] = save(rgba, "WEBP", lossless=True, exact=True)
    cases["webp_exif_orientation_5.webp"] = save(im, "WEBP", quality=80,
                                                 exif=exif_with_orientation(5))
    frames = [im, Image.fromarray(255 - rgb)]
    cases["webp_animated.webp"] = save(frames[0], "WEBP", save_all=True,
                                       append_images=frames[1:], duration=100, quality=80)
    # GIF
    pal = im.quantize(64)
    cases["gif_basic.gif"] = save(pal, "GIF")
    cases["gif_interlaced.gif"] = save(pal, "GIF", interlace=True)
    cases["gif_not_interlaced.gif"] = save(pal, "GIF", interlace=False)
    cases["gif_transparent.gif"] = save(pal, "GIF", transparency=5)
    cases["gif_gray.gif"] = save(gray, "GIF")
    cases["gif_animated.gif"] = save(pal, "GIF", save_all=True,
                                     append_images=[Image.fromarray(255 - rgb).quantize(64)],
                                     duration=100, loop=0)
    cases["gif_two_colours.gif"] = save(im.convert("1"), "GIF")
    # BMP
    cases["bmp_24.bmp"] = save(im, "BMP")
    cases["bmp_32.bmp"] = save(rgba, "BMP")
    cases["bmp_8_palette.bmp"] = save(im.quantize(100), "BMP")
    cases["bmp_1.bmp"] = save(im.convert("1"), "BMP")
    cases["bmp_gray.bmp"] = save(gray, "BMP")
    cases["bmp_24_top_down.bmp"] = top_down_bmp(rgb)
    cases.update(bmp_cases(im, rgb))
    return cases


# --- BMP flavours stb_image decodes differently from Pillow (16-bit, RLE):
# written by hand, since Pillow writes neither.
def bmp_file(w, h, bpp, comp, pix, palette=b"", masks=None, header=40, colors=0, gap=b""):
    extra = struct.pack("<III", *masks[:3]) if masks is not None and header == 40 else b""
    info = struct.pack("<IiiHHIIiiII", header, w, h, 1, bpp, comp, len(pix), 2835, 2835, colors, 0)
    if header > 40:
        m = list(masks or (0, 0, 0, 0)) + [0] * 4
        info += struct.pack("<IIII", *m[:4]) + b"\0" * (header - 56)
    off = 14 + len(info) + len(extra) + len(palette) + len(gap)
    head = struct.pack("<2sIHHI", b"BM", off + len(pix), 0, 0, off)
    return head + info + extra + palette + gap + pix


def bmp16(rgb, five_six_five, bitfields=True, header=40, top_down=False):
    h, w, _ = rgb.shape
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    if five_six_five:
        v = ((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3)
        masks = (0xF800, 0x7E0, 0x1F)
    else:
        v = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3)
        masks = (0x7C00, 0x3E0, 0x1F)
    row = (w * 2 + 3) // 4 * 4
    rows = [struct.pack(f"<{w}H", *v[y].tolist()) + b"\0" * (row - 2 * w) for y in range(h)]
    if not top_down:
        rows = rows[::-1]
    return bmp_file(w, -h if top_down else h, 16, 3 if bitfields else 0, b"".join(rows),
                    masks=masks if bitfields else None, header=header)


def rle_encode(idx, rle4):
    """RLE8 / RLE4 of index rows (bottom row first): runs of equal indices
    encoded, other stretches absolute (word aligned), EOL, EOB."""
    out = bytearray()
    for row in idx[::-1]:
        row = [int(v) for v in row]
        x = 0
        while x < len(row):
            n = 1
            while x + n < len(row) and n < 255 and row[x + n] == row[x]:
                n += 1
            if n >= 3 or len(row) - x < 3:
                out += bytes([n, row[x] * 17 if rle4 else row[x]])
                x += n
                continue
            m = 3
            while x + m < len(row) and m < 64 and not (
                    x + m + 2 < len(row) and row[x + m] == row[x + m + 1] == row[x + m + 2]):
                m += 1
            lit = row[x:x + m]
            if rle4:
                packed = bytes((lit[i] << 4) | (lit[i + 1] if i + 1 < m else 0)
                               for i in range(0, m, 2))
            else:
                packed = bytes(lit)
            out += bytes([0, m]) + packed + (b"\0" if len(packed) % 2 else b"")
            x += m
        out += b"\0\0"
    return bytes(out[:-2]) + b"\0\1"


def bmp_rle(pal_img, rle4, gray=False):
    idx = np.asarray(pal_img)
    h, w = idx.shape
    n = 16 if rle4 else 256
    if gray:
        entries = [(i * (255 // (n - 1)),) * 3 for i in range(n)] if rle4 else [(i,) * 3 for i in range(n)]
    else:
        p = pal_img.getpalette()[: 3 * n]
        p += [0] * (3 * n - len(p))
        entries = [tuple(p[3 * i:3 * i + 3]) for i in range(n)]
    palette = b"".join(bytes([b, g, r, 0]) for r, g, b in entries)
    return bmp_file(w, h, 4 if rle4 else 8, 2 if rle4 else 1, rle_encode(idx, rle4),
                    palette=palette, colors=n)


def bmp_cases(im, rgb):
    cases = {}
    cases["bmp_16_555.bmp"] = bmp16(rgb, False, bitfields=False)
    cases["bmp_16_555_bitfields.bmp"] = bmp16(rgb, False)
    cases["bmp_16_565.bmp"] = bmp16(rgb, True)
    cases["bmp_16_565_v5_top_down.bmp"] = bmp16(rgb, True, header=124, top_down=True)
    cases["bmp_rle8.bmp"] = bmp_rle(im.quantize(100), False)
    cases["bmp_rle4.bmp"] = bmp_rle(im.quantize(16), True)
    cases["bmp_rle8_gray.bmp"] = bmp_rle(im.convert("L"), False, gray=True)
    # Pillow's quirks: a delta jump, an absolute run going on past the row end,
    # word alignment counted from the start of the file (odd data offset here).
    pal = b"".join(bytes([i * 3 % 256, i * 5 % 256, i * 7 % 256, 0]) for i in range(256))
    quirks = bytes([3, 1, 0, 5, 5, 6, 7, 8, 9, 0, 2, 1, 0, 2, 9, 0, 0, 6, 200, 0, 6, 1, 2, 3, 4, 5, 6])
    cases["bmp_rle8_quirks.bmp"] = bmp_file(6, 4, 8, 1, quirks, palette=pal, gap=b"\0")
    return cases


def bmp_refused():
    """Files Pillow refuses, which the plugin must refuse too."""
    row = struct.pack("<4H", 1, 2, 3, 4)
    pal = b"".join(bytes([i, 0, 0, 0]) for i in range(256))
    return {
        "bmp_16_bitfields_444.bmp": bmp_file(4, 1, 16, 3, row, masks=(0xF00, 0xF0, 0xF)),
        "bmp_32_bitfields_odd.bmp": bmp_file(2, 1, 32, 3, b"\1\2\3\4" * 2,
                                             masks=(0xFF00, 0xFF0000, 0xFF000000)),
        "bmp_rle8_short.bmp": bmp_file(6, 3, 8, 1, bytes([3, 1, 0, 1]), palette=pal),
        "bmp_depth_7.bmp": bmp_file(2, 1, 7, 0, b"\0" * 4),
        "bmp_compression_9.bmp": bmp_file(2, 1, 24, 9, b"\0" * 8),
    }


def interlaced_png(rgb):
    """Adam7 by hand (Pillow writes no interlaced PNG)."""
    h, w, _ = rgb.shape
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
              (0, 1, 1, 2)]
    data = b""
    for x0, y0, dx, dy in passes:
        sub = rgb[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        data += b"".join(b"\x00" + r.tobytes() for r in sub)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 1)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(data, 9)) +
            chunk(b"IEND", b""))


def top_down_bmp(rgb):
    h, w, _ = rgb.shape
    row = (w * 3 + 3) // 4 * 4
    pix = b"".join(bytes(r[:, [2, 1, 0]].reshape(-1)) + b"\0" * (row - w * 3) for r in rgb)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h, 1, 24, 0, len(pix), 2835, 2835, 0, 0)
    head = struct.pack("<2sIHHI", b"BM", 14 + 40 + len(pix), 0, 0, 54)
    return head + info + pix


def write_images():
    out = os.path.join(OUT, "images")
    os.makedirs(out, exist_ok=True)
    index = []
    for name, data in sorted(image_cases().items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        px = expected(data)
        stem = os.path.splitext(name)[0]
        with open(os.path.join(out, stem + ".rgb"), "wb") as f:
            f.write(px.tobytes())
        index.append({"file": name, "expected": stem + ".rgb", "width": int(px.shape[1]),
                      "height": int(px.shape[0])})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(index, f, indent=1)
    refused = []
    for name, data in sorted(bmp_refused().items()):
        try:
            expected(data)
            raise SystemExit(f"{name}: Pillow decodes it")
        except (OSError, ValueError, SyntaxError) as e:
            refused.append({"file": name, "pillow_error": f"{type(e).__name__}: {e}"})
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    with open(os.path.join(out, "refused.json"), "w") as f:
        json.dump(refused, f, indent=1)
    print(f"{len(index)} images, {len(refused)} refused ones in {out}")


def main():
    what = sys.argv[1:] or ["images", "audio"]
    if "images" in what:
        write_images()
    if "audio" in what:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import make_audio_fixtures
        make_audio_fixtures.write_audio(OUT)


if __name__ == "__main__":
    main()
