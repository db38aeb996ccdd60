#!/usr/bin/env python3
"""Checks //core/tokenizer against the Python `tokenizers` package on a tokenizer.json
(default: models/default/tokenizer.json): encode ids and decoded text, case by case, over
KJV-style text, chat-formatted prompts, the special tokens, and mixed-script edge cases.

Usage (from the repository root):
    bazel build //tools/default_model:tokenizer_check
    python3 tools/default_model/check_tokenizer.py [--tokenizer models/default/tokenizer.json]
"""
import argparse
import random
import subprocess
import sys

from tokenizers import Tokenizer

CASES = [
    "Once upon a time", "In the beginning God created the heaven and the earth.",
    "And the king said unto him, Go thy way; and he went.",
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHello!<|im_end|>\n"
    "<|im_start|>assistant\n",
    "<|endoftext|><|im_end|>x<|im_start|>", "Hello, my dog is cute. 日本語 🚀  spaces\tand\nnewlines",
    "I'm sure you'll love it; they've said it's what we'd do. DON'T SHOUT!", "   leading and trailing   ",
    "numbers 1234567 and 3.14159, dates 2026-11-29", "\n\n\nline\r\nbreaks\n", "",
    "Le cœur a ses raisons que la raison ne connaît point.", "Größenwahn; Съешь же ещё; Καλημέρα",
    "tabs\t\tand  double  spaces  ", "a" * 300, "ﬁ ligature Å é e\u0301 (NFC)",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", default="models/default/tokenizer.json")
    ap.add_argument("--binary", default="bazel-bin/tools/default_model/tokenizer_check")
    ap.add_argument("--kjv", default="/tmp/oxinfer_default_model/kjv.txt")
    args = ap.parse_args()
    tok = Tokenizer.from_file(args.tokenizer)
    cases = list(CASES)
    try:
        lines = open(args.kjv).read().splitlines()
        rng = random.Random(1)
        cases += [" ".join(l.split(" ", 1)[1] for l in rng.sample(lines, 3)) for _ in range(300)]
    except OSError:
        print("(no %s: KJV cases skipped)" % args.kjv)
    rng = random.Random(2)
    vocab = tok.get_vocab_size()
    id_cases = [[rng.randrange(vocab) for _ in range(rng.randint(1, 40))] for _ in range(200)]
    cases = [c for c in cases if "\0" not in c]
    out = subprocess.run([args.binary, args.tokenizer], input="\0".join(cases).encode() + b"\0",
                         capture_output=True, check=True).stdout.decode().split("\n")
    bad = 0
    for text, line in zip(cases, out):
        ids_s, dec_hex = line.split("\t")
        got = [int(x) for x in ids_s.split()] if ids_s else []
        want = tok.encode(text, add_special_tokens=False).ids
        want_dec = tok.decode(want, skip_special_tokens=False)
        if got != want or bytes.fromhex(dec_hex).decode("utf-8", "replace") != want_dec:
            bad += 1
            print("MISMATCH %r\n  c++ %s\n  py  %s" % (text[:80], got[:20], want[:20]))
    print("%d encode cases, %d mismatches" % (len(cases), bad))
    # Decoding arbitrary id sequences (may split UTF-8) is covered by //tests/tokenizer; here
    # we only check the decode of encodings above.
    del id_cases
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
