"""Audio fixtures (see make_fixtures.py): files written with soundfile (every
format libsndfile reads) and the ffmpeg command-line tool (AAC/M4A, MP4,
MKV, WebM, ADTS), with the 16 kHz mono float32 samples the reference gives:
transformers 5.23.0's audio_utils._load_audio_soundfile, repeated here step
by step (soundfile.SoundFile.read(dtype="float32", always_2d=True), mean of
the channels, soxr.resample(..., quality="soxr_hq"), zero-padded or cut to
ceil(frames * 16000 / rate)); for FFmpeg's formats the same steps on
FFmpeg's own decode (ffmpeg -f f32le, every channel at the stored rate)."""
import io
import json
import math
import os
import shutil
import subprocess
import tempfile

import numpy as np
import soundfile as sf
import soxr

TARGET = 16000


def signal(rate, channels, seconds=0.1, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(int(rate * seconds)) / rate
    out = []
    for c in range(channels):
        f0 = 220.0 * (c + 1)
        chirp = np.sin(2 * np.pi * (f0 * t + 900.0 * t * t))
        out.append(0.45 * chirp + 0.05 * rng.standard_normal(t.shape))
    return np.clip(np.stack(out, axis=1), -0.99, 0.99)


def downmix_resample(waveform, src_rate):
    """transformers' _load_audio_soundfile after decoding (waveform: frames x channels)."""
    waveform = waveform.T
    waveform = waveform.mean(axis=0) if waveform.shape[0] > 1 else waveform[0]
    if src_rate != TARGET:
        n = math.ceil(waveform.shape[-1] * TARGET / src_rate)
        waveform = soxr.resample(waveform, src_rate, TARGET, quality="soxr_hq")
        waveform = np.pad(waveform, (0, max(0, n - len(waveform))))[:n]
    return np.ascontiguousarray(waveform, dtype=np.float32)


def soundfile_reference(data):
    with sf.SoundFile(io.BytesIO(data)) as f:
        rate, channels = f.samplerate, f.channels
        waveform = f.read(dtype="float32", always_2d=True)
    return downmix_resample(waveform, rate), rate, channels


def ffmpeg_reference(path):
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                            "stream=sample_rate,channels", "-of", "csv=p=0", path],
                           check=True, capture_output=True, text=True).stdout.strip().split(",")
    rate, channels = int(probe[0]), int(probe[1])
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-f", "f32le",
                          "-acodec", "pcm_f32le", "-"], check=True, capture_output=True).stdout
    waveform = np.frombuffer(raw, dtype="<f4").reshape(-1, channels)
    return downmix_resample(waveform, rate), rate, channels


def sf_bytes(x, rate, fmt, subtype):
    b = io.BytesIO()
    sf.write(b, x, rate, format=fmt, subtype=subtype)
    return b.getvalue()


SOUNDFILE_CASES = [
    # name, rate, channels, format, subtype
    ("wav_pcm16_mono_16k.wav", 16000, 1, "WAV", "PCM_16"),
    ("wav_pcm16_stereo_44k.wav", 44100, 2, "WAV", "PCM_16"),
    ("wav_pcm24_mono_48k.wav", 48000, 1, "WAV", "PCM_24"),
    ("wav_pcm32_stereo_22k.wav", 22050, 2, "WAV", "PCM_32"),
    ("wav_float_mono_8k.wav", 8000, 1, "WAV", "FLOAT"),
    ("wav_float_stereo_32k.wav", 32000, 2, "WAV", "FLOAT"),
    ("wav_double_mono_24k.wav", 24000, 1, "WAV", "DOUBLE"),
    ("wav_u8_mono_11k.wav", 11025, 1, "WAV", "PCM_U8"),
    ("wavex_pcm16_3ch_16k.wav", 16000, 3, "WAVEX", "PCM_16"),
    ("flac_16_stereo_44k.flac", 44100, 2, "FLAC", "PCM_16"),
    ("flac_24_mono_48k.flac", 48000, 1, "FLAC", "PCM_24"),
    ("ogg_vorbis_stereo_44k.ogg", 44100, 2, "OGG", "VORBIS"),
    ("ogg_vorbis_mono_16k.ogg", 16000, 1, "OGG", "VORBIS"),
    ("ogg_opus_mono_48k.opus", 48000, 1, "OGG", "OPUS"),
    ("ogg_opus_stereo_16k.opus", 16000, 2, "OGG", "OPUS"),
    ("mp3_mono_44k.mp3", 44100, 1, "MP3", "MPEG_LAYER_III"),
    ("mp3_stereo_32k.mp3", 32000, 2, "MP3", "MPEG_LAYER_III"),
    ("aiff_pcm16_stereo_22k.aiff", 22050, 2, "AIFF", "PCM_16"),
]

FFMPEG_CASES = [
    # name, rate, channels, ffmpeg encoder arguments
    ("aac_stereo_44k.m4a", 44100, 2, ["-c:a", "aac", "-b:a", "96k"]),
    ("aac_mono_16k.mp4", 16000, 1, ["-c:a", "aac", "-b:a", "32k"]),
    ("aac_adts_stereo_48k.aac", 48000, 2, ["-c:a", "aac", "-b:a", "96k", "-f", "adts"]),
    ("mkv_vorbis_stereo_44k.mkv", 44100, 2, ["-c:a", "libvorbis", "-q:a", "3"]),
    ("webm_opus_mono_48k.webm", 48000, 1, ["-c:a", "libopus", "-b:a", "32k"]),
    ("mkv_pcm_s16_stereo_22k.mkv", 22050, 2, ["-c:a", "pcm_s16le"]),
]


def write_audio(root):
    out = os.path.join(root, "audio")
    os.makedirs(out, exist_ok=True)
    index = []

    def add(name, data, ref, rate, channels, codec):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        stem = os.path.splitext(name)[0]
        with open(os.path.join(out, stem + ".f32"), "wb") as f:
            f.write(ref.astype("<f4").tobytes())
        index.append({"file": name, "expected": stem + ".f32", "rate": rate,
                      "channels": channels, "codec": codec})

    for i, (name, rate, channels, fmt, subtype) in enumerate(SOUNDFILE_CASES):
        data = sf_bytes(signal(rate, channels, seed=i), rate, fmt, subtype)
        ref, r, c = soundfile_reference(data)
        assert (r, c) == (rate, channels), (name, r, c)
        add(name, data, ref, rate, channels, "sndfile")
    if shutil.which("ffmpeg"):
        with tempfile.TemporaryDirectory() as tmp:
            for i, (name, rate, channels, args) in enumerate(FFMPEG_CASES):
                src = os.path.join(tmp, "src.wav")
                sf.write(src, signal(rate, channels, seed=100 + i), rate, subtype="FLOAT")
                dst = os.path.join(tmp, name)
                subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-map_metadata", "-1",
                                "-fflags", "+bitexact", "-flags:a", "+bitexact"] + args + [dst],
                               check=True)
                ref, r, c = ffmpeg_reference(dst)
                with open(dst, "rb") as f:
                    add(name, f.read(), ref, r, c, "ffmpeg")
    else:
        print("ffmpeg not found: FFmpeg cases skipped (apt-get install ffmpeg)")
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"{len(index)} audio files in {out}")
