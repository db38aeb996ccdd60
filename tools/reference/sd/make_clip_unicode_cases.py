#!/usr/bin/env python3
"""Non-ASCII prompts for the SD CLIP tokenizer: what transformers'
CLIPTokenizer (tokenizers backend: NFC, whitespace runs to one space,
Lowercase, the CLIP split on \\p{L} / \\p{N}, byte-level BPE) gives on the
committed fixture vocabularies (tests/models/sd/testdata/sd{1,2}/tokenizer).
Accents precomposed and decomposed, curly quotes, emoji with modifiers and
joiners, scripts whose vowel signs are marks, not letters, Unicode spaces,
non-ASCII digits, case mappings that change length, combining marks newer
than tokenizers' Unicode 9.0 normalisation data.

    pip install -r tools/tokenizer/requirements.txt
    python3 tools/reference/sd/make_clip_unicode_cases.py

Writes tests/models/sd/testdata/tokenizer_unicode_cases_{sd1,sd2}.json
([{"text", "ids"}], as tokenizer_cases_*.json).
"""
import json
import os

import transformers
from transformers import CLIPTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "..", "..", "tests", "models", "sd", "testdata")
MAX_LEN = 77

CASES = [
    "a café in the rain",
    "a cafe\u0301 in the rain",  # decomposed: NFC composes it
    "\u201ca dog\u201d, \u2018its\u2019 toy \u2014 really\u2026",
    "l\u2019oiseau d\u2019or",
    "an astronaut \U0001F680 riding a horse \U0001F40E",
    "a family \U0001F468\u200D\U0001F469\u200D\U0001F467 waving \U0001F44B\U0001F3FD",
    "a heart \u2764\ufe0f and a flag \U0001F1EF\U0001F1F5",
    "STRASSE Stra\u00dfe \u0130stanbul \u03a3\u039f\u03a6\u039f\u03a3 \u1e9e",
    "\u0391\u03b8\u03ae\u03bd\u03b1 \u039c\u03a5\u039a\u0397\u039d\u0395\u03a3",
    "\u0395\u03bb\u03bb\u03ac\u03b4\u03b1 \u0421\u0430\u043d\u043a\u0442-\u041f\u0435\u0442\u0435\u0440\u0431\u0443\u0440\u0433",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8 \u4e2d\u6587 \ud55c\uad6d\uc5b4 \u1100\u1161\u11a8",
    "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e",  # Devanagari: signs are marks
    "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645 \u0661\u0662\u0663",
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35 \u05e9\u05dc\u05d5\u05dd",
    "tabs\tand\u00a0no-break\u2003em\u3000ideographic\u2028line\u200bzero\ufeffbom",
    "\u0661\u0662 \uff11\uff12\uff13 \u00b2\u00b3 \u2163 \u00bd \u2460",
    "\uff21\uff22\uff23 \ufb01ne \u2126 \u212b \u00c5",
    "a\u0301\u0316 e\u0323\u0302 a\u1df6\u0301 a\U00010f46\u0301",
    "\u01c4\u01c5\u01c6 \u1f88 \u0149",
    "x\u0300\u0300\u0300\u0300\u0300 \u0338 \u20dd",
    "photo, 4k, high-detail; (masterpiece:1.2) [blurry] \u00d7 \u00f7 \u00b0",
    "don\u2019t it's we'll they\u2019re",
    "\u00c9COLE \u00c0 PARIS, \u00d1AND\u00da",
    "\u1e00\u1e01\u0345\u0399",
]


def main():
    for model in ("sd1", "sd2"):
        tok = CLIPTokenizer.from_pretrained(os.path.join(TESTDATA, model, "tokenizer"))
        cases = []
        for text in CASES:
            ids = tok(text, padding="max_length", max_length=MAX_LEN, truncation=True).input_ids
            cases.append({"text": text, "ids": ids})
        path = os.path.join(TESTDATA, f"tokenizer_unicode_cases_{model}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"transformers": transformers.__version__, "cases": cases}, f, indent=1,
                      ensure_ascii=False)
            f.write("\n")
        print(path, len(cases))


if __name__ == "__main__":
    main()
