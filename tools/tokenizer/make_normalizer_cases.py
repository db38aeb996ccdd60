#!/usr/bin/env python3
"""Unicode normalisation fixtures for //tests/tokenizer:normalizer_fixture_test.

tokenizers' NFC/NFD/NFKC/NFKD normalizers (Rust, unicode-normalization-
alignments) carry Unicode 9.0 data, older than ICU's: a combining mark added
later counts as a starter there (not reordered, blocks composition), and a
later character's decomposition is not applied. This writes, for every code
point with a non-zero combining class or a decomposition in Python's Unicode
data, inputs around it and what tokenizers' normalizers give, so that CI
checks the C++ normalizers against them without Python.

    pip install -r tools/tokenizer/requirements.txt
    python3 tools/tokenizer/make_normalizer_cases.py

Writes tests/tokenizer/testdata/normalizers.json.gz:
{"tokenizers": VERSION, "cases": {"NFC": [[in, out], ...], "NFD": ..., ...}}.
Deterministic (gzip without a timestamp).
"""
import gzip
import json
import os
import sys
import unicodedata

import tokenizers
from tokenizers import normalizers

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "tests", "tokenizer", "testdata", "normalizers.json.gz")


def inputs():
    marks, canon, compat = [], [], []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        if unicodedata.combining(c):
            marks.append(c)
        d = unicodedata.decomposition(c)
        if d:
            (compat if d.startswith("<") else canon).append(c)
    canonical = []
    for m in marks:
        # Reordering against a lower and a higher class, composition across it.
        canonical += ["a" + m + "\u0301", "e\u0323" + m]
    for c in canon:
        canonical += [c + "\u0301"]
    # Hangul syllables, algorithmic (a sample), and a text with several runs.
    canonical += [chr(0xAC00 + i) for i in range(0, 11172, 97)]
    canonical += ["\u1100\u1161\u11a8", "Cafe\u0301 \u212b \u1e9b\u0323 \ufb01"]
    compatibility = canonical[::3] + compat
    return canonical, compatibility


def main():
    canonical, compatibility = inputs()
    cases = {}
    # The composed forms in full, the decomposed ones on every third input.
    for form, texts in (("NFC", canonical), ("NFD", canonical[::3]), ("NFKC", compatibility),
                        ("NFKD", compatibility[::3])):
        n = getattr(normalizers, form)()
        cases[form] = [[t, n.normalize_str(t)] for t in texts]
    doc = {"tokenizers": tokenizers.__version__, "python_unicode": unicodedata.unidata_version,
           "cases": cases}
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "wb") as f:
        f.write(gzip.compress(raw, compresslevel=9, mtime=0))
    print(f"{OUT}: {sum(len(v) for v in cases.values())} cases, {len(raw)} bytes raw", file=sys.stderr)


if __name__ == "__main__":
    main()
