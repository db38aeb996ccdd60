"""Writes a tiny SentencePiece-style tokenizer (tokenizer.json) that fits the
256-entry vocabulary of the Gemma 4 test fixtures, plus a tokenizer_config.json
with a Gemma-4-style chat template, so the CLI can be run end to end on a
fixture. Ids 0-3 and 105/106 are Gemma's specials at Gemma's ids; the rest are
characters and BPE merges learnt from a small built-in text.

python3 tools/reference/cli/make_tiny_tokenizer.py tests/cli/testdata/tiny_tokenizer
(needs the `tokenizers` package to check the file loads and round-trips).
"""
import collections
import json
import os
import sys

TEXT = """Once upon a time there was a little model that ran on the computer of
its user. It read the prompt, thought for a while, and wrote an answer. The
answer was short, but it was the best the little model could do. Hello, world!
What is the time? It is late in the evening, and the sun is going down."""

SPECIALS = {0: "<pad>", 1: "<eos>", 2: "<bos>", 3: "<unk>", 105: "<|turn>", 106: "<turn|>"}
VOCAB_SIZE = 256
META = "\u2581"


def main(out_dir):
    vocab = dict((tok, i) for i, tok in SPECIALS.items())
    free = [i for i in range(VOCAB_SIZE) if i not in SPECIALS]
    chars = sorted(set(TEXT.replace(" ", META).replace("\n", META)) | set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?'\":;-()" + META))
    for c in chars:
        vocab[c] = free.pop(0)
    # Plain BPE training on the text: merge the most frequent adjacent pair.
    words = collections.Counter(
        tuple(META + w) for w in TEXT.replace("\n", " ").split(" ") if w)
    merges = []
    while free:
        pairs = collections.Counter()
        for w, n in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += n
        if not pairs:
            break
        (a, b), count = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        if count < 2:
            break
        merges.append(f"{a} {b}")
        vocab[a + b] = free.pop(0)
        new_words = collections.Counter()
        for w, n in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new_words[tuple(out)] += n
        words = new_words
    for i in free:  # unused ids keep the vocabulary dense
        vocab[f"<unused{i}>"] = i

    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, t in sorted(SPECIALS.items())]
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": META},
        "pre_tokenizer": None,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<bos>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<bos>": {"id": "<bos>", "ids": [2], "tokens": ["<bos>"]}},
        },
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": META}, "content": " "},
            {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
    template = ("{{ bos_token }}{% for m in messages %}<|turn>{{ m['role'] }}\n"
                "{{ m['content'] | trim }}<turn|>\n{% endfor %}"
                "{% if add_generation_prompt %}<|turn>model\n{% endif %}")
    config = {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>",
              "unk_token": "<unk>", "chat_template": template}
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "tokenizer.json"), "w") as f:
        json.dump(tokenizer, f, ensure_ascii=False, indent=1)
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w") as f:
        json.dump(config, f, ensure_ascii=False, indent=1)

    from tokenizers import Tokenizer  # check it loads and round-trips
    t = Tokenizer.from_file(os.path.join(out_dir, "tokenizer.json"))
    enc = t.encode("Hello, world! Once upon a time.")
    print(len(vocab), "entries,", len(merges), "merges; ids:", enc.ids)
    print("decoded:", repr(t.decode(enc.ids, skip_special_tokens=True)))


if __name__ == "__main__":
    main(sys.argv[1])
