#!/usr/bin/env python3
"""Converts the project's tiny Qwen 3.5 and Gemma 4 fixture checkpoints to GGUF
with llama.cpp's own converter (convert_hf_to_gguf.py and its gguf-py), for
//tests/gguf:gguf_model_test (logits from the .gguf equal to the folder's).

The converter and gguf-py come from the llama.cpp tree vendored in the PyPI
source distribution llama-cpp-python 0.3.36 (the tree docs/peers.md used),
sha256 pinned below; nothing else of it is used.

The fixtures have no tokenizer: the script gives each a small one cut from the
real tokenizers in ../shared/data/tokenizers (the first ids and the merges
among them, plus the special tokens the config names), written next to the
GGUFs as <name>.tokenizer.json so the C++ test compares the ids of the GGUF's
embedded tokenizer with the HF tokenizer.json the converter read.

One deviation from a plain converter run: a cut vocabulary cannot match the
hash llama.cpp uses to recognise a BPE pre-tokenizer (it hashes the ids of a
check string), so get_vocab_base_pre is told the name the real Qwen 3.5
tokenizer gets ("qwen35"). Every tensor and hyperparameter is the converter's.

  python3 -m venv --system-site-packages /tmp/cv && /tmp/cv/bin/pip install \
      torch transformers==5.24.0 safetensors numpy sentencepiece
  pip download llama-cpp-python==0.3.36 --no-deps --no-binary :all: -d /tmp/lcp
  /tmp/cv/bin/python tools/reference/gguf/make_model_ggufs.py /tmp/lcp/llama_cpp_python-0.3.36.tar.gz
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
OUT = os.path.join(ROOT, "tests/models/qwen35/testdata/gguf")
SHARED = os.path.join(os.environ.get("OXINFER_SHARED", os.path.join(ROOT, "../shared")), "data/tokenizers")

# (fixture folder, output name, outtypes)
FIXTURES = [
    ("tests/models/qwen35/testdata/tiny_tied", "tiny_tied", ["bf16", "q8_0"]),
    ("tests/models/qwen35/testdata/tiny_untied", "tiny_untied", ["f32", "q8_0"]),
]


def extract_converter(sdist, work):
    digest = hashlib.sha256(open(sdist, "rb").read()).hexdigest()
    if digest != SDIST_SHA256:
        sys.exit(f"{sdist}: sha256 {digest}, expected {SDIST_SHA256}")
    prefix = "llama_cpp_python-0.3.36/vendor/llama.cpp/"
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and (
            m.name.startswith(prefix + "gguf-py/") or m.name.startswith(prefix + "conversion/")
            or m.name == prefix + "convert_hf_to_gguf.py")]
        tar.extractall(work, members=members, filter="data")
    return os.path.join(work, prefix)


QWEN35_REGEX = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}|"
                " ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")


def qwen_tokenizer(vocab_size, config):
    """The real Qwen 3 tokenizer cut to vocab_size ids: the 256 byte symbols and
    the merges that follow them in rank order, then special tokens at the top."""
    real = json.load(open(os.path.join(SHARED, "qwen3/tokenizer.json")))
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>",
                "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]
    t = config.get("text_config", config)
    named = {config.get("vision_start_token_id"): "<|vision_start|>",
             config.get("vision_end_token_id"): "<|vision_end|>",
             config.get("image_token_id"): "<|image_pad|>",
             config.get("video_token_id"): "<|video_pad|>",
             t.get("eos_token_id"): "<|im_end|>"}
    named = {k: v for k, v in named.items() if k is not None}
    rest = [s for s in specials if s not in named.values()]
    n_normal = vocab_size - len(specials)
    ids = sorted(set(range(n_normal, vocab_size)) - set(named))
    special_ids = dict(named)
    special_ids.update(zip(ids, rest))
    inv = {i: s for s, i in real["model"]["vocab"].items()}
    vocab = {inv[i]: i for i in range(n_normal)}
    merges = [m for m in real["model"]["merges"][: n_normal - 256]
              if "".join(m) in vocab and m[0] in vocab and m[1] in vocab]
    tok = dict(real)
    # Qwen 3.5's own pre-tokenizer (Qwen 3's with \p{M} beside \p{L}).
    tok["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": QWEN35_REGEX}
    tok["model"] = dict(real["model"], vocab=vocab, merges=merges)
    tok["added_tokens"] = [
        {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": not s.endswith("think>")}
        for i, s in sorted(special_ids.items())]
    real_cfg = json.load(open(os.path.join(SHARED, "qwen3/tokenizer_config.json")))
    tok_cfg = {"tokenizer_class": "Qwen2Tokenizer", "bos_token": None,
               "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>",
               "add_bos_token": False, "chat_template": real_cfg["chat_template"],
               "added_tokens_decoder": {str(a["id"]): a for a in tok["added_tokens"]}}
    return tok, tok_cfg


def convert(llama, fixture, name, outtypes):
    src = os.path.join(ROOT, fixture)
    config = json.load(open(os.path.join(src, "config.json")))
    vocab_size = config.get("text_config", config)["vocab_size"]
    with tempfile.TemporaryDirectory() as folder:
        for f in ("config.json", "generation_config.json", "model.safetensors",
                  "model.safetensors.index.json"):
            if os.path.exists(os.path.join(src, f)):
                shutil.copy(os.path.join(src, f), folder)
        tok, tok_cfg = qwen_tokenizer(vocab_size, config)
        json.dump(tok, open(os.path.join(folder, "tokenizer.json"), "w"), ensure_ascii=False)
        json.dump(tok_cfg, open(os.path.join(folder, "tokenizer_config.json"), "w"),
                  ensure_ascii=False, indent=1)
        shutil.copy(os.path.join(folder, "tokenizer.json"),
                    os.path.join(OUT, f"{name}.tokenizer.json"))
        for outtype in outtypes:
            out = os.path.join(OUT, f"{name}.{outtype}.gguf")
            run = (
                "import sys; sys.path.insert(0, %r); sys.path.insert(0, %r)\n"
                "sys.argv = ['convert_hf_to_gguf.py', '--outtype', %r, '--outfile', %r, %r]\n"
                "import conversion.base as b\n"
                "b.TextModel.get_vocab_base_pre = lambda self, tokenizer: 'qwen35'\n"
                "import convert_hf_to_gguf\nconvert_hf_to_gguf.main()\n"
                % (os.path.join(llama, "gguf-py"), llama, outtype, out, folder))
            subprocess.run([sys.executable, "-c", run], check=True, cwd=llama)
            print("wrote", out, os.path.getsize(out))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        llama = extract_converter(sys.argv[1], work)
        for fixture, name, outtypes in FIXTURES:
            convert(llama, fixture, name, outtypes)


if __name__ == "__main__":
    main()
