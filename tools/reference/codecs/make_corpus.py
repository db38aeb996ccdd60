"""Seed corpora for the codec fuzz targets (fuzz/corpus/codec_<name>/) and
the hostile files of //tests/media:bad_input_test, from the fixtures in
tests/media/testdata: valid_* (small fixtures), bad_* (truncated, corrupted
headers, decompression bombs whose headers declare 100000x100000 pixels or
hours of audio). Needs no third-party Python package."""
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
DATA = os.path.join(ROOT, "tests", "media", "testdata")
FUZZ = os.path.join(ROOT, "fuzz", "corpus")

SEEDS = {
    "png": ["images/png_palette2.png", "images/png_gray16.png", "images/png_interlaced_rgb.png",
            "images/png_exif_orientation_6.png"],
    "jpeg": ["images/jpeg_progressive_420.jpg", "images/jpeg_ycck.jpg",
             "images/jpeg_exif_orientation_7.jpg", "images/jpeg_gray.jpg"],
    "webp": ["images/webp_lossy_alpha.webp", "images/webp_lossless.webp",
             "images/webp_animated.webp"],
    "gif": ["images/gif_transparent.gif", "images/gif_interlaced.gif", "images/gif_animated.gif"],
    "bmp": ["images/bmp_8_palette.bmp", "images/bmp_32.bmp", "images/bmp_24_top_down.bmp"],
    "sndfile": ["audio/wav_pcm16_mono_16k.wav", "audio/flac_16_stereo_44k.flac",
                "audio/ogg_opus_stereo_16k.opus", "audio/mp3_mono_44k.mp3"],
    "ffmpeg": ["audio/aac_mono_16k.mp4", "audio/webm_opus_mono_48k.webm"],
}


def chunk(t, data):
    return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data))


def png_bomb():
    ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
            chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b""))


def jpeg_bomb(jpg):
    i = jpg.find(b"\xff\xc0")
    if i < 0:
        i = jpg.find(b"\xff\xc2")
    return jpg[:i + 5] + struct.pack(">HH", 65000, 65000) + jpg[i + 9:]


def gif_bomb(gif):
    out = bytearray(gif)
    out[6:10] = struct.pack("<HH", 65535, 65535)
    i = out.find(b"\x2c")  # the first image descriptor
    out[i + 5:i + 9] = struct.pack("<HH", 65535, 65535)
    return bytes(out)


def bmp_bomb(bmp):
    out = bytearray(bmp)
    out[18:26] = struct.pack("<ii", 100000, 100000)
    return bytes(out)


def webp_bomb(lossless):
    """An animation canvas of 16384x16384 around a 23x17 frame (a still
    image's frame must fill its canvas)."""
    def ch(tag, data):
        return tag + struct.pack("<I", len(data)) + data + (b"\0" if len(data) & 1 else b"")
    vp8l = lossless[12:]  # the "VP8L" chunk of a simple-format file
    u24 = lambda v: v.to_bytes(3, "little")
    vp8x = bytes([0x02, 0, 0, 0]) + u24(16383) + u24(16383)
    anim = struct.pack("<IH", 0, 0)
    anmf = u24(0) + u24(0) + u24(22) + u24(16) + u24(100) + b"\0" + vp8l
    body = b"WEBP" + ch(b"VP8X", vp8x) + ch(b"ANIM", anim) + ch(b"ANMF", anmf)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def flac_bomb(flac):
    """STREAMINFO declaring 2^36-1 samples at 8 kHz (about 2400 hours)."""
    out = bytearray(flac)
    si = 8  # "fLaC", block header (4), then STREAMINFO
    # bytes 10..17 of STREAMINFO: rate(20) channels-1(3) bps-1(5) total(36)
    packed = int.from_bytes(out[si + 10:si + 18], "big")
    rate, rest = 8000, packed & ((1 << 44) - 1)
    rest = (rest & ~((1 << 36) - 1)) | ((1 << 36) - 1)
    out[si + 10:si + 18] = ((rate << 44) | rest).to_bytes(8, "big")
    return bytes(out)


def corrupt_header(data, at, n=4):
    out = bytearray(data)
    for k in range(at, min(at + n, len(out))):
        out[k] ^= 0x5A
    return bytes(out)


def main():
    for codec, files in SEEDS.items():
        d = os.path.join(FUZZ, "codec_" + codec)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        blobs = {}
        for rel in files:
            with open(os.path.join(DATA, rel), "rb") as fh:
                blobs[os.path.basename(rel)] = fh.read()
        for name, data in blobs.items():
            stem = name.replace(".", "_")
            write(d, "valid_" + name, data)
            write(d, "bad_truncated_half_" + stem, data[:len(data) // 2])
            write(d, "bad_truncated_header_" + stem, data[:12])
        first = next(iter(blobs.values()))
        bombs = {"png": lambda: png_bomb(), "jpeg": lambda: jpeg_bomb(first),
                 "gif": lambda: gif_bomb(first), "bmp": lambda: bmp_bomb(first),
                 "webp": lambda: webp_bomb(blobs["webp_lossless.webp"]),
                 "sndfile": lambda: flac_bomb(blobs["flac_16_stereo_44k.flac"])}
        if codec in bombs:
            write(d, "bad_bomb_" + codec, bombs[codec]())
        if codec in ("png", "bmp", "webp"):  # a GIF colour table has no check
            write(d, "bad_corrupt_header_" + codec, corrupt_header(first, 12))
    print("seed corpora in", FUZZ)


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)


if __name__ == "__main__":
    main()
