#!/usr/bin/env python3
"""Tiny random-weight Stable Diffusion pipelines and their reference dumps.

Builds two diffusers folders with the real architectures at toy sizes:
  sd1: SD 1.x flavour: CLIP quick_gelu, conv proj_in/proj_out, attention_head_dim
       as a head count, epsilon prediction, fp32 weights.
  sd2: SD 2.x flavour: CLIP gelu, linear proj_in/proj_out, per-block head dims,
       v-prediction, fp16 weights (the reference runs them upcast to fp32),
       tokenizer padding with "!".
and runs StableDiffusionPipeline (float32, CPU) on a fixed prompt, negative
prompt and initial noise, recording every stage into
  tests/models/sd/testdata/<flavour>/            the diffusers folder
  tests/models/sd/testdata/<run>.safetensors     the stages of one run
  tests/models/sd/testdata/<run>.json            the run's settings
plus tokenizer cases (tokenizer_cases.json).

Runs (64x64 images, 8x8 latents, unless named with a size):
  sd1_euler    sd1, Euler, timestep_spacing leading, 3 steps, guidance 7.5
  sd1_euler_a  sd1, Euler-ancestral, leading, 3 steps, guidance 7.5
  sd2_euler_a  sd2, Euler-ancestral, linspace, 3 steps, guidance 5.0
  sd2_euler    sd2, Euler, linspace, 3 steps, guidance 5.0
  sd2_turbo    sd2 weights, Euler, trailing, 1 step, no guidance (SD-Turbo style)
  sd1_euler_72x40    sd1_euler's settings at 72x40 (9x5 latents)
  sd2_euler_a_40x56  sd2_euler_a's settings at 40x56 (5x7 latents)
The last two are multiples of 8 but not of 64: odd latent sides, which the
UNet's stride-2 convolutions round up (9 -> 5 -> 3) and its upsamplers bring
back to the skip's size (diffusers' upsample_size).

Tensors of a run (float32 unless noted; B = 2 with guidance, negative first):
  tokens_pos, tokens_neg  int32 [77]
  emb_pos, emb_neg        [1, 77, D] CLIP last_hidden_state (after final LN)
  noise                   [1, 4, 8, 8] initial noise (before * init_noise_sigma);
                          every [.., 8, 8] is [.., height / 8, width / 8]
  sigmas [S+1], timesteps [S]
  step{i}.unet_in         [B, 4, 8, 8] the scaled model input
  step{i}.unet_out        [B, 4, 8, 8] raw UNet output
  step{i}.guided          [1, 4, 8, 8] after classifier-free guidance
  step{i}.anc_noise       [1, 4, 8, 8] Euler-ancestral's noise of this step
  step{i}.latents         [1, 4, 8, 8] latents after the step
  vae_in                  [1, 4, 8, 8] latents / scaling_factor
  image_f32               [1, 3, 64, 64] VAE decoder output in [-1, 1]-ish
  image_u8                uint8 [64, 64, 3] the pipeline's final image

Usage: python3 tools/reference/sd/make_fixtures.py [--out tests/models/sd/testdata] [--sizes-only]
(--sizes-only: only the runs named with a size, on the committed folders.)
Needs torch, diffusers and transformers; CI does not run it.
"""
import argparse
import json
import os
import shutil

import numpy as np
import torch
from safetensors.torch import save_file

import diffusers
from diffusers import (AutoencoderKL, EulerAncestralDiscreteScheduler, EulerDiscreteScheduler,
                       StableDiffusionPipeline, UNet2DConditionModel)
from diffusers.schedulers import scheduling_euler_ancestral_discrete as euler_a_module
from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

PROMPT = "A red fox in a snowy forest, at dusk!"
NEGATIVE = "blurry, low quality"
MAX_LEN = 77

# Words whose BPE merges are complete (each becomes one token); others stay
# split into pieces. Chosen so that the prompts exercise both.
FULL_WORDS = ["a", "red", "fox", "in", "forest", "at", "the", "blurry", "low", "of", "and",
              "photo", "cat", "dog"]
PARTIAL = ["sn", "ow", "qu", "al", "ity", "du", "sk", "ing", "er"]

TOKENIZER_CASES = [
    PROMPT, NEGATIVE, "", "a", "  Multiple   SPACES\tand\nnewlines  ", "it's the cat's dog",
    "numbers 123 and 4.5", "punctuation!!! ?? ... (brackets) [x] {y}", "a,b;c:d",
    "UPPERCASE lowercase MiXeD", "snowy snowing quality duskier", "we'll they've I'm you'd",
    "<|startoftext|>a<|endoftext|>", "zzz qqq xyz", "a " * 100,
]


def bytes_to_unicode():
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) +
          list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def write_tokenizer(folder, pad_token):
    os.makedirs(folder, exist_ok=True)
    chars = bytes_to_unicode()
    vocab_list = chars + [c + "</w>" for c in chars]
    merges = []

    def add_chain(word, full_end):
        syms = list(word)
        if full_end:
            syms[-1] += "</w>"
        cur = syms[0]
        for s in syms[1:]:
            merge = (cur, s)
            if merge not in merges:
                merges.append(merge)
            cur = cur + s
            if cur not in vocab_list:
                vocab_list.append(cur)

    for w in FULL_WORDS:
        if len(w) > 1:
            add_chain(w, True)
    for w in PARTIAL:
        add_chain(w, False)
    vocab_list += ["<|startoftext|>", "<|endoftext|>"]
    vocab = {t: i for i, t in enumerate(vocab_list)}
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")
    tok = CLIPTokenizer(os.path.join(folder, "vocab.json"), os.path.join(folder, "merges.txt"),
                        pad_token=pad_token, model_max_length=MAX_LEN)
    tok.save_pretrained(folder)
    return len(vocab)


def make_text_encoder(vocab_size, act):
    cfg = CLIPTextConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, max_position_embeddings=MAX_LEN,
                         hidden_act=act, layer_norm_eps=1e-5, bos_token_id=vocab_size - 2,
                         eos_token_id=vocab_size - 1, pad_token_id=1, projection_dim=32)
    return CLIPTextModel(cfg)


def make_unet(flavour):
    common = dict(sample_size=8, in_channels=4, out_channels=4, layers_per_block=2,
                  block_out_channels=(16, 32, 32),
                  down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"),
                  up_block_types=("UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"),
                  cross_attention_dim=32, norm_num_groups=8, norm_eps=1e-5, act_fn="silu",
                  flip_sin_to_cos=True, freq_shift=0, downsample_padding=1)
    if flavour == "sd1":
        return UNet2DConditionModel(attention_head_dim=2, use_linear_projection=False, **common)
    return UNet2DConditionModel(attention_head_dim=(2, 4, 4), use_linear_projection=True, **common)


def make_vae():
    return AutoencoderKL(in_channels=3, out_channels=3, latent_channels=4, sample_size=64,
                         block_out_channels=(16, 32, 32, 32), layers_per_block=1,
                         norm_num_groups=8,
                         down_block_types=("DownEncoderBlock2D",) * 4,
                         up_block_types=("UpDecoderBlock2D",) * 4, act_fn="silu",
                         scaling_factor=0.18215)


def randomize(module, gen):
    # Default inits leave zero biases, unit norms and zeroed output convs; give
    # every parameter a random value so that every weight matters.
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("weight") and p.dim() >= 2:
                fan_in = p[0].numel()
                p.copy_(torch.randn(p.shape, generator=gen) / np.sqrt(fan_in))
            elif "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.1 * torch.randn(p.shape, generator=gen))


def scheduler_config(flavour, cls, spacing):
    return {
        "_class_name": cls, "_diffusers_version": diffusers.__version__,
        "beta_end": 0.012, "beta_schedule": "scaled_linear", "beta_start": 0.00085,
        "num_train_timesteps": 1000, "interpolation_type": "linear",
        "prediction_type": "epsilon" if flavour == "sd1" else "v_prediction",
        "steps_offset": 1, "timestep_spacing": spacing, "trained_betas": None,
        "use_karras_sigmas": False, "set_alpha_to_one": False, "skip_prk_steps": True,
        "clip_sample": False,
    }


def build_folder(out, flavour, seed):
    folder = os.path.join(out, flavour)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    gen = torch.Generator().manual_seed(seed)
    vocab_size = write_tokenizer(os.path.join(folder, "tokenizer"),
                                 "<|endoftext|>" if flavour == "sd1" else "!")
    te = make_text_encoder(vocab_size, "quick_gelu" if flavour == "sd1" else "gelu")
    unet = make_unet(flavour)
    vae = make_vae()
    for m in (te, unet, vae):
        randomize(m, gen)
        m.eval()
    dtype = torch.float32 if flavour == "sd1" else torch.float16
    te.to(dtype).save_pretrained(os.path.join(folder, "text_encoder"))
    unet.to(dtype).save_pretrained(os.path.join(folder, "unet"))
    vae.to(dtype).save_pretrained(os.path.join(folder, "vae"))
    # Drop the encoder half of the VAE? No: real folders carry it; keep it.
    os.makedirs(os.path.join(folder, "scheduler"))
    cls = "EulerDiscreteScheduler" if flavour == "sd1" else "EulerAncestralDiscreteScheduler"
    spacing = "leading" if flavour == "sd1" else "linspace"
    with open(os.path.join(folder, "scheduler", "scheduler_config.json"), "w") as f:
        json.dump(scheduler_config(flavour, cls, spacing), f, indent=2, sort_keys=True)
        f.write("\n")
    index = {
        "_class_name": "StableDiffusionPipeline", "_diffusers_version": diffusers.__version__,
        "feature_extractor": [None, None], "image_encoder": [None, None],
        "requires_safety_checker": False, "safety_checker": [None, None],
        "scheduler": ["diffusers", cls], "text_encoder": ["transformers", "CLIPTextModel"],
        "tokenizer": ["transformers", "CLIPTokenizer"],
        "unet": ["diffusers", "UNet2DConditionModel"], "vae": ["diffusers", "AutoencoderKL"],
    }
    with open(os.path.join(folder, "model_index.json"), "w") as f:
        json.dump(index, f, indent=2, sort_keys=True)
        f.write("\n")
    return folder


def run(out, name, folder, sampler, spacing, steps, guidance, noise_seed, width=64, height=64):
    pipe = StableDiffusionPipeline.from_pretrained(folder, torch_dtype=torch.float32,
                                                   safety_checker=None,
                                                   requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    cfg = dict(pipe.scheduler.config)
    cfg["timestep_spacing"] = spacing
    cls = EulerDiscreteScheduler if sampler == "euler" else EulerAncestralDiscreteScheduler
    pipe.scheduler = cls.from_config(cfg)
    rec = {}
    tok = pipe.tokenizer
    for key, text in (("pos", PROMPT), ("neg", NEGATIVE)):
        ids = tok(text, padding="max_length", max_length=tok.model_max_length, truncation=True,
                  return_tensors="pt").input_ids
        rec[f"tokens_{key}"] = ids[0].to(torch.int32)
        with torch.no_grad():
            rec[f"emb_{key}"] = pipe.text_encoder(ids)[0]
    noise = torch.randn((1, 4, height // 8, width // 8), generator=torch.Generator().manual_seed(noise_seed))
    rec["noise"] = noise

    unet_calls = []
    orig_forward = pipe.unet.forward

    def unet_forward(sample, timestep, encoder_hidden_states, **kw):
        res = orig_forward(sample, timestep, encoder_hidden_states, **kw)
        unet_calls.append((sample.detach().clone(), float(timestep),
                           encoder_hidden_states.detach().clone(), res[0].detach().clone()))
        return res

    pipe.unet.forward = unet_forward
    anc = []
    orig_randn = euler_a_module.randn_tensor

    def rec_randn(*a, **kw):
        t = orig_randn(*a, **kw)
        anc.append(t.detach().clone())
        return t

    euler_a_module.randn_tensor = rec_randn
    step_latents = []

    def on_step_end(p, i, t, kw):
        step_latents.append(kw["latents"].detach().clone())
        return kw

    decoded = []
    orig_decode = pipe.vae.decode

    def vae_decode(z, *a, **kw):
        res = orig_decode(z, *a, **kw)
        decoded.append((z.detach().clone(), res[0].detach().clone()))
        return res

    pipe.vae.decode = vae_decode
    with torch.no_grad():
        result = pipe(prompt=PROMPT, negative_prompt=NEGATIVE if guidance > 1 else None,
                      num_inference_steps=steps, guidance_scale=guidance, height=height, width=width,
                      latents=noise.clone(), generator=torch.Generator().manual_seed(noise_seed + 1),
                      output_type="np", callback_on_step_end=on_step_end)
    euler_a_module.randn_tensor = orig_randn
    sched = pipe.scheduler
    rec["sigmas"] = sched.sigmas.to(torch.float32)
    rec["timesteps"] = sched.timesteps.to(torch.float32)
    assert len(unet_calls) == steps and len(step_latents) == steps
    for i, (x, t, ctx, y) in enumerate(unet_calls):
        rec[f"step{i}.unet_in"] = x
        rec[f"step{i}.unet_out"] = y
        if guidance > 1:
            u, c = y.chunk(2)
            rec[f"step{i}.guided"] = u + guidance * (c - u)
        else:
            rec[f"step{i}.guided"] = y.clone()
        if anc:
            rec[f"step{i}.anc_noise"] = anc[i]
        rec[f"step{i}.latents"] = step_latents[i]
    if guidance > 1:
        # The pipeline's own embeddings must equal what we recorded.
        ctx = unet_calls[0][2]
        assert torch.equal(ctx[0:1], rec["emb_neg"]) and torch.equal(ctx[1:2], rec["emb_pos"])
    rec["vae_in"] = decoded[0][0]
    rec["image_f32"] = decoded[0][1]
    img = result.images[0]
    rec["image_u8"] = torch.from_numpy((img * 255).round().astype(np.uint8))
    tensors = {k: v.contiguous() for k, v in rec.items()}
    save_file(tensors, os.path.join(out, f"{name}.safetensors"))
    meta = {
        "model": os.path.basename(folder), "prompt": PROMPT,
        "negative_prompt": NEGATIVE if guidance > 1 else "", "sampler": sampler,
        "timestep_spacing": spacing, "steps": steps, "guidance": guidance, "width": width,
        "height": height, "init_noise_sigma": float(sched.init_noise_sigma),
        "prediction_type": sched.config.prediction_type,
        "scaling_factor": pipe.vae.config.scaling_factor,
        "diffusers_version": diffusers.__version__, "torch_version": torch.__version__,
    }
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")


def tokenizer_cases(out, folder):
    tok = CLIPTokenizer.from_pretrained(os.path.join(folder, "tokenizer"))
    cases = []
    for text in TOKENIZER_CASES:
        ids = tok(text, padding="max_length", max_length=MAX_LEN, truncation=True).input_ids
        cases.append({"text": text, "ids": ids})
    with open(os.path.join(out, f"tokenizer_cases_{os.path.basename(folder)}.json"), "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write("\n")


def sized_runs(out, sd1, sd2):
    run(out, "sd1_euler_72x40", sd1, "euler", "leading", 3, 7.5, noise_seed=15, width=72,
        height=40)
    run(out, "sd2_euler_a_40x56", sd2, "euler_a", "linspace", 3, 5.0, noise_seed=16, width=40,
        height=56)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, "..", "..", "..", "tests", "models", "sd", "testdata")
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.normpath(default_out))
    ap.add_argument("--sizes-only", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    if args.sizes_only:
        sized_runs(args.out, os.path.join(args.out, "sd1"), os.path.join(args.out, "sd2"))
        return
    sd1 = build_folder(args.out, "sd1", seed=1)
    sd2 = build_folder(args.out, "sd2", seed=2)
    tokenizer_cases(args.out, sd1)
    tokenizer_cases(args.out, sd2)
    run(args.out, "sd1_euler", sd1, "euler", "leading", 3, 7.5, noise_seed=10)
    run(args.out, "sd1_euler_a", sd1, "euler_a", "leading", 3, 7.5, noise_seed=11)
    run(args.out, "sd2_euler_a", sd2, "euler_a", "linspace", 3, 5.0, noise_seed=12)
    run(args.out, "sd2_euler", sd2, "euler", "linspace", 3, 5.0, noise_seed=13)
    run(args.out, "sd2_turbo", sd2, "euler", "trailing", 1, 0.0, noise_seed=14)
    sized_runs(args.out, sd1, sd2)


if __name__ == "__main__":
    main()
