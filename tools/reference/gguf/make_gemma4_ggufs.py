#!/usr/bin/env python3
"""Converts the tiny Gemma 4 fixture checkpoints (tests/models/gemma4/testdata)
to GGUF with llama.cpp's own converter, the same pinned tree as
make_model_ggufs.py (llama-cpp-python 0.3.36's sdist, its gguf-py), for
//tests/models/gemma4:gemma4_gguf_test.

The fixtures have no tokenizer: each gets one cut from the real Gemma 3
tokenizer.json in ../shared/data/tokenizers/gemma3 (SentencePiece-style BPE
with byte fallback, as Gemma 4's): Gemma's specials at Gemma 4's ids (<pad>,
<eos>, <bos>, <unk>, <mask>, <|channel> / <channel|> at 100 / 101, <|turn> /
<turn|> at 105 / 106), "\n", the byte tokens of a few CJK / emoji
characters, the printable ASCII characters and U+2581, then the real merges
among them in rank order until the fixture's vocabulary is full. It is written
next to the GGUFs as <name>.tokenizer.json (the C++ test compares the ids of
the GGUF's embedded tokenizer with it and with the ids `tokenizers` gives
on TEXTS, in tokenizer_reference.json). The chat template is the Gemma 4 one
of tests/models/gemma4/testdata/media/vision_tiny. Unlike the Qwen 3.5 run no
deviation from a plain converter run is needed (Gemma 4's tokenizer model has
no pre-tokenizer hash).

  python3 -m venv /work/venvs/gguf && /work/venvs/gguf/bin/pip install \
      torch==2.15.0 transformers==5.24.0 safetensors==0.8.0 numpy==2.4.6 sentencepiece
  pip download llama-cpp-python==0.3.36 --no-deps --no-binary :all: -d /tmp/lcp
  /work/venvs/gguf/bin/python tools/reference/gguf/make_gemma4_ggufs.py \
      /tmp/lcp/llama_cpp_python-0.3.36.tar.gz
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from make_model_ggufs import ROOT, extract_converter  # noqa: E402

OUT = os.path.join(ROOT, "tests/models/gemma4/testdata/gguf")
SHARED = os.path.join(os.environ.get("OXINFER_SHARED", os.path.join(ROOT, "../shared")),
                      "data/tokenizers")
TEMPLATE = os.path.join(ROOT, "tests/models/gemma4/testdata/media/vision_tiny/chat_template.jinja")

# (fixture folder, outtypes)
FIXTURES = [
    ("e2b_like", ["bf16", "q8_0"]),
    ("keqv_sharded", ["f32"]),
    ("text_only_saved", ["f32", "q8_0"]),
]

META = "\u2581"
SPECIALS = {0: "<pad>", 1: "<eos>", 2: "<bos>", 3: "<unk>", 4: "<mask>",
            100: "<|channel>", 101: "<channel|>", 105: "<|turn>", 106: "<turn|>"}
BYTE_CHARS = "\u65e5\U0001f680"  # 日 🚀: their UTF-8 bytes as <0xXX> tokens

# The tokenizer check's texts (ids from the `tokenizers` package on the
# tokenizer.json the converter read, in tokenizer_reference.json): words the
# cut vocabulary merges, byte fallback (日, 🚀) and <unk> runs (every other
# non-ASCII character), digits, whitespace runs, special tokens inside text.
TEXTS = [
    "",
    "Hello, world! The quick brown fox jumps over the lazy dog.",
    "  leading spaces, trailing\t\ttabs  \n\n\nnewlines\r\n",
    "in the and on at re er st en or an ing tion",
    "numbers 1 22 333 4444 3.14159 1e-5 0x1F",
    "caf\u00e9 na\u00efve e\u0301 \u0928\u092e\u0938\u094d\u0924\u0947",
    "\u65e5\u672c\u8a9e \u65e5\u65e5 \U0001f680\U0001f680 \U0001f999 \u4e2d\u6587",
    "I've been 'told he's there, 'RE you sure?",
    "<bos><|turn>user\nWhat is 2+2?<turn|>\n<|turn>model\n<|channel>thought\n<channel|>4<turn|>",
    "<mask> <pad><unk><eos> <|turn <turn|",
    "code: def f(x):\n    return x**2  # square\n",
]


def gemma_tokenizer(vocab_size):
    real = json.load(open(os.path.join(SHARED, "gemma3/tokenizer.json"), encoding="utf-8"))
    specials = {i: s for i, s in SPECIALS.items() if i < vocab_size}
    base = ["\n"] + sorted({"<0x%02X>" % b for c in BYTE_CHARS for b in c.encode("utf-8")})
    base += [META] + [chr(c) for c in range(33, 127)]
    real_vocab = real["model"]["vocab"]
    assert all(t in real_vocab for t in base)
    free = [i for i in range(vocab_size) if i not in specials]
    vocab = {s: i for i, s in specials.items()}
    for t in base:
        vocab[t] = free.pop(0)
    merges = []
    for a, b in real["model"]["merges"]:
        if not free:
            break
        if a in vocab and b in vocab and a + b not in vocab and a + b in real_vocab:
            merges.append([a, b])
            vocab[a + b] = free.pop(0)
    assert not free, "not enough merges"
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, s in sorted(specials.items())]
    tok = dict(real)
    tok["added_tokens"] = added
    tok["model"] = dict(real["model"], vocab=vocab, merges=merges)
    extra = [s for i, s in sorted(specials.items()) if i >= 4]
    tok_cfg = {"tokenizer_class": "GemmaTokenizer", "bos_token": "<bos>", "eos_token": "<eos>",
               "pad_token": "<pad>", "unk_token": "<unk>", "mask_token": "<mask>",
               "add_bos_token": True, "add_eos_token": False,
               "extra_special_tokens": extra,
               "chat_template": open(TEMPLATE, encoding="utf-8").read(),
               "added_tokens_decoder": {str(a["id"]): a for a in added}}
    return tok, tok_cfg


def convert(llama, fixture, outtypes):
    src = os.path.join(ROOT, "tests/models/gemma4/testdata", fixture)
    config = json.load(open(os.path.join(src, "config.json")))
    vocab_size = config.get("text_config", config)["vocab_size"]
    with tempfile.TemporaryDirectory() as folder:
        for f in os.listdir(src):
            if f.startswith("model") or f in ("config.json", "generation_config.json"):
                shutil.copy(os.path.join(src, f), folder)
        tok, tok_cfg = gemma_tokenizer(vocab_size)
        json.dump(tok, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"),
                  ensure_ascii=False)
        json.dump(tok_cfg, open(os.path.join(folder, "tokenizer_config.json"), "w",
                                encoding="utf-8"), ensure_ascii=False, indent=1)
        shutil.copy(os.path.join(folder, "tokenizer.json"),
                    os.path.join(OUT, f"{fixture}.tokenizer.json"))
        for outtype in outtypes:
            out = os.path.join(OUT, f"{fixture}.{outtype}.gguf")
            run = (
                "import sys; sys.path.insert(0, %r); sys.path.insert(0, %r)\n"
                "sys.argv = ['convert_hf_to_gguf.py', '--outtype', %r, '--outfile', %r,"
                " '--model-name', %r, %r]\n"
                "import convert_hf_to_gguf\nconvert_hf_to_gguf.main()\n"
                % (os.path.join(llama, "gguf-py"), llama, outtype, out, fixture, folder))
            subprocess.run([sys.executable, "-c", run], check=True, cwd=llama)
            print("wrote", out, os.path.getsize(out))
        from tokenizers import Tokenizer
        hf = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        return [{"text": x, "ids": hf.encode(x).ids} for x in TEXTS]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        llama = extract_converter(sys.argv[1], work)
        reference = {}
        for fixture, outtypes in FIXTURES:
            reference[fixture] = convert(llama, fixture, outtypes)
    with open(os.path.join(OUT, "tokenizer_reference.json"), "w", encoding="utf-8") as f:
        json.dump(reference, f, ensure_ascii=False, indent=0)


if __name__ == "__main__":
    main()
