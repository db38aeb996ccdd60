#!/usr/bin/env python3
"""What quantising the activations to Q8_0 costs, apart from the weights.

The CPU backend (and every backend: ops.h, oxi_matmul_args) quantises each
activation row to Q8_0 before a Q8_0 / Q4_0 matmul, as ggml does; quant_eval
measures weights and activations together and cannot separate them. This
script does, in transformers float32 on the committed fixtures (which match
the plugins to 1e-4): the matrices the plugins quantise (every nn.Linear of
the text model whose input width is a multiple of 32, the tied head as Q8_0
under q8 and q4, Qwen's in_proj_a / in_proj_b kept) are replaced by their
GGUF Q8_0 / Q4_0 round trip, and either
  w-only:  the activations stay float32, or
  w+a:     each activation row is rounded to Q8_0 (blocks of 32) first,
           what the backend does.
KL(p_ref || p_quant) at every position of the fixture's prompts, each extended
by the reference's 32 greedy tokens (quant_eval's method), in nats; w+a is
checked against quant_eval's figures for the same fixture.

Usage: python3 tools/reference/quant/activation_kl.py [FIXTURE_DIR ...]
Needs torch and transformers (tools/reference/*/requirements.txt pins).
"""
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
EXTEND = 32


def q8_0(x):
    """GGUF quantize_row_q8_0_ref then dequantise, along the last dim (blocks of 32)."""
    s = x.shape
    b = x.reshape(-1, 32).to(torch.float32)
    d = b.abs().amax(dim=1, keepdim=True) / 127.0
    inv = torch.where(d > 0, 1.0 / d, torch.zeros_like(d))
    v = b * inv
    q = torch.trunc(v + 0.5 * torch.sign(v))  # roundf: half away from zero
    d16 = d.to(torch.float16).to(torch.float32)
    return (q * d16).reshape(s)


def q4_0(x):
    """GGUF quantize_row_q4_0_ref then dequantise."""
    s = x.shape
    b = x.reshape(-1, 32).to(torch.float32)
    idx = b.abs().argmax(dim=1, keepdim=True)  # first on ties, as the loop does
    mx = torch.gather(b, 1, idx)
    d = mx / -8.0
    inv = torch.where(d != 0, 1.0 / d, torch.zeros_like(d))
    q = torch.clamp((b * inv + 8.5).to(torch.int8).to(torch.float32), max=15.0)
    d16 = d.to(torch.float16).to(torch.float32)
    return ((q - 8.0) * d16).reshape(s)


def load(folder):
    cfg = json.load(open(os.path.join(folder, "config.json")))
    if "qwen3_5" in json.dumps(cfg.get("model_type", "")) or "Qwen3_5" in str(cfg.get("architectures")):
        sys.path.insert(0, os.path.join(ROOT, "tools", "reference", "qwen35"))
        import make_fixtures as mf  # noqa: E402
        model, _ = mf.load_fixture_model(folder)
        from safetensors.torch import load_file
        ref = load_file(os.path.join(folder, "reference.safetensors"))
        prompts = []
        i = 0
        while f"p{i}.tokens" in ref:
            prompts.append(ref[f"p{i}.tokens"].to(torch.int64).tolist())
            i += 1
        return "qwen35", model, prompts
    from transformers import Gemma4ForCausalLM, Gemma4ForConditionalGeneration
    cls = Gemma4ForConditionalGeneration if "text_config" in cfg else Gemma4ForCausalLM
    model = cls.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager").eval()
    prompts = [p["tokens"] for p in json.load(open(os.path.join(folder, "reference.json")))["prompts"]]
    return "gemma4", model, prompts


def quantised_linears(family, model):
    """(name, module, is_head) of the matrices the plugin quantises."""
    out = []
    head = model.get_output_embeddings()
    for name, m in model.named_modules():
        if not isinstance(m, torch.nn.Linear) or m is head:
            continue
        if any(t in name for t in ("vision", "audio", "visual", "mtp")):
            continue
        if family == "qwen35" and (name.endswith("in_proj_a") or name.endswith("in_proj_b")):
            continue
        if m.in_features % 32 == 0:
            out.append((name, m, False))
    if head is not None and head.in_features % 32 == 0:
        emb = model.get_input_embeddings()
        if head.weight is emb.weight:  # tied: the head gets its own copy, as in the plugins
            head.weight = torch.nn.Parameter(emb.weight.detach().clone())
        out.append(("lm_head", head, True))
    return out


def logits(model, ids):
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).logits[0].to(torch.float64)


def run(folder):
    family, model, prompts = load(folder)
    seqs = []
    for p in prompts:  # the reference's greedy continuation, teacher-forced in every run
        ids = list(p)
        for _ in range(EXTEND):
            ids.append(int(logits(model, ids)[-1].argmax()))
        seqs.append(ids)
    ref = [torch.log_softmax(logits(model, s), -1) for s in seqs]
    lin = quantised_linears(family, model)
    orig = {n: m.weight.detach().clone() for n, m, _ in lin}
    rows = []
    for quant, qf in (("q8", q8_0), ("q4", q4_0)):
        for n, m, is_head in lin:
            m.weight.data.copy_((q8_0 if is_head else qf)(orig[n]))
        for mode in ("w-only", "w+a"):
            hooks = []
            if mode == "w+a":
                for _, m, _ in lin:
                    hooks.append(m.register_forward_pre_hook(lambda mod, a: (q8_0(a[0]),)))
            kls = []
            for s, lp in zip(seqs, ref):
                lq = torch.log_softmax(logits(model, s), -1)
                kls.append((lp.exp() * (lp - lq)).sum(-1))
            for h in hooks:
                h.remove()
            k = torch.cat(kls).numpy()
            rows.append((quant, mode, len(k), k.mean(), np.median(k), np.percentile(k, 95), k.max()))
        for n, m, _ in lin:
            m.weight.data.copy_(orig[n])
    label = os.path.relpath(folder, ROOT)
    print(f"{label}: {len(lin)} matrices quantised")
    print("| fixture | quant | activations | positions | mean KL | p50 KL | p95 KL | max KL |")
    print("|---|---|---|---|---|---|---|---|")
    for q, mode, n, mean, p50, p95, mx in rows:
        act = "float32" if mode == "w-only" else "Q8_0"
        print(f"| {label} | {q} | {act} | {n} | {mean:.2e} | {p50:.2e} | {p95:.2e} | {mx:.2e} |")
    sys.stdout.flush()


def main():
    torch.manual_seed(0)
    folders = sys.argv[1:] or [
        os.path.join(ROOT, "tests/models/gemma4/testdata/e2b_like"),
        os.path.join(ROOT, "tests/models/gemma4/testdata/dense_31b_like"),
        os.path.join(ROOT, "tests/models/qwen35/testdata/small_realdims"),
        os.path.join(ROOT, "tests/models/qwen35/testdata/tiny_tied"),
    ]
    for f in folders:
        run(os.path.abspath(f))


if __name__ == "__main__":
    main()
