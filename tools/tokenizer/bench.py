#!/usr/bin/env python3
"""Tokenizer speed: oxinfer (C++) against HuggingFace `tokenizers`, one thread each.

Builds a few MB of mixed text (Python source code with English comments and
docstrings, English license text, multilingual sentences, emoji, chat-formatted
turns), splits it into documents of about 8 KB, encodes every document once per
pass with both engines (warm-up pass, then the best of --repeats passes), checks
that both produce the same ids (checksum), and prints throughput and the ratio.

  bazel build //tools/tokenizer:tokenizer_bench
  python3 tools/tokenizer/bench.py            # both tokenizers
  python3 tools/tokenizer/bench.py --mb 4 --repeats 3 --only gemma3
"""

import argparse
import glob
import json
import os
import random
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_corpus  # noqa: E402


def build_text(mb, seed=7):
    rng = random.Random(seed)
    sources = []
    pydir = os.path.dirname(os.__file__)
    for path in sorted(glob.glob(os.path.join(pydir, "*.py")))[:200]:
        with open(path, encoding="utf-8", errors="replace") as f:
            sources.append(("code", f.read()))
    for path in sorted(glob.glob("/usr/share/common-licenses/*")):
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                sources.append(("prose", f.read()))
    target = int(mb * 1e6)
    docs, size = [], 0
    while size < target:
        r = rng.random()
        if r < 0.35:
            kind, text = rng.choice([s for s in sources if s[0] == "code"])
        elif r < 0.6:
            kind, text = rng.choice([s for s in sources if s[0] == "prose"])
        else:
            parts = []
            while sum(map(len, parts)) < 8000:
                q = rng.random()
                if q < 0.6:
                    parts.append(rng.choice(make_corpus.SENTENCES))
                elif q < 0.75:
                    parts.append(make_corpus.random_text(rng, rng.randint(5, 60)))
                elif q < 0.85:
                    parts.append(rng.choice(make_corpus.NUMBERS))
                else:
                    u, b = rng.choice(make_corpus.SENTENCES), rng.choice(make_corpus.CODE)
                    parts.append(f"<|im_start|>user\n{u}<|im_end|>\n<|im_start|>assistant\n{b}<|im_end|>\n")
                parts.append(rng.choice([" ", "\n", "\n\n", " ", ". "]))
            text = "".join(parts)
        start = rng.randrange(0, max(1, len(text) - 8000))
        doc = text[start:start + 8000].replace("\0", " ")
        docs.append(doc)
        size += len(doc.encode("utf-8"))
    return docs


def bench_hf(path, docs, repeats):
    from tokenizers import Tokenizer
    t0 = time.perf_counter()
    tok = Tokenizer.from_file(path)
    load_s = time.perf_counter() - t0
    checksum, tokens = 0, 0
    for d in docs:  # warm-up
        for i in tok.encode(d).ids:
            checksum = (checksum * 31 + i) & 0xFFFFFFFFFFFFFFFF
            tokens += 1
    best, best_cpu = 1e30, 1e30
    for _ in range(repeats):
        t1, c1 = time.perf_counter(), time.thread_time()
        for d in docs:
            tok.encode(d)
        best_cpu = min(best_cpu, time.thread_time() - c1)
        best = min(best, time.perf_counter() - t1)
    return {"engine": "tokenizers", "load_s": load_s, "tokens": tokens, "checksum": checksum,
            "encode_s": best, "encode_cpu_s": best_cpu}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizers", default=os.path.join(os.path.dirname(repo), "shared", "data", "tokenizers"))
    ap.add_argument("--bench-bin", default=os.path.join(repo, "bazel-bin", "tools", "tokenizer", "tokenizer_bench"))
    ap.add_argument("--mb", type=float, default=4.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()

    docs = build_text(args.mb)
    nbytes = sum(len(d.encode("utf-8")) for d in docs)
    with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
        f.write("\0".join(docs).encode("utf-8"))
        text_path = f.name
    print(f"text: {nbytes / 1e6:.2f} MB in {len(docs)} documents; one thread each; best of {args.repeats}")
    try:
        for name in ("qwen3", "gemma3"):
            if args.only and name != args.only:
                continue
            path = os.path.join(args.tokenizers, name, "tokenizer.json")
            out = subprocess.run(["taskset", "-c", "0", args.bench_bin, path, text_path, str(args.repeats)],
                                 check=True, capture_output=True, text=True).stdout
            ours = json.loads(out)
            hf = bench_hf(path, docs, args.repeats)
            same = ours["checksum"] == hf["checksum"] and ours["tokens"] == hf["tokens"]
            ours_mbs = nbytes / 1e6 / ours["encode_s"]
            hf_mbs = nbytes / 1e6 / hf["encode_s"]
            print(f"{name}: tokens {ours['tokens']} (ids identical: {same})")
            print(f"  oxinfer    load {ours['load_s']:.3f} s  encode {ours['encode_s']:.3f} s "
                  f"(cpu {ours['encode_cpu_s']:.3f} s)  {ours_mbs:.2f} MB/s")
            print(f"  tokenizers load {hf['load_s']:.3f} s  encode {hf['encode_s']:.3f} s "
                  f"(cpu {hf['encode_cpu_s']:.3f} s)  {hf_mbs:.2f} MB/s")
            print(f"  speed ratio oxinfer/tokenizers: {hf['encode_s'] / ours['encode_s']:.2f}x wall, "
                  f"{hf['encode_cpu_s'] / ours['encode_cpu_s']:.2f}x thread cpu time")
            if not same:
                sys.exit(f"{name}: ids differ between engines")
    finally:
        os.unlink(text_path)


if __name__ == "__main__":
    main()
