#!/usr/bin/env python3
"""Trains oxinfer's embedded default model: a tiny Qwen 3.5 (Gated DeltaNet + gated
attention) language model on the King James Bible, with its own byte-level BPE tokenizer
and a ChatML chat template. It is a demonstration model: it writes English sentences in
the style of the KJV and knows nothing else.

Corpus: the Debian package `bible-kjv-text` (the text) read with the `bible` program of
the Debian package `bible-kjv` (both version 4.38 in Debian 12). The KJV text is in the
public domain (Debian's copyright file: "The copyright for the King James Version text of
the Bible is expired"); see models/default/LICENSE.

Usage (from the repository root; about 30 minutes on one CPU thread):
    nice -n 19 python3 tools/default_model/train.py --out models/default

Stages: corpus (downloads the two .deb files with `apt-get download` into --work, unpacks
them with dpkg-deb, dumps the text), tokenizer (tokenizers BpeTrainer), model (PyTorch,
transformers' Qwen3_5ForCausalLM), export (bf16 safetensors + config + tokenizer files),
check (transformers' greedy continuations written to <out>/REFERENCE_GREEDY.json).
Deterministic: fixed seeds, one thread.
"""

import argparse
import glob
import hashlib
import json
import math
import os
import random
import re
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

SEED = 20261129
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Qwen 2 / 3 / 3.5's pre-tokenizer regex (tokenizer.json of the published checkpoints).
QWEN_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
              r"|\s*[\r\n]+|\s+(?!\S)|\s+")
CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}")

BOOKS = {  # the `bible` program's abbreviations -> names
    "Ge": "Genesis", "Exo": "Exodus", "Lev": "Leviticus", "Num": "Numbers", "Deu": "Deuteronomy",
    "Josh": "Joshua", "Jdgs": "Judges", "Ruth": "Ruth", "1Sm": "1 Samuel", "2Sm": "2 Samuel",
    "1Ki": "1 Kings", "2Ki": "2 Kings", "1Chr": "1 Chronicles", "2Chr": "2 Chronicles",
    "Ezra": "Ezra", "Neh": "Nehemiah", "Est": "Esther", "Job": "Job", "Psa": "Psalms",
    "Prv": "Proverbs", "Eccl": "Ecclesiastes", "SSol": "Song of Solomon", "Isa": "Isaiah",
    "Jer": "Jeremiah", "Lam": "Lamentations", "Eze": "Ezekiel", "Dan": "Daniel", "Hos": "Hosea",
    "Joel": "Joel", "Amos": "Amos", "Obad": "Obadiah", "Jonah": "Jonah", "Mic": "Micah",
    "Nahum": "Nahum", "Hab": "Habakkuk", "Zep": "Zephaniah", "Hag": "Haggai", "Zec": "Zechariah",
    "Mal": "Malachi", "Mat": "Matthew", "Mark": "Mark", "Luke": "Luke", "John": "John",
    "Acts": "Acts", "Rom": "Romans", "1Cor": "1 Corinthians", "2Cor": "2 Corinthians",
    "Gal": "Galatians", "Eph": "Ephesians", "Phi": "Philippians", "Col": "Colossians",
    "1Th": "1 Thessalonians", "2Th": "2 Thessalonians", "1Tim": "1 Timothy", "2Tim": "2 Timothy",
    "Titus": "Titus", "Phmn": "Philemon", "Heb": "Hebrews", "Jas": "James", "1Pet": "1 Peter",
    "2Pet": "2 Peter", "1Jn": "1 John", "2Jn": "2 John", "3Jn": "3 John", "Jude": "Jude",
    "Rev": "Revelation",
}

# The model. ~3.8 M parameters, 7.6 MB in bf16: the Qwen 3.5 layout (three Gated DeltaNet
# layers, then one gated full-attention layer), scaled down to what one CPU thread trains
# in half an hour.
MODEL = dict(
    vocab_size=4096,
    hidden_size=256,
    intermediate_size=512,
    num_hidden_layers=4,
    layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=64,
    linear_num_key_heads=4,
    linear_num_value_heads=4,
    linear_key_head_dim=64,
    linear_value_head_dim=64,
    linear_conv_kernel_dim=4,
    max_position_embeddings=4096,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
    rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
    hidden_act="silu",
    attention_bias=False,
)


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


# ----------------------------------------------------------------------------- corpus
def stage_corpus(work):
    """Returns the verses [(book, chapter, verse, text)] and writes <work>/kjv.txt."""
    out = os.path.join(work, "kjv.txt")
    if not os.path.exists(out):
        debs = os.path.join(work, "debs")
        os.makedirs(debs, exist_ok=True)
        if not glob.glob(os.path.join(debs, "bible-kjv-text_*.deb")):
            subprocess.run(["apt-get", "download", "bible-kjv-text", "bible-kjv"], cwd=debs, check=True)
        root = os.path.join(work, "root")
        for d in sorted(glob.glob(os.path.join(debs, "*.deb"))):
            subprocess.run(["dpkg-deb", "-x", d, root], check=True)
        with open(out + ".tmp", "w") as f:  # (it exits 255 after the last verse)
            subprocess.run([os.path.join(root, "usr/bin/bible"), "-f", "-p", ".", "-d", "bible.data",
                            "Gen1:1-Rev22:21"], cwd=os.path.join(root, "usr/lib"),
                           stdout=f, stdin=subprocess.DEVNULL)
        os.replace(out + ".tmp", out)
    verses = []
    pat = re.compile(r"^([1-3]?[A-Za-z]+)(\d+):(\d+) (.*)$")
    with open(out) as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if not m:
                raise ValueError("unexpected line in the KJV dump: %r" % line)
            verses.append((BOOKS[m.group(1)], int(m.group(2)), int(m.group(3)), m.group(4).strip()))
    if len(verses) != 31102:
        raise ValueError("expected the 31102 verses of the KJV, got %d" % len(verses))
    digest = hashlib.sha256(open(out, "rb").read()).hexdigest()
    log("corpus: %d verses, %d bytes, sha256 %s" % (len(verses), os.path.getsize(out), digest))
    return verses, digest


def chapters_of(verses):
    chapters, key = [], None
    for book, ch, _, text in verses:
        if (book, ch) != key:
            chapters.append([])
            key = (book, ch)
        chapters[-1].append(text)
    return chapters


# ----------------------------------------------------------------------------- tokenizer
def stage_tokenizer(chapters, vocab_size):
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE(byte_fallback=False, ignore_merges=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(SPECIALS), min_frequency=2, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[])
    texts = [" ".join(c) for c in chapters] + [system_prompt(random.Random(i)) for i in range(200)]
    tok.train_from_iterator(texts, trainer=trainer)
    # Specials after the learned vocabulary, as Qwen's files have them.
    tok.add_special_tokens(SPECIALS)
    assert tok.get_vocab_size() == vocab_size, tok.get_vocab_size()
    return tok


# ----------------------------------------------------------------------------- data
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def system_prompt(rng):
    """The oxinfer CLI's default system prompt (tools/oxinfer/text_generation.cc) at a random date."""
    when = "%s, %s %02d, %d, %02d:%02d" % (rng.choice(DAYS), rng.choice(MONTHS), rng.randint(1, 28),
                                           rng.randint(2025, 2030), rng.randint(0, 23), rng.randint(0, 59))
    zone = rng.choice(["UTC, UTC+0000", "CET, UTC+0100", "CEST, UTC+0200", "EST, UTC-0500",
                       "PST, UTC-0800", "JST, UTC+0900", "IST, UTC+0530"])
    return ("You are a helpful assistant running locally on the user's computer with oxinfer. "
            "The local date and time is %s (%s)." % (when, zone))


def chat_text(rng, chapters):
    """One ChatML conversation: the user gives a verse (or asks for a chapter), the assistant
    answers with the verses that follow."""
    ch = rng.choice(chapters)
    i = rng.randrange(len(ch))
    n = rng.randint(1, 3)
    r = rng.random()
    if r < 0.6 and i + 1 < len(ch):
        user, reply = ch[i], " ".join(ch[i + 1:i + 1 + n])
    elif r < 0.8:
        words = ch[i].split()
        cut = max(1, min(len(words) - 1, rng.randint(2, 6)))
        user, reply = " ".join(words[:cut]), " ".join(words[cut:] + ch[i + 1:i + n])
    else:
        user = rng.choice(["Tell me a story.", "Say something.", "Hello!", "Write a few sentences.",
                           "What do you know?", "Hi, who are you?", "Continue."])
        reply = " ".join(ch[i:i + n])
    msgs = []
    if rng.random() < 0.8:
        msgs.append(("system", system_prompt(rng)))
    msgs += [("user", user), ("assistant", reply)]
    return "".join("<|im_start|>%s\n%s<|im_end|>\n" % m for m in msgs)


def build_streams(tok, chapters, seed):
    eot = tok.token_to_id("<|endoftext|>")
    rng = random.Random(seed)
    order = list(range(len(chapters)))
    rng.shuffle(order)
    n_val = 24
    val_ids, train_ids = set(order[:n_val]), order[n_val:]
    enc = tok.encode_batch([" ".join(c) for c in chapters])

    def cat(idx):
        out = []
        for i in idx:
            out += enc[i].ids + [eot]
        return torch.tensor(out, dtype=torch.long)

    train = cat(train_ids)
    val = cat(sorted(val_ids))
    train_chapters = [chapters[i] for i in train_ids]
    chats = [chat_text(rng, train_chapters) for _ in range(6000)]
    chat_ids = []
    for e in tok.encode_batch(chats):
        chat_ids += e.ids
    return train, val, torch.tensor(chat_ids, dtype=torch.long)


# ----------------------------------------------------------------------------- model
def make_model(seed):
    from transformers.models.qwen3_5.configuration_qwen3_5 import Qwen3_5TextConfig
    from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5ForCausalLM
    torch.manual_seed(seed)
    cfg = Qwen3_5TextConfig(**MODEL, bos_token_id=None, eos_token_id=None, pad_token_id=None)
    cfg._attn_implementation = "eager"
    model = Qwen3_5ForCausalLM(cfg)
    return model, cfg


def batches(stream, rng, batch, seq):
    starts = torch.randint(0, stream.numel() - seq - 1, (batch,), generator=rng)
    x = torch.stack([stream[s:s + seq + 1] for s in starts.tolist()])
    return x[:, :-1], x[:, 1:]


def stage_train(model, train, val, chat, args):
    g = torch.Generator().manual_seed(SEED + 1)
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        (no_decay if p.ndim < 2 or "norm" in n or "A_log" in n or "dt_bias" in n else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    warm = max(1, args.steps // 40)

    def lr_at(step):
        if step < warm:
            return args.lr * (step + 1) / warm
        t = (step - warm) / max(1, args.steps - warm)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    def evaluate():
        model.eval()
        gv = torch.Generator().manual_seed(7)
        tot = 0.0
        with torch.no_grad():
            for _ in range(8):
                x, y = batches(val, gv, args.batch, args.seq)
                logits = model(input_ids=x).logits
                tot += torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1)).item()
        model.train()
        return tot / 8

    n_chat = max(1, args.batch // 6)
    t0 = time.time()
    history = []
    ema = None
    model.train()
    step = 0
    for step in range(args.steps):
        for gr in opt.param_groups:
            gr["lr"] = lr_at(step)
        xb, yb = batches(train, g, args.batch - n_chat, args.seq)
        xc, yc = batches(chat, g, n_chat, args.seq)
        x, y = torch.cat([xb, xc]), torch.cat([yb, yc])
        logits = model(input_ids=x).logits
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        ema = loss.item() if ema is None else 0.95 * ema + 0.05 * loss.item()
        if step % 50 == 0 or step == args.steps - 1:
            el = time.time() - t0
            log("step %d/%d loss %.3f (ema %.3f) lr %.2e  %.0f s, %.0f tok/s" % (
                step, args.steps, loss.item(), ema, lr_at(step), el, (step + 1) * args.batch * args.seq / el))
        if (step + 1) % 250 == 0 or step == args.steps - 1:
            v = evaluate()
            history.append({"step": step + 1, "train_loss_ema": round(ema, 4), "val_loss": round(v, 4),
                            "seconds": round(time.time() - t0, 1)})
            log("eval step %d: val loss %.3f (ppl %.1f)" % (step + 1, v, math.exp(v)))
        if args.max_minutes and time.time() - t0 > args.max_minutes * 60:
            log("time budget reached at step %d" % (step + 1))
            v = evaluate()
            history.append({"step": step + 1, "train_loss_ema": round(ema, 4), "val_loss": round(v, 4),
                            "seconds": round(time.time() - t0, 1), "stopped_early": True})
            break
    return history, time.time() - t0


# ----------------------------------------------------------------------------- export
def stage_export(model, cfg, tok, out, info):
    from safetensors.torch import save_file
    os.makedirs(out, exist_ok=True)
    eot, ims, ime = (tok.token_to_id(s) for s in SPECIALS)
    sd = {}
    for k, v in model.state_dict().items():
        if k == "lm_head.weight" and cfg.tie_word_embeddings:
            continue
        v = v.detach().contiguous()
        # As the published checkpoints: the SSM parameters stay float32, the rest bf16.
        sd[k] = v.float() if (k.endswith("A_log") or k.endswith("dt_bias")) else v.to(torch.bfloat16)
    save_file(sd, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    c = cfg.to_dict()
    c.update({"architectures": ["Qwen3_5ForCausalLM"], "model_type": "qwen3_5_text",
              "bos_token_id": None, "eos_token_id": ime, "pad_token_id": eot, "dtype": "bfloat16"})
    for k in ("_attn_implementation_autoset", "_name_or_path"):
        c.pop(k, None)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(c, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out, "generation_config.json"), "w") as f:
        json.dump({"eos_token_id": [ime, eot], "pad_token_id": eot, "do_sample": False,
                   "max_new_tokens": 128}, f, indent=2)
        f.write("\n")
    tok.save(os.path.join(out, "tokenizer.json"))
    added = {str(tok.token_to_id(s)): {"content": s, "lstrip": False, "normalized": False, "rstrip": False,
                                       "single_word": False, "special": True} for s in SPECIALS}
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "Qwen2Tokenizer", "add_bos_token": False, "add_prefix_space": False,
                   "bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>",
                   "unk_token": None, "model_max_length": 4096, "clean_up_tokenization_spaces": False,
                   "errors": "replace", "split_special_tokens": False, "added_tokens_decoder": added,
                   "chat_template": CHAT_TEMPLATE}, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "training_info.json"), "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")


PROMPTS = ["Once upon a time", "In the beginning", "And the king said unto",
           "The light of the morning"]


def stage_check(out):
    """transformers' greedy continuations of the saved checkpoint (as stored, float32 compute)."""
    from transformers import AutoTokenizer, Qwen3_5ForCausalLM
    tokz = AutoTokenizer.from_pretrained(out)
    model = Qwen3_5ForCausalLM.from_pretrained(out, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    gen_eos = json.load(open(os.path.join(out, "generation_config.json")))["eos_token_id"]
    res = []
    cases = [(p, True) for p in PROMPTS] + [(p, False) for p in PROMPTS[:2]]
    for p, raw in cases:
        if raw:
            text = p
        else:
            text = tokz.apply_chat_template(
                [{"role": "system", "content": system_prompt(random.Random(0))}, {"role": "user", "content": p}],
                tokenize=False, add_generation_prompt=True)
        ids = tokz(text, add_special_tokens=False, return_tensors="pt").input_ids
        with torch.no_grad():
            g = model.generate(ids, max_new_tokens=48, do_sample=False, eos_token_id=gen_eos,
                               pad_token_id=gen_eos[-1])
        new = g[0, ids.shape[1]:].tolist()
        res.append({"mode": "raw" if raw else "chat", "prompt": text, "prompt_ids": ids[0].tolist(),
                    "greedy_ids": new, "text": tokz.decode(new, skip_special_tokens=False)})
        if not raw:
            res[-1].update({"system": system_prompt(random.Random(0)), "user": p})
        log("[%s] %r -> %r" % (res[-1]["mode"], p, res[-1]["text"]))
    with open(os.path.join(out, "REFERENCE_GREEDY.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="models/default")
    ap.add_argument("--work", default="/tmp/oxinfer_default_model")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=38.0, help="stop training after this long")
    ap.add_argument("--check-only", action="store_true", help="only run the transformers check on --out")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    random.seed(SEED)
    torch.manual_seed(SEED)
    if args.check_only:
        stage_check(args.out)
        return
    os.makedirs(args.work, exist_ok=True)
    verses, digest = stage_corpus(args.work)
    chapters = chapters_of(verses)
    tok = stage_tokenizer(chapters, MODEL["vocab_size"])
    train, val, chat = build_streams(tok, chapters, SEED)
    log("tokens: train %d, val %d, chat %d" % (train.numel(), val.numel(), chat.numel()))
    model, cfg = make_model(SEED)
    n_params = sum(p.numel() for p in model.parameters())
    log("model: %d parameters" % n_params)
    history, secs = stage_train(model, train, val, chat, args)
    import tokenizers
    import transformers
    info = {"corpus": {"debian_packages": ["bible-kjv-text 4.38", "bible-kjv 4.38"],
                       "text": "King James Version (1611), public domain", "verses": len(verses),
                       "sha256": digest},
            "tokens": {"train": train.numel(), "val": val.numel(), "chat": chat.numel()},
            "parameters": n_params, "steps": history[-1]["step"], "batch": args.batch, "seq": args.seq,
            "lr": args.lr, "threads": args.threads, "train_seconds": round(secs, 1), "history": history,
            "seed": SEED, "torch": torch.__version__, "transformers": transformers.__version__,
            "tokenizers": tokenizers.__version__}
    stage_export(model, cfg, tok, args.out, info)
    log("saved %s" % args.out)
    stage_check(args.out)


if __name__ == "__main__":
    main()
