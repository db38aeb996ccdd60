#!/usr/bin/env python3
"""Writes the scripted test model's tokenizer: byte-level, one token per byte
(id = the byte's value, no merges), then the special tokens of Gemma 4's and
Qwen 3.5's chat and tool formats from id 256 on. A test writes a model reply
as text and the ids follow from its bytes (tests/engine/scripted_model_plugin.cc).

python3 tools/reference/tools/make_byte_tokenizer.py tests/engine/testdata/byte_tokenizer
(needs the `tokenizers` package, which checks that the file loads and round-trips).
"""
import json
import os
import sys

SPECIALS = ["<bos>", "<eos>", "<pad>", "<|turn>", "<turn|>", "<|tool_call>", "<tool_call|>",
            "<|\"|>", "<|tool_response>", "<tool_response|>", "<|tool>", "<tool|>", "<|channel>",
            "<channel|>", "<|think|>", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<unk>",
            "<mask>"]


def bytes_to_unicode():
    """GPT-2's byte-to-character table, as tokenizers' ByteLevel uses it."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


def main(out_dir):
    table = bytes_to_unicode()
    vocab = {table[b]: b for b in range(256)}
    added = []
    for i, tok in enumerate(SPECIALS):
        vocab[tok] = 256 + i
        added.append({"id": 256 + i, "content": tok, "single_word": False, "lstrip": False,
                      "rstrip": False, "normalized": False, "special": True})
    doc = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                          "use_regex": False},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                    "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": []},
    }
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "tokenizer.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    from tokenizers import Tokenizer  # noqa: PLC0415 - only to check the file
    tok = Tokenizer.from_file(path)
    text = "<|tool_call>call:f{x:<|\"|>Zürich 1+1<|\"|>}<tool_call|> ok"
    ids = tok.encode(text).ids
    assert ids[0] == 256 + SPECIALS.index("<|tool_call>"), ids
    assert ids[6] == ord("f"), ids
    assert tok.decode(ids, skip_special_tokens=False) == text
    print(f"wrote {path}: {len(vocab)} tokens")


if __name__ == "__main__":
    main(sys.argv[1])
