#!/usr/bin/env python3
"""Chat prompts with images on the tiny vision model (testdata/media/vision_tiny,
made by make_vision_fixtures.py), as Gemma4Processor.apply_chat_template renders,
expands and tokenises them, and what Gemma4ForConditionalGeneration makes of them.

Adds to tests/models/gemma4/testdata/media/vision_tiny/:
  tokenizer.json, tokenizer_config.json  a 300-token Gemma-style BPE (byte
      fallback, the Gemma 4 special tokens at the config's ids, <turn|> at 106)
  chat_template.jinja  the E2B/E4B v4 template (../shared/data/templates/gemma4)
  prompt_reference.safetensors / prompt_reference.json, per case:
    case{i}.image{j}  u8 [h][w][3]   the attached images, in the order of the parts
    case{i}.text      u8 [n]         apply_chat_template(tokenize=False) (UTF-8)
    case{i}.ids       i32 [T]        the processor's input_ids (placeholders expanded)
    case{i}.soft      f32 [n][H]     the soft tokens of every image, in order
    case{i}.logits    f32 [V]        the last position's logits
    case{i}.greedy    i32 [32]       32 greedy tokens (full recompute each step)
  and the json lists the messages (image parts as {"type": "image", "index": j}),
  the budget (max_soft_tokens, 0: the processor's default) and the greedy gaps.
  image{k}.png  the first case images as PNG files, for the CLI test, and
  prompt_case0.txt / prompt_case0.ids  case 0's text and ids, for the CLI test.
  Cases with audio parts ({"type": "audio", "index": j}) store the clips as
    case{i}.audio{j}  f32 [n]        16 kHz samples (lcg_samples, int16 / 32768)
    case{i}.audio_soft f32 [m][H]    the soft tokens of every clip, in order
  and clip0.wav (16-bit PCM, the first clip: exact as float), with
  prompt_audio.txt / prompt_audio.ids: the image-and-clip case's text and ids
  (image0.png and clip0.wav), for the CLI test.

Pinned: transformers 5.24.0, torch 2.15.0, torchvision 0.29.2, tokenizers
0.23.3, numpy 2.4.6, pillow 13.0.0 (the /work/venvs/gm venv).

    python3 tools/reference/gemma4_media/make_prompt_fixtures.py
"""
import json
import os
import sys
import wave

import numpy as np
import PIL.Image
import torch
import transformers
from safetensors.numpy import save_file as save_np
from transformers import Gemma4ForConditionalGeneration, PreTrainedTokenizerFast
from transformers.models.gemma4.feature_extraction_gemma4 import Gemma4AudioFeatureExtractor
from transformers.models.gemma4.image_processing_gemma4 import Gemma4ImageProcessor
from transformers.models.gemma4.processing_gemma4 import Gemma4Processor
from transformers.models.gemma4.video_processing_gemma4 import Gemma4VideoProcessor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_vision_fixtures as mv  # noqa: E402

OUT = mv.OUT
# ../shared beside the checkout (a worktree elsewhere: OXINFER_SHARED).
SHARED = os.environ.get("OXINFER_SHARED", os.path.join(mv.ROOT, "../shared"))
TEMPLATE = os.path.join(SHARED, "data/templates/gemma4",
                        "chat_template.E2B-E4B-it.v4-2026-07-09.jinja")

SPECIAL = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3, "<|think|>": 98, "<|channel>": 100,
           "<channel|>": 101, "<|turn>": 105, "<turn|>": 106, "<|image|>": 260, "<|image>": 261,
           "<image|>": 262, "<|audio|>": 263, "<|audio>": 264, "<audio|>": 265, "<|video|>": 266}
CHARS = list("\u2581etaoinsrhd")
MERGES = [("\u2581", "t"), ("h", "e"), ("\u2581t", "he"), ("i", "n"), ("\u2581", "a"),
          ("e", "r"), ("o", "n"), ("\u2581", "s"), ("r", "e"), ("a", "t")]
NAMED = {"image_token": "<|image|>", "boi_token": "<|image>", "eoi_token": "<image|>",
         "audio_token": "<|audio|>", "boa_token": "<|audio>", "eoa_token": "<audio|>"}


def tokenizer_json(vocab_size):
    free = [i for i in range(vocab_size) if i not in SPECIAL.values()]
    names = [f"<0x{b:02X}>" for b in range(256)] + CHARS + ["".join(m) for m in MERGES]
    assert len(names) <= len(free)
    vocab = dict(SPECIAL)
    vocab.update(zip(names, free))
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for t, i in sorted(SPECIAL.items(), key=lambda x: x[1])]
    bos = {"SpecialToken": {"id": "<bos>", "type_id": 0}}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        "pre_tokenizer": {"type": "Split", "pattern": {"String": " "},
                          "behavior": "MergedWithPrevious", "invert": False},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "<bos>", "type_id": 1}},
                                    {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<bos>": {"id": "<bos>", "ids": [2],
                                                        "tokens": ["<bos>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [list(m) for m in MERGES]},
    }


def audio_part(j):
    return {"type": "audio", "index": j}


def image_part(j):
    return {"type": "image", "index": j}


def text_part(t):
    return {"type": "text", "text": t}


# (image sizes (h, w) or "case0" (case 0's images), budget (0: default),
# messages, clips (samples, seed)); image and audio parts in order.
CASES = [
    ([(40, 90)], 0, [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": [image_part(0), text_part("Describe this.")]}]),
    ([(120, 50), (33, 37)], 140, [
        {"role": "user", "content": [image_part(0), image_part(1),
                                     text_part("Are these the same?")]}]),
    ([(64, 48), (150, 160)], 280, [
        {"role": "user", "content": [image_part(0), text_part("What is it?")]},
        {"role": "assistant", "content": "A test."},
        {"role": "user", "content": [image_part(1), text_part("And this one?")]}]),
    ([], 0, [  # a typed placeholder without media: embedded as the pad token
        {"role": "user", "content": "Say <|image|> back."}]),
    ([], 0, [  # a clip alone
        {"role": "user", "content": [audio_part(0), text_part("What is said?")]}],
     [(21920, 31)]),
    ("case0", 0, [  # an image and a clip in one turn, as the CLI places them
        {"role": "user", "content": [image_part(0), audio_part(0), text_part("Describe both.")]}],
     [(30000, 32)]),
    ([(48, 64)], 0, [  # a clip in a later turn
        {"role": "user", "content": [image_part(0), text_part("What is it?")]},
        {"role": "assistant", "content": "A test."},
        {"role": "user", "content": [audio_part(0), audio_part(1), text_part("And these?")]}],
     [(7000, 33), (12000, 34)]),
]


def main():
    with open(os.path.join(OUT, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(mv.VOCAB), f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(TEMPLATE, encoding="utf-8") as f:
        template = f.read()
    with open(os.path.join(OUT, "chat_template.jinja"), "w", encoding="utf-8") as f:
        f.write(template)
    tok = PreTrainedTokenizerFast(tokenizer_file=os.path.join(OUT, "tokenizer.json"),
                                  bos_token="<bos>", eos_token="<eos>", pad_token="<pad>",
                                  unk_token="<unk>", extra_special_tokens=NAMED)
    tok.save_pretrained("/tmp/gemma4_prompt_tok")
    with open("/tmp/gemma4_prompt_tok/tokenizer_config.json") as f:
        tok_config = json.load(f)
    with open(os.path.join(OUT, "tokenizer_config.json"), "w") as f:
        json.dump(tok_config, f, indent=2, sort_keys=True)
        f.write("\n")
    ip = {k: v for k, v in mv.PROCESSOR["image_processor"].items() if k != "image_processor_type"}
    fe = {k: v for k, v in mv.FEATURES.items() if k not in ("feature_extractor_type", "padding_side")}
    proc = Gemma4Processor(feature_extractor=Gemma4AudioFeatureExtractor(**fe),
                           image_processor=Gemma4ImageProcessor(**ip), tokenizer=tok,
                           video_processor=Gemma4VideoProcessor(), chat_template=template)
    model = Gemma4ForConditionalGeneration.from_pretrained(OUT, dtype=torch.float32).eval()
    model.config._attn_implementation = "eager"

    rng = np.random.default_rng(11)
    tensors, meta = {}, {"transformers": transformers.__version__, "torch": torch.__version__,
                         "cases": []}
    png = 0
    first_images = None
    for i, case in enumerate(CASES):
        sizes, budget, messages = case[:3]
        clips = case[3] if len(case) > 3 else []
        if sizes == "case0":
            images = first_images
        else:
            images = [mv.make_image(rng, h, w) for h, w in sizes]
        if i == 0:
            first_images = images
        pil = [PIL.Image.fromarray(a) for a in images]
        waves = [mv.lcg_samples(n, seed) for n, seed in clips]

        def part_of(p):
            if p["type"] == "image":
                return {"type": "image", "image": pil[p["index"]]}
            if p["type"] == "audio":
                return {"type": "audio", "audio": waves[p["index"]]}
            return p

        def with_images(msgs):
            out = []
            for m in msgs:
                m = dict(m)
                if isinstance(m["content"], list):
                    m["content"] = [part_of(p) for p in m["content"]]
                out.append(m)
            return out

        text = proc.apply_chat_template(with_images(messages), tokenize=False,
                                        add_generation_prompt=True)
        kwargs = {"max_soft_tokens": budget} if budget else {}
        if waves:
            kwargs["audio"] = waves
        if pil or waves:
            out = proc(text=text, images=pil or None, add_special_tokens=False,
                       return_tensors="pt", **kwargs)
        else:  # the processor refuses a placeholder without media; the model takes it
            out = tok(text, add_special_tokens=False, return_tensors="pt")
        if pil and not budget and not waves:  # the whole path of apply_chat_template: same ids
            full = proc.apply_chat_template(with_images(messages), tokenize=True,
                                            return_dict=True, add_generation_prompt=True,
                                            return_tensors="pt")
            assert full["input_ids"].tolist() == out["input_ids"].tolist()
        ids = out["input_ids"][0].tolist()
        extra = {}
        if pil:
            extra = dict(pixel_values=out["pixel_values"],
                         image_position_ids=out["image_position_ids"])
        if waves:
            extra.update(input_features=out["input_features"],
                         input_features_mask=out["input_features_mask"])
        with torch.no_grad():
            if pil:
                feats = model.model.get_image_features(out["pixel_values"],
                                                       out["image_position_ids"],
                                                       return_dict=True).pooler_output
                tensors[f"case{i}.soft"] = torch.cat(feats, dim=0).numpy().astype(np.float32)
            if waves:
                ao = model.model.get_audio_features(out["input_features"],
                                                    out["input_features_mask"], return_dict=True)
                tensors[f"case{i}.audio_soft"] = (
                    ao.pooler_output[ao.attention_mask].numpy().astype(np.float32))

            def logits_of(seq):
                return model(input_ids=torch.tensor([seq]), **extra).logits[0, -1]

            last = logits_of(ids)
            seq, greedy, gaps = list(ids), [], []
            for _ in range(32):
                lg = logits_of(seq)
                top = torch.topk(lg, 2).values
                gaps.append(float(top[0] - top[1]))
                t = int(torch.argmax(lg))
                greedy.append(t)
                seq.append(t)
        for j, w in enumerate(waves):
            tensors[f"case{i}.audio{j}"] = w
        if sizes == "case0":
            # For the CLI test: --image image0.png --audio clip0.wav -p "Describe both."
            assert images is first_images
            with wave.open(os.path.join(OUT, "clip0.wav"), "wb") as f:
                f.setnchannels(1)
                f.setsampwidth(2)
                f.setframerate(16000)
                f.writeframes(np.round(waves[0] * 32768).astype("<i2").tobytes())
            with open(os.path.join(OUT, "prompt_audio.txt"), "w", encoding="utf-8") as f:
                f.write(text)
            with open(os.path.join(OUT, "prompt_audio.ids"), "w") as f:
                f.write(" ".join(str(t) for t in ids) + "\n")
        for j, a in enumerate(images):
            tensors[f"case{i}.image{j}"] = a
            if png < 2 and sizes != "case0":
                PIL.Image.fromarray(a).save(os.path.join(OUT, f"image{png}.png"))
                png += 1
        if i == 0:  # for the CLI test: --system "You are terse." --image image0.png
            with open(os.path.join(OUT, "prompt_case0.txt"), "w", encoding="utf-8") as f:
                f.write(text)
            with open(os.path.join(OUT, "prompt_case0.ids"), "w") as f:
                f.write(" ".join(str(t) for t in ids) + "\n")
        tensors[f"case{i}.text"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy()
        tensors[f"case{i}.ids"] = np.array(ids, dtype=np.int32)
        tensors[f"case{i}.logits"] = last.numpy().astype(np.float32)
        tensors[f"case{i}.greedy"] = np.array(greedy, dtype=np.int32)
        meta["cases"].append(dict(images=[list(a.shape[:2]) for a in images],
                                  max_soft_tokens=budget, messages=messages,
                                  clips=[dict(samples=n, seed=seed) for n, seed in clips],
                                  n_tokens=len(ids), greedy=greedy, min_greedy_gap=min(gaps)))
    save_np(tensors, os.path.join(OUT, "prompt_reference.safetensors"))
    with open(os.path.join(OUT, "prompt_reference.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps([{k: v for k, v in c.items() if k != "greedy"} for c in meta["cases"]],
                     indent=1))


if __name__ == "__main__":
    sys.exit(main())
