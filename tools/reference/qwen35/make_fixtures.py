#!/usr/bin/env python3
"""Builds tiny random-weight Qwen 3.5 checkpoints and their reference outputs.

Reference: transformers `models/qwen3_5` (Qwen3_5ForCausalLM on the text
config), run in float32 on the CPU with the pure-torch fallbacks
(torch_chunk_gated_delta_rule for prompts, torch_recurrent_gated_delta_rule for
single-token cached decode, the F.conv1d causal conv), eager attention.

Each fixture folder under tests/models/qwen35/testdata/<name>/ holds:
  config.json            a checkpoint-style config (model_type qwen3_5, text_config,
                         a small vision_config), as the published Qwen3.5 files.
  model.safetensors      weights under the published key names:
                         model.language_model.*, lm_head.weight (untied only), and a few
                         model.visual.* and mtp.* tensors the text model must skip.
  reference.safetensors  for each prompt p:
                           p{i}.tokens        I32 [n]       the prompt
                           p{i}.logits        F32 [n, V]    logits at every prompt position
                                                            (one full forward, chunked DeltaNet)
                           p{i}.greedy        I32 [32]      greedy continuation (cached decode)
                           p{i}.greedy_logits F32 [32, V]   logits that chose greedy[j]
                                                            (j = 0: last prompt position;
                                                            j > 0: cached single-token decode,
                                                            recurrent DeltaNet)
                           p{i}.margin        F32 [1]       smallest top1-top2 logit gap over
                                                            the greedy steps
  REFERENCE.md           what is in the folder (generated).
  embeds.safetensors     (--embeds) embedding rows as input, as a vision tower would
                         hand them over (transformers' inputs_embeds):
                           tokens     I32 [n]       ids (where mask is 0)
                           mask       U8  [n]       1: the position takes embeddings[i]
                           embeddings F32 [n, H]    rows replacing the token embedding
                                                    where mask is 1 (random, not bf16)
                           logits     F32 [n, V]    one full forward on those inputs

Weights are drawn in float32, rounded to bfloat16 (what is stored, except
A_log / dt_bias in F32 as the real checkpoints keep the SSM parameters), and the
reference runs on exactly the stored values in float32.

Usage: python3 tools/reference/qwen35/make_fixtures.py [--out tests/models/qwen35/testdata] [--embeds]
--embeds: only (re)writes embeds.safetensors of each existing fixture, from its
committed model.safetensors (the other files are left alone).
Deterministic: fixed seeds; written with torch/transformers versions recorded.
"""

import argparse
import importlib.util
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
from transformers.models.qwen3_5 import modeling_qwen3_5 as mq  # noqa: E402
from transformers.models.qwen3_5.configuration_qwen3_5 import Qwen3_5TextConfig  # noqa: E402

PROMPT_LENGTHS = [1, 9, 64, 65, 140]  # 64 = one DeltaNet chunk; 65 and 140 cross chunks
N_GREEDY = 32
MIN_MARGIN = 2e-3  # smallest accepted top1-top2 logit gap on a greedy path

VARIANTS = {
    # Like Qwen3.5-0.8B: tied embeddings, every 4th layer full attention.
    "tiny_tied": dict(
        seed=1234,
        rms_norm_eps=1e-5,  # damps the gated norm of near-zero DeltaNet rows (f32 noise)
        tie_word_embeddings=True,
        vocab_size=384,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=8,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=32,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        linear_key_head_dim=16,
        linear_value_head_dim=16,
        linear_conv_kernel_dim=4,
        full_attention_interval=4,
        rope_theta=10000000.0,
        partial_rotary_factor=0.25,
        mrope_section=[2, 1, 1],
    ),
    # Like Qwen3.8-27B: untied lm_head, 3 value heads per key head, other dims.
    "tiny_untied": dict(
        seed=4321,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        vocab_size=320,
        hidden_size=48,
        intermediate_size=96,
        num_hidden_layers=8,
        num_attention_heads=6,
        num_key_value_heads=2,
        head_dim=16,
        linear_num_key_heads=2,
        linear_num_value_heads=6,
        linear_key_head_dim=16,
        linear_value_head_dim=12,
        linear_conv_kernel_dim=4,
        full_attention_interval=4,
        rope_theta=10000.0,
        partial_rotary_factor=0.5,
        mrope_section=[2, 1, 1],
    ),
    # The real per-head sizes of Qwen3.5-0.8B (DeltaNet heads of 128, attention heads of
    # 256 with 64 rotary dims, theta 1e7, mrope sections [11, 11, 10]) in a narrow model.
    "small_realdims": dict(
        seed=2718,
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=4,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=256,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        linear_key_head_dim=128,
        linear_value_head_dim=128,
        linear_conv_kernel_dim=4,
        full_attention_interval=4,
        rope_theta=10000000.0,
        partial_rotary_factor=0.25,
        mrope_section=[11, 11, 10],
    ),
}


def check_torch_fallbacks():
    """The reference must be the pure-torch path (no fla / causal_conv1d / hub kernels)."""
    for pkg in ("fla", "causal_conv1d", "kernels"):
        if importlib.util.find_spec(pkg) is not None:
            sys.exit(f"{pkg} is installed: the reference would not be the torch fallback; "
                     "run in an environment without it")


def text_config(v):
    layer_types = [
        "linear_attention" if (i + 1) % v["full_attention_interval"] else "full_attention"
        for i in range(v["num_hidden_layers"])
    ]
    return dict(
        attention_bias=False,
        attention_dropout=0.0,
        attn_output_gate=True,
        dtype="bfloat16",
        eos_token_id=v["vocab_size"] - 1,
        full_attention_interval=v["full_attention_interval"],
        head_dim=v["head_dim"],
        hidden_act="silu",
        hidden_size=v["hidden_size"],
        initializer_range=0.02,
        intermediate_size=v["intermediate_size"],
        layer_types=layer_types,
        linear_conv_kernel_dim=v["linear_conv_kernel_dim"],
        linear_key_head_dim=v["linear_key_head_dim"],
        linear_num_key_heads=v["linear_num_key_heads"],
        linear_num_value_heads=v["linear_num_value_heads"],
        linear_value_head_dim=v["linear_value_head_dim"],
        max_position_embeddings=4096,
        mlp_only_layers=[],
        model_type="qwen3_5_text",
        mtp_num_hidden_layers=1,
        mtp_use_dedicated_embeddings=False,
        num_attention_heads=v["num_attention_heads"],
        num_hidden_layers=v["num_hidden_layers"],
        num_key_value_heads=v["num_key_value_heads"],
        rms_norm_eps=v.get("rms_norm_eps", 1e-6),
        tie_word_embeddings=v["tie_word_embeddings"],
        use_cache=True,
        vocab_size=v["vocab_size"],
        mamba_ssm_dtype="float32",
        rope_parameters=dict(
            mrope_interleaved=True,
            mrope_section=v["mrope_section"],
            rope_type="default",
            rope_theta=v["rope_theta"],
            partial_rotary_factor=v["partial_rotary_factor"],
        ),
    )


def checkpoint_config(v, tc):
    """The published checkpoint layout: a qwen3_5 wrapper with text and vision configs."""
    return {
        "architectures": ["Qwen3_5ForConditionalGeneration"],
        "image_token_id": v["vocab_size"] - 4,
        "model_type": "qwen3_5",
        "text_config": tc,
        "tie_word_embeddings": v["tie_word_embeddings"],
        "transformers_version": transformers.__version__,
        "video_token_id": v["vocab_size"] - 3,
        "vision_config": {
            "deepstack_visual_indexes": [],
            "depth": 1,
            "hidden_act": "gelu_pytorch_tanh",
            "hidden_size": 16,
            "in_channels": 3,
            "initializer_range": 0.02,
            "intermediate_size": 32,
            "model_type": "qwen3_5",
            "num_heads": 2,
            "num_position_embeddings": 16,
            "out_hidden_size": v["hidden_size"],
            "patch_size": 2,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
        },
        "vision_end_token_id": v["vocab_size"] - 5,
        "vision_start_token_id": v["vocab_size"] - 6,
    }


def bf16_round(t):
    return t.to(torch.bfloat16).to(torch.float32)


def randomize(model, v, gen):
    """Every parameter gets a non-trivial random value (norm weights too), so that no
    feature is an identity. Values are then rounded to what is stored."""
    h = v["hidden_size"]
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("A_log"):
                a = torch.empty(p.shape).uniform_(0.05, 1.0, generator=gen)
                p.copy_(torch.log(a))  # kept F32 in the file
            elif name.endswith("dt_bias"):
                p.copy_(torch.empty(p.shape).uniform_(-1.0, 1.0, generator=gen))  # kept F32
            elif name.endswith("linear_attn.norm.weight"):
                # gated RMSNorm: plain weight (not zero-centred), around 1
                p.copy_(bf16_round(1.0 + 0.3 * torch.randn(p.shape, generator=gen)))
            elif name == "model.norm.weight":
                # final zero-centred RMSNorm around 0.5: halves the logit scale, and with it
                # the float32 rounding noise of the logits (the bar is 1e-4 absolute)
                p.copy_(bf16_round(-0.5 + 0.15 * torch.randn(p.shape, generator=gen)))
            elif name.endswith("norm.weight"):
                # zero-centred RMSNorm: (1 + w)
                p.copy_(bf16_round(0.3 * torch.randn(p.shape, generator=gen)))
            elif name.endswith("conv1d.weight"):
                p.copy_(bf16_round(0.5 * torch.randn(p.shape, generator=gen)))
            elif "embed_tokens" in name:
                p.copy_(bf16_round(0.1 * torch.randn(p.shape, generator=gen)))
            elif name.endswith("lm_head.weight"):
                p.copy_(bf16_round(torch.randn(p.shape, generator=gen) / h ** 0.5 * 0.8))
            elif p.dim() == 2:
                # Residual-branch outputs are scaled down so that the residual stream grows
                # slowly and float32 rounding stays far below the 1e-4 logit bar.
                fan_in = p.shape[1]
                gain = 0.5 if name.endswith(("out_proj.weight", "o_proj.weight", "down_proj.weight")) else 1.0
                p.copy_(bf16_round(gain * torch.randn(p.shape, generator=gen) / fan_in ** 0.5))
            else:
                raise RuntimeError(f"unhandled parameter {name} {tuple(p.shape)}")


def export_state(model, v, gen):
    """State dict under the published checkpoint names, plus vision/MTP tensors to skip."""
    out = {}
    for name, t in model.state_dict().items():
        if name == "lm_head.weight":
            if v["tie_word_embeddings"]:
                continue
            key = name
        elif name.startswith("model."):
            key = "model.language_model." + name[len("model."):]
        else:
            raise RuntimeError(name)
        if name.endswith("A_log") or name.endswith("dt_bias"):
            out[key] = t.detach().to(torch.float32).contiguous()
        else:
            out[key] = t.detach().to(torch.bfloat16).contiguous()
    h = v["hidden_size"]
    # A token vision tower and MTP head: present in real checkpoints, not text weights.
    extra = {
        "model.visual.patch_embed.proj.weight": (16, 3, 2, 2, 2),
        "model.visual.patch_embed.proj.bias": (16,),
        "model.visual.pos_embed.weight": (16, 16),
        "model.visual.merger.linear_fc2.weight": (h, 64),
        "mtp.fc.weight": (h, 2 * h),
        "mtp.norm.weight": (h,),
        "mtp.pre_fc_norm_embedding.weight": (h,),
        "mtp.pre_fc_norm_hidden.weight": (h,),
    }
    for k, shape in extra.items():
        out[k] = torch.randn(shape, generator=gen).to(torch.bfloat16)
    return out


def next_cache(out):
    return out.cache if getattr(out, "cache", None) is not None else out.past_key_values


def run_prompt(model, tokens, name, i):
    """Full forward (chunked DeltaNet), then cached greedy decode (recurrent DeltaNet)."""
    n = tokens.shape[1]
    # One full forward without a cache: chunked gated delta rule for every layer.
    full = model(input_ids=tokens, use_cache=False).logits[0].float()
    # The same prompt through a cache, then greedy cached decode (recurrent form).
    cache = mq.DynamicCache(config=model.config)
    out = model(input_ids=tokens, cache=cache, use_cache=True)
    cache = next_cache(out)
    step_logits = [out.logits[0, -1].float()]
    d0 = (step_logits[0] - full[-1]).abs().max().item()
    assert d0 < 1e-4, f"cached prefill != plain: {d0}"
    greedy, margins, seq = [], [], tokens
    for j in range(N_GREEDY):
        lg = step_logits[-1]
        top2 = torch.topk(lg, 2).values
        margins.append(float(top2[0] - top2[1]))
        nxt = int(torch.argmax(lg))
        greedy.append(nxt)
        seq = torch.cat([seq, torch.tensor([[nxt]])], dim=1)
        if j + 1 < N_GREEDY:
            out = model(input_ids=torch.tensor([[nxt]]), cache=cache, use_cache=True)
            cache = next_cache(out)
            step_logits.append(out.logits[0, -1].float())
    # Cross-check the decode path against a fresh full forward of the whole sequence.
    whole = model(input_ids=seq[:, :-1], use_cache=False).logits[0].float()
    dec = torch.stack(step_logits)
    diff = (whole[n - 1:] - dec).abs().max().item()
    assert diff < 1e-4, f"{name} p{i}: recurrent decode vs chunked forward differ by {diff}"
    return full, greedy, dec, min(margins), diff


def build(name, v, out_root):
    gen = torch.Generator().manual_seed(v["seed"])
    torch.manual_seed(v["seed"])
    tc = text_config(v)
    cfg = Qwen3_5TextConfig(**{k: x for k, x in tc.items() if k not in ("model_type",)})
    cfg._attn_implementation = "eager"
    model = mq.Qwen3_5ForCausalLM(cfg).to(torch.float32).eval()
    model.config._attn_implementation = "eager"
    randomize(model, v, gen)
    if v["tie_word_embeddings"]:
        assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    else:
        assert model.lm_head.weight.data_ptr() != model.model.embed_tokens.weight.data_ptr()

    folder = os.path.join(out_root, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(checkpoint_config(v, tc), f, indent=2, sort_keys=True)
        f.write("\n")
    state = export_state(model, v, gen)
    save_file(state, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    os.chmod(os.path.join(folder, "model.safetensors"), 0o644)

    ref = {}
    report = []
    vocab = v["vocab_size"]
    with torch.no_grad():
        for i, n in enumerate(PROMPT_LENGTHS):
            # Prompts whose greedy path has a near tie (top-1 minus top-2 below
            # MIN_MARGIN at some step) are redrawn: a tie could flip on rounding alone.
            for attempt in range(50):
                tokens = torch.randint(0, vocab, (1, n), generator=gen)
                full, greedy, dec, margin, diff = run_prompt(model, tokens, name, i)
                if margin >= MIN_MARGIN:
                    break
            else:
                raise RuntimeError(f"{name} p{i}: no prompt with a clear greedy path")
            ref[f"p{i}.tokens"] = tokens[0].to(torch.int32).contiguous()
            ref[f"p{i}.logits"] = full.contiguous()
            ref[f"p{i}.greedy"] = torch.tensor(greedy, dtype=torch.int32)
            ref[f"p{i}.greedy_logits"] = dec.contiguous()
            ref[f"p{i}.margin"] = torch.tensor([margin], dtype=torch.float32)
            report.append((i, n, float(full.abs().max()), margin, diff))
    save_file(ref, os.path.join(folder, "reference.safetensors"),
              metadata={"torch": torch.__version__, "transformers": transformers.__version__})
    os.chmod(os.path.join(folder, "reference.safetensors"), 0o644)

    sizes = {f: os.path.getsize(os.path.join(folder, f))
             for f in ("config.json", "model.safetensors", "reference.safetensors")}
    total = sum(sizes.values())
    assert total < 2 * 1024 * 1024, f"{name}: {total} bytes, over 2 MB"
    lt = tc["layer_types"]
    with open(os.path.join(folder, "REFERENCE.md"), "w") as f:
        f.write(f"# {name} (generated by tools/reference/qwen35/make_fixtures.py, seed {v['seed']})\n\n")
        f.write(f"transformers {transformers.__version__}, torch {torch.__version__}, float32, CPU, "
                "torch fallbacks (torch_chunk_gated_delta_rule / torch_recurrent_gated_delta_rule), "
                "eager attention.\n\n")
        f.write(f"- tie_word_embeddings: {v['tie_word_embeddings']}; vocab {vocab}; hidden {v['hidden_size']}; "
                f"MLP {v['intermediate_size']}; layers {len(lt)}: {', '.join(x.split('_')[0] for x in lt)}\n")
        f.write(f"- DeltaNet: {v['linear_num_key_heads']} q/k heads x {v['linear_key_head_dim']}, "
                f"{v['linear_num_value_heads']} value heads x {v['linear_value_head_dim']}, conv kernel "
                f"{v['linear_conv_kernel_dim']}\n")
        f.write(f"- attention: {v['num_attention_heads']} heads / {v['num_key_value_heads']} KV heads x "
                f"{v['head_dim']}, output gate, rope theta {v['rope_theta']}, partial factor "
                f"{v['partial_rotary_factor']}\n")
        f.write(f"- rms_norm_eps {tc['rms_norm_eps']} (all norms; the l2norm of q/k uses 1e-6 as in "
                "transformers); weights BF16, A_log / dt_bias F32; vision and MTP tensors present "
                "(to be skipped)\n")
        f.write(f"- files: {sizes} (total {total} bytes)\n")
        f.write("- reference.safetensors, per prompt i: p{i}.tokens I32 [n]; p{i}.logits F32 [n, V] "
                "(every position, one full forward = chunked DeltaNet); p{i}.greedy I32 [32]; "
                "p{i}.greedy_logits F32 [32, V] (row j chose greedy[j]: row 0 = last prompt position, "
                "then cached single-token decode = recurrent DeltaNet); p{i}.margin F32 [1]\n\n")
        f.write("| prompt | length | max abs logit | min greedy top1-top2 margin | decode vs full forward |\n")
        f.write("|---|---|---|---|---|\n")
        for i, n, mx, mg, d in report:
            f.write(f"| p{i} | {n} | {mx:.3f} | {mg:.4f} | {d:.2e} |\n")
    print(f"{name}: {total} bytes")
    for r in report:
        print("  p%d len %3d max|logit| %.3f min margin %.4f decode-vs-full %.2e" % r)


def load_fixture_model(folder):
    """The committed checkpoint of a fixture as a float32 Qwen3_5ForCausalLM."""
    from safetensors.torch import load_file
    with open(os.path.join(folder, "config.json")) as f:
        tc = dict(json.load(f)["text_config"])
    cfg = Qwen3_5TextConfig(**{k: x for k, x in tc.items() if k not in ("model_type",)})
    cfg._attn_implementation = "eager"
    model = mq.Qwen3_5ForCausalLM(cfg).to(torch.float32).eval()
    state = {}
    for key, t in load_file(os.path.join(folder, "model.safetensors")).items():
        if key.startswith("model.language_model."):
            state["model." + key[len("model.language_model."):]] = t.to(torch.float32)
        elif key == "lm_head.weight":
            state[key] = t.to(torch.float32)
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected, unexpected
    assert all(k == "lm_head.weight" for k in missing), missing  # tied heads only
    return model, cfg


def build_embeds(name, v, out_root, n=40):
    """Random embedding rows at a third of the positions, through inputs_embeds."""
    folder = os.path.join(out_root, name)
    model, cfg = load_fixture_model(folder)
    gen = torch.Generator().manual_seed(v["seed"] + 1)
    tokens = torch.randint(0, cfg.vocab_size, (n,), generator=gen)
    mask = (torch.arange(n) % 3 == 1)
    rows = 0.1 * torch.randn(n, cfg.hidden_size, generator=gen)
    with torch.no_grad():
        embeds = model.model.embed_tokens(tokens[None])[0].clone()
        embeds[mask] = rows[mask]
        logits = model(inputs_embeds=embeds[None], use_cache=False).logits[0].float()
    rows[~mask] = 0.0
    save_file({"tokens": tokens.to(torch.int32).contiguous(),
               "mask": mask.to(torch.uint8).contiguous(),
               "embeddings": rows.contiguous(),
               "logits": logits.contiguous()},
              os.path.join(folder, "embeds.safetensors"),
              metadata={"torch": torch.__version__, "transformers": transformers.__version__})
    os.chmod(os.path.join(folder, "embeds.safetensors"), 0o644)
    print(f"{name}: embeds.safetensors, {n} positions, {int(mask.sum())} embedding rows, "
          f"max |logit| {float(logits.abs().max()):.3f}")


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.normpath(os.path.join(here, "../../../tests/models/qwen35/testdata"))
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--embeds", action="store_true",
                    help="only write embeds.safetensors of the existing fixtures")
    args = ap.parse_args()
    check_torch_fallbacks()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    for name, v in VARIANTS.items():
        if args.embeds:
            build_embeds(name, v, args.out)
        else:
            build(name, v, args.out)


if __name__ == "__main__":
    main()
