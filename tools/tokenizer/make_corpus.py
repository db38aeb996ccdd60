#!/usr/bin/env python3
"""Generates the tokenizer conformance fixtures under tests/tokenizer/testdata.

For each tokenizer (Qwen 3, Gemma 3) it writes <name>.bin.gz holding a
deterministic corpus of inputs (raw bytes, possibly invalid UTF-8) with the
ids that the Python `tokenizers` package produces and the decoding of those
ids, plus random id sequences with their decodings.

Invalid UTF-8: `tokenizers` takes a Python str, so every input is first
decoded with bytes.decode("utf-8", errors="replace") (each maximal ill-formed
subsequence becomes U+FFFD). The C++ tokenizer does the same substitution
inside Encode(), so the test feeds it the raw bytes.

File format (all integers little-endian uint32, then gzip):
  b"OXTK" version(=1)
  n_encode, then per case: str input, ids, str decode, str decode_skip_special
  n_decode, then per case: ids, str decode, str decode_skip_special
  str = length + bytes; ids = count + int32 values.

Usage: python3 tools/tokenizer/make_corpus.py [--tokenizers DIR] [--out DIR]
"""

import argparse
import gzip
import json
import os
import random
import struct

SEED = 20261129

SENTENCES = [
    "Hello, my dog is cute. 日本語 🚀  spaces\tand\nnewlines",
    "The quick brown fox jumps over the lazy dog.",
    "I'm sure you'll love it; they've said it's what we'd do. DON'T SHOUT! I'M HERE, YOU'RE THERE.",
    "Le cœur a ses raisons que la raison ne connaît point. Ça va? Où est l'hôpital?",
    "Größenwahn ist keine Straße; Fußgänger überqueren die Brücke.",
    "¿Dónde está la biblioteca? ¡Qué día tan bonito! Mañana será otro día.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Καλημέρα κόσμε!",
    "نص حكيم له سر قاطع وذو شأن عظيم مكتوب على ثوب أخضر ومغلف بجلد أزرق",
    "דג סקרן שט בים מאוכזב ולפתע מצא חברה",
    "ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले विष्णुवतार भगवान श्रीराम",
    "আমি বাংলায় গান গাই। আমার সোনার বাংলা, আমি তোমায় ভালোবাসি।",
    "யாமறிந்த மொழிகளிலே தமிழ்மொழி போல் இனிதாவது எங்கும் காணோம்",
    "เป็นมนุษย์สุดประเสริฐเลิศคุณค่า กว่าบรรดาฝูงสัตว์เดรัจฉาน",
    "我能吞下玻璃而不伤身体。中华人民共和国成立于1949年10月1日。",
    "いろはにほへと ちりぬるを わかよたれそ つねならむ。東京都渋谷区、カタカナ。",
    "다람쥐 헌 쳇바퀴에 타고파. 안녕하세요, 세계!",
    "Tiếng Việt có dấu: Trăm năm trong cõi người ta, chữ tài chữ mệnh khéo là ghét nhau.",
    "ქართული ენა ძალიან ლამაზია. Հայերեն լեզու. ኢትዮጵያ አማርኛ ቋንቋ።",
    "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.",
    "Pchnąć w tę łódź jeża lub ośm skrzyń fig. Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "Árvíztűrő tükörfúrógép. Şişli'de bir ağaç. Ñandú. Ångström. Œuvre.",
    "ᚠᛇᚻ᛫ᛒᛦᚦ᛫ᚠᚱᚩᚠᚢᚱ᛫ᚠᛁᚱᚪ᛫ᚷᛖᚻᚹᛦᛚᚳᚢᛗ",
    "𝕿𝖍𝖊 𝖖𝖚𝖎𝖈𝖐 𝐛𝐫𝐨𝐰𝐧 𝒻𝑜𝓍 — math alphanumerics ∀x∈ℝ: x²≥0, ∑ᵢ aᵢ ≈ ∫f(x)dx",
    "Emoji: 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🇯🇵🇫🇷 1️⃣ ❤️‍🔥 🧑🏿‍💻 😀😃😄😁",
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ and halfwidth ｶﾀｶﾅ",
    "Combining: e\u0301 a\u0308 o\u0302\u0323 n\u0303 A\u030a \u1100\u1161\u11a8 \u0041\u030a vs \u00c5 \u212b",
    "ſtrange long s and 'ſ contraction, Kelvin \u212a, ﬁ ligature, ẞ capital sharp s",
]

CODE = [
    "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n",
    "#include <stdio.h>\nint main(void) {\n\tprintf(\"%d\\n\", 42);\n\treturn 0;\n}\n",
    "for (auto& [k, v] : map) { std::cout << k << \" => \" << v << '\\n'; }",
    '{"name": "oxinfer", "version": [1, 2, 3], "nested": {"a": null, "b": true}}',
    "<html>\n  <body>\n    <div class=\"x\"><b>bold</b> <i>it</i></div>\n  </body>\n</html>",
    "SELECT id, name FROM users WHERE age >= 18 AND name LIKE '%son' ORDER BY id DESC;",
    "fn main() -> Result<(), Box<dyn Error>> {\n    let v: Vec<u32> = (0..10).collect();\n    Ok(())\n}",
    "$ ls -la /usr/lib | grep -E '^d' && echo \"done\" || exit 1",
    "x = [i**2 for i in range(10) if i % 2 == 0]  # squares\r\nprint(x)\r\n",
    "    \t  indented\t\ttabs   and    spaces   \n\n\n\n   trailing   ",
    "const f = async () => { await fetch(`https://example.com/api?q=${encodeURIComponent(q)}`); };",
    "\\begin{equation} E = mc^2 \\end{equation} % LaTeX",
]

WHITESPACE = [" ", "  ", "   ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2028", "\u2029",
              "\u000b", "\u000c", "\u0085", "\u2003", "\u202f", "\u205f", "\u1680", "\u200b"]

QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>",
                 "<|box_start|>", "<|vision_pad|>", "<tool_call>", "</tool_call>", "<think>",
                 "</think>", "<|fim_prefix|>", "<|file_sep|>"]
GEMMA_SPECIALS = ["<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>", "<pad>", "<unk>",
                  "<mask>", "[multimodal]", "<start_of_image>", "<end_of_image>",
                  "<image_soft_token>", "<unused0>", "<unused123>", "<unused6241>", "<table>",
                  "</td>", "<h1>", "<strong>", "<code>", "</code>", "<a>", "<bbox>", "\u2581\u2581",
                  "\u2581\u2581\u2581\u2581", "\t\t", "\n\n\n"]
PARTIALS = ["<|im_start", "<|im_end|", "<start_of_turn", "end_of_turn>", "<|", "|>", "<unused",
            "<unused99999>", "< start_of_turn >", "<START_OF_TURN>", "<|IM_START|>", "<<bos>>",
            "<0x41>", "<0xZZ>"]

NUMBERS = ["0", "42", "3.14159", "-273.15", "1,234,567.89", "1e-10", "6.022e23", "0xDEADBEEF",
           "12345678901234567890", "2026-11-29", "13:37:00", "+1 (555) 123-4567", "v1.2.3-rc.4",
           "١٢٣٤٥", "१२३", "½ ¾ ⅓", "Ⅻ", "①②③", "٣.١٤"]

SCRIPTS = [  # (low, high) code point ranges for random text
    (0x0041, 0x005A), (0x0061, 0x007A), (0x00C0, 0x024F), (0x0370, 0x03FF), (0x0400, 0x04FF),
    (0x0530, 0x058F), (0x0590, 0x05FF), (0x0600, 0x06FF), (0x0900, 0x097F), (0x0980, 0x09FF),
    (0x0B80, 0x0BFF), (0x0E00, 0x0E7F), (0x10A0, 0x10FF), (0x1100, 0x11FF), (0x1E00, 0x1EFF),
    (0x2000, 0x206F), (0x20A0, 0x20CF), (0x2190, 0x22FF), (0x2500, 0x257F), (0x3040, 0x30FF),
    (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xFF00, 0xFFEF), (0x1F300, 0x1F64F), (0x1F900, 0x1F9FF),
    (0x0300, 0x036F), (0x1D400, 0x1D7FF), (0x20000, 0x2A6DF), (0xE000, 0xE0FF), (0x0021, 0x007E),
]


def random_text(rng, n):
    out = []
    lo, hi = rng.choice(SCRIPTS)
    for _ in range(n):
        if rng.random() < 0.15:
            lo, hi = rng.choice(SCRIPTS)
        if rng.random() < 0.15:
            out.append(rng.choice(WHITESPACE))
        else:
            cp = rng.randint(lo, hi)
            if 0xD800 <= cp <= 0xDFFF:
                cp = 0xFFFD
            out.append(chr(cp))
    return "".join(out)


def random_ascii_word(rng, n):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'") for _ in range(n))


def invalid_utf8(rng):
    pieces = [b"\xff", b"\xfe", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xed\xa0\x80",
              b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\x80", b"\xbf\xbf",
              b"\xe6\x97", b"\xf0\x9f\x98", b"\xf0\x9f", b"\xc3", b"\xe2\x82", b"\xf8\x88\x80\x80\x80"]
    parts = []
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.4:
            parts.append(rng.choice(pieces))
        elif r < 0.7:
            parts.append(random_text(rng, rng.randint(1, 12)).encode("utf-8"))
        else:
            parts.append(bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 8))))
    return b"".join(parts)


def build_corpus():
    rng = random.Random(SEED)
    texts = []  # list of bytes

    def add(s):
        texts.append(s if isinstance(s, bytes) else s.encode("utf-8"))

    add("")
    for s in SENTENCES + CODE + NUMBERS:
        add(s)
        add(" " + s)
        add(s.upper())
        add(s + "\n")
    for w in WHITESPACE:
        for k in (1, 2, 3, 5, 17):
            add(w * k)
            add("a" + w * k + "b")
            add(w * k + "word")
            add("word" + w * k)
    # Runs of mixed whitespace around words.
    for _ in range(150):
        parts = []
        for _ in range(rng.randint(1, 8)):
            parts.append("".join(rng.choice(WHITESPACE) for _ in range(rng.randint(0, 6))))
            parts.append(rng.choice(["x", "hello", "42", "é", "日本", "!?", "'s", "don't", "🚀"]))
        add("".join(parts))
    # Special tokens embedded in text.
    for sp in QWEN_SPECIALS + GEMMA_SPECIALS + PARTIALS:
        add(sp)
        add("Hello" + sp + "world")
        add("Hello " + sp + " world")
        add(sp + sp)
        add(" " + sp + "\n")
    for _ in range(150):
        parts = []
        for _ in range(rng.randint(2, 8)):
            r = rng.random()
            if r < 0.35:
                parts.append(rng.choice(QWEN_SPECIALS + GEMMA_SPECIALS + PARTIALS))
            elif r < 0.7:
                parts.append(rng.choice(SENTENCES)[: rng.randint(0, 40)])
            else:
                parts.append(rng.choice(WHITESPACE))
        add("".join(parts))
    # Chat-formatted transcripts.
    for i in range(30):
        user = rng.choice(SENTENCES)
        bot = rng.choice(SENTENCES + CODE)
        add(f"<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
            f"<|im_start|>assistant\n<think>\n\n</think>\n\n{bot}<|im_end|>\n")
        add(f"<bos><start_of_turn>user\n{user}<end_of_turn>\n<start_of_turn>model\n{bot}<end_of_turn>\n")
    # Very long words and runs.
    for n in (50, 200, 1000, 3000):
        add("a" * n)
        add(random_ascii_word(rng, n))
        add("🚀" * (n // 10))
        add("日" * (n // 4))
        add("-" * n)
        add("1234567890" * (n // 10))
        add(" " * n + "x")
        add("\n" * (n // 10) + "y")
    add("https://example.com/" + "/".join(random_ascii_word(rng, 12) for _ in range(30)) + "?a=1&b=2")
    add("".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(2000)))
    # Numbers in context.
    for _ in range(120):
        add(" ".join(rng.choice(NUMBERS + ["items", "cost", "$", "%", "€"]) for _ in range(rng.randint(1, 10))))
    # Random Unicode text from many scripts.
    for _ in range(700):
        add(random_text(rng, rng.randint(1, 80)))
    # Random mixtures of everything.
    for _ in range(400):
        parts = []
        for _ in range(rng.randint(1, 6)):
            r = rng.random()
            if r < 0.3:
                parts.append(rng.choice(SENTENCES))
            elif r < 0.45:
                parts.append(rng.choice(CODE))
            elif r < 0.6:
                parts.append(random_text(rng, rng.randint(1, 30)))
            elif r < 0.75:
                parts.append(rng.choice(WHITESPACE) * rng.randint(1, 4))
            elif r < 0.85:
                parts.append(rng.choice(QWEN_SPECIALS + GEMMA_SPECIALS))
            else:
                parts.append(rng.choice(NUMBERS))
        add("".join(parts))
    # Invalid UTF-8.
    for _ in range(250):
        add(invalid_utf8(rng))
    for s in SENTENCES[:10]:
        b = s.encode("utf-8")
        for cut in (1, 2, 3, len(b) // 2, len(b) - 1):
            add(b[:cut])
            add(b[cut:])
    return texts


def random_ids(rng, tok, vocab_size, byte_ids):
    out = []
    for _ in range(250):
        ids = []
        for _ in range(rng.randint(1, 16)):
            r = rng.random()
            if r < 0.35 and byte_ids:
                ids.append(rng.choice(byte_ids))
            elif r < 0.45:
                ids.append(rng.randint(vocab_size - 50, vocab_size + 30))  # incl. unknown ids
            else:
                ids.append(rng.randint(0, vocab_size - 1))
        out.append(ids)
    # Multibyte characters split across tokens.
    for s in ["é", "日本語", "🚀", "👨‍👩‍👧", "ไทย"]:
        ids = tok.encode(s, add_special_tokens=False).ids
        out.append(ids)
        out.append(ids[:-1])
        out.append(ids[1:])
    return out


def write_str(f, b):
    f.write(struct.pack("<I", len(b)))
    f.write(b)


def write_ids(f, ids):
    f.write(struct.pack("<I", len(ids)))
    f.write(struct.pack("<%di" % len(ids), *ids))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizers", default=os.path.join(os.path.dirname(repo), "shared", "data", "tokenizers"))
    ap.add_argument("--out", default=os.path.join(repo, "tests", "tokenizer", "testdata"))
    args = ap.parse_args()

    from tokenizers import Tokenizer  # imported late: only needed to regenerate

    texts = build_corpus()
    print(f"corpus: {len(texts)} strings, {sum(map(len, texts))} bytes")
    os.makedirs(args.out, exist_ok=True)
    for name in ("qwen3", "gemma3"):
        path = os.path.join(args.tokenizers, name, "tokenizer.json")
        tok = Tokenizer.from_file(path)
        vocab = json.load(open(path, encoding="utf-8"))["model"]["vocab"]
        byte_ids = [vocab[f"<0x{b:02X}>"] for b in range(256) if f"<0x{b:02X}>" in vocab]
        if not byte_ids:  # byte-level: ids of the single-byte characters
            byte_ids = [i for t, i in vocab.items() if len(t) == 1]
        rng = random.Random(SEED + len(name))
        out_path = os.path.join(args.out, f"{name}.bin.gz")
        with gzip.GzipFile(out_path, "wb", mtime=0) as f:
            f.write(b"OXTK")
            f.write(struct.pack("<I", 1))
            f.write(struct.pack("<I", len(texts)))
            for b in texts:
                s = b.decode("utf-8", errors="replace")
                ids = tok.encode(s).ids
                write_str(f, b)
                write_ids(f, ids)
                write_str(f, tok.decode(ids, skip_special_tokens=False).encode("utf-8"))
                write_str(f, tok.decode(ids, skip_special_tokens=True).encode("utf-8"))
            id_cases = random_ids(rng, tok, tok.get_vocab_size(with_added_tokens=True), byte_ids)
            f.write(struct.pack("<I", len(id_cases)))
            for ids in id_cases:
                write_ids(f, ids)
                write_str(f, tok.decode(ids, skip_special_tokens=False).encode("utf-8"))
                write_str(f, tok.decode(ids, skip_special_tokens=True).encode("utf-8"))
        print(f"{out_path}: {os.path.getsize(out_path)} bytes")


if __name__ == "__main__":
    main()
