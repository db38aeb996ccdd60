#!/usr/bin/env python3
"""Builds tiny random Gemma 4 assistant (drafter) checkpoints and their reference drafts.

Each fixture pairs one of the main fixtures of make_fixtures.py (its folder
under tests/models/gemma4/testdata/, loaded as saved) with a tiny random
`Gemma4AssistantForCausalLM` (model_type gemma4_assistant, float32), written to
tests/models/gemma4/testdata/<main>_assistant/:

  config.json, model.safetensors   the assistant, in the published layout
                                   (gemma-4-E4B-it-assistant: model.*,
                                   pre_projection, post_projection,
                                   masked_embedding.centroids / token_ordering)
  reference.safetensors            for every prompt i:
      prompt_{i}.tokens         int32 [T]        the prompt
      prompt_{i}.greedy         int32 [G]        the main model's greedy continuation
      prompt_{i}.drafts         int32 [G, N]     row g: the assistant's N greedy drafts for
                                                 the sequence prompt + greedy[:g] whose next
                                                 token is greedy[g]
      prompt_{i}.draft_hidden   f32  [G, N, Hb]  the assistant's projected hidden state of
                                                 each draft step (post_projection output)
      prompt_{i}.draft_logits   f32  [G, N, V]   its logits of each draft step
  reference.json                   the token lists, the smallest margins, versions

The drafts follow transformers' SinglePositionMultiTokenCandidateGenerator: for a
sequence of p positions whose next token is t, step 1 feeds
cat(main.embed_tokens(t) (scaled), main final-norm hidden state of position
p - 1) at position_ids p, with shared_kv_states the main model's K/V of
positions [0, p) of the last non-shared layer of each type; each further step
feeds the drafted token's main embedding and the step's projected hidden
state, at the same position and on the same K/V. The main model's K/V and
hidden states come from one no-cache forward over the sequence (as
transformers' first drafting round after a prefill sees them). The script
also checks that transformers' own assisted generate() returns the plain
greedy tokens, and that its first drafting round equals row 0.

Usage: python3 tools/reference/gemma4/make_assistant_fixture.py [--out tests/models/gemma4/testdata]
Deterministic: fixed seeds, CPU, single thread.
"""

import argparse
import json
import os
import shutil

import numpy as np
import torch
import transformers
from safetensors.torch import save_file
from transformers import (Gemma4AssistantConfig, Gemma4AssistantForCausalLM, Gemma4ForCausalLM,
                          Gemma4ForConditionalGeneration, Gemma4TextConfig)
from transformers.generation import candidate_generator

GREEDY = 16  # draft points per prompt (the greedy continuation's length)
N_DRAFT = 6
MIN_MARGIN = 5e-4  # top-1/top-2 gaps required: draft argmax, centroid top-k edge
MAIN_MARGIN = 2e-3  # on the main model's greedy path

S, F = "sliding_attention", "full_attention"

FIXTURES = [
    {
        # On e2b_like (PLE, KV sharing: the assistant reads layer 4 (sliding) and
        # layer 3 (full)); the centroid-masked head, as the published assistant.
        "main": "e2b_like", "seed": 2024,
        "text": {"hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 4,
                 "num_key_value_heads": 1, "head_dim": 16, "global_head_dim": 32,
                 "layer_types": [S, S, F], "sliding_window": 8, "attention_k_eq_v": False,
                 "num_global_key_value_heads": None},
        "ordered": True, "num_centroids": 16, "top_k": 4,
    },
    {
        # On keqv_sharded (k = v global layers with 1 global KV head vs 2 sliding):
        # the assistant's full layers take num_global_key_value_heads; plain
        # (unmasked) LM head.
        "main": "keqv_sharded", "seed": 2025,
        "text": {"hidden_size": 24, "intermediate_size": 48, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "head_dim": 16, "global_head_dim": 32,
                 "layer_types": [S, F, S, F], "sliding_window": 6, "attention_k_eq_v": True,
                 "num_global_key_value_heads": 1},
        "ordered": False, "num_centroids": 20, "top_k": 3,
    },
    {
        # On dense_31b_like (no KV sharing: the last sliding layer 4 and the
        # last full layer 5 store), masked head, 2 global KV heads.
        "main": "dense_31b_like", "seed": 2026,
        "text": {"hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 4,
                 "num_key_value_heads": 4, "head_dim": 16, "global_head_dim": 32,
                 "layer_types": [S, S, S, F], "sliding_window": 10, "attention_k_eq_v": True,
                 "num_global_key_value_heads": 2},
        "ordered": True, "num_centroids": 32, "top_k": 5,
    },
]


def text_config(main_text, fx):
    """The assistant's text_config, in the published assistant's layout."""
    t = {
        "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 2, "dtype": "float32",
        "enable_moe_block": False, "eos_token_id": 1, "final_logit_softcapping": None,
        "hidden_activation": "gelu_pytorch_tanh", "hidden_size_per_layer_input": 0,
        "initializer_range": 0.02, "max_position_embeddings": 131072, "model_type": "gemma4_text",
        "moe_intermediate_size": None, "num_experts": None, "pad_token_id": 0,
        "rms_norm_eps": 1e-06, "rope_parameters": main_text["rope_parameters"],
        "tie_word_embeddings": True, "top_k_experts": None, "use_bidirectional_attention": None,
        "use_cache": True, "use_double_wide_mlp": False, "vocab_size": main_text["vocab_size"],
        "vocab_size_per_layer_input": 0,
    }
    t.update(fx["text"])
    t["num_hidden_layers"] = len(t["layer_types"])
    t["num_kv_shared_layers"] = t["num_hidden_layers"]
    return t


def top_config(text, fx, backbone):
    return {
        "architectures": ["Gemma4AssistantForCausalLM"], "audio_token_id": 258881,
        "backbone_hidden_size": backbone, "boa_token_id": 256000, "boi_token_id": 255999,
        "centroid_intermediate_top_k": fx["top_k"], "dtype": "float32", "eoa_token_id": 258883,
        "eoi_token_id": 258882, "image_token_id": 258880, "model_type": "gemma4_assistant",
        "num_centroids": fx["num_centroids"], "text_config": text, "tie_word_embeddings": True,
        "transformers_version": "5.7.0.dev0", "use_ordered_embeddings": fx["ordered"],
    }


def randomize(model, gen):
    """As make_fixtures.py: O(1) activations; a random token ordering."""
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name.endswith("q_norm.weight"):
                p.copy_(0.25 + 0.5 * torch.rand(p.shape, generator=gen))
            elif name.endswith("norm.weight"):
                p.copy_(0.5 + torch.rand(p.shape, generator=gen))
            elif p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=gen) / np.sqrt(p.shape[1]))
            else:
                raise ValueError(f"unexpected parameter {name} {tuple(p.shape)}")
        for name, b in sorted(model.named_buffers()):
            if name.endswith("layer_scalar"):
                b.copy_(0.5 + torch.rand(b.shape, generator=gen))
            elif name.endswith("token_ordering"):
                b.copy_(torch.randperm(b.shape[0], generator=gen))


def load_main(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    cls = Gemma4ForCausalLM if cfg["model_type"] == "gemma4_text" else Gemma4ForConditionalGeneration
    model = cls.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager").eval()
    return model, cfg.get("text_config", cfg)


def margin_of(values):
    top = torch.topk(values, 2).values
    return float(top[0] - top[1])


@torch.no_grad()
def drafts_for(main, assistant, seq, p, fx):
    """N greedy drafts for seq[:p] with next token seq[p]; and the smallest margins."""
    out = main(input_ids=torch.tensor([seq[:p]]), use_cache=False, output_hidden_states=True,
               return_shared_kv_states=True)
    hidden = out.hidden_states[-1][:, -1:]
    shared = {k: (v[0], v[1]) for k, v in out.shared_kv_states.items()}
    embed = main.get_input_embeddings()
    token = torch.tensor([[seq[p]]])
    pos = torch.tensor([[p]])
    tokens, hiddens, logits, margin = [], [], [], float("inf")
    for _ in range(N_DRAFT):
        a = assistant(inputs_embeds=torch.cat([embed(token), hidden], dim=-1), position_ids=pos,
                      shared_kv_states=shared, use_cache=False)
        lg = a.logits[0, -1]
        hn = None
        if fx["ordered"]:
            # The centroid choice must not sit on a near-tie either.
            hn = assistant._last_norm[0, -1]
            c = assistant.masked_embedding.centroids(hn)
            top = torch.topk(c, fx["top_k"] + 1).values
            margin = min(margin, float(top[-2] - top[-1]))
        margin = min(margin, margin_of(lg))
        token = lg.argmax().view(1, 1)
        hidden = a.last_hidden_state
        tokens.append(int(token))
        hiddens.append(hidden[0, -1].clone())
        logits.append(lg.clone())
    return tokens, torch.stack(hiddens), torch.stack(logits), margin


@torch.no_grad()
def greedy_of(main, prompt):
    seq, margin = list(prompt), float("inf")
    for _ in range(GREEDY):
        last = main(input_ids=torch.tensor([seq]), use_cache=False).logits[0, -1]
        margin = min(margin, margin_of(last))
        seq.append(int(last.argmax()))
    return seq[len(prompt):], margin


@torch.no_grad()
def check_generate(main, assistant, prompt, greedy, first_drafts):
    """transformers' assisted generate(): the plain greedy tokens, and round 1's drafts."""
    seen = []
    original = candidate_generator.SinglePositionMultiTokenCandidateGenerator.get_candidates

    def spy(self, input_ids, *args, **kwargs):
        ids, logits = original(self, input_ids, *args, **kwargs)
        if logits is not None:
            seen.append(ids[0, input_ids.shape[1]:].tolist())
        return ids, logits

    candidate_generator.SinglePositionMultiTokenCandidateGenerator.get_candidates = spy
    try:
        assistant.generation_config.num_assistant_tokens = N_DRAFT
        assistant.generation_config.num_assistant_tokens_schedule = "constant"
        out = main.generate(input_ids=torch.tensor([prompt]), assistant_model=assistant,
                            max_new_tokens=GREEDY, min_new_tokens=GREEDY, do_sample=False,
                            eos_token_id=None, pad_token_id=0)[0, len(prompt):].tolist()
    finally:
        candidate_generator.SinglePositionMultiTokenCandidateGenerator.get_candidates = original
    if out != greedy:
        raise RuntimeError(f"assisted generate() {out} differs from greedy {greedy}")
    if not seen or seen[0] != first_drafts:
        raise RuntimeError(f"generate()'s first drafts {seen[:1]} differ from {first_drafts}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/models/gemma4/testdata")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    for fx in FIXTURES:
        main_model, main_text = load_main(os.path.join(args.out, fx["main"]))
        text = text_config(main_text, fx)
        top = top_config(text, fx, main_text["hidden_size"])
        cfg = Gemma4AssistantConfig(
            text_config=Gemma4TextConfig(**{k: v for k, v in text.items() if k not in ("model_type", "dtype")}),
            **{k: top[k] for k in ("backbone_hidden_size", "use_ordered_embeddings", "num_centroids",
                                   "centroid_intermediate_top_k")})
        gen = torch.Generator().manual_seed(fx["seed"])
        model = Gemma4AssistantForCausalLM(cfg).float().eval()
        randomize(model, gen)
        sd = {k: v.detach().clone().contiguous() for k, v in sorted(model.state_dict().items())
              if k != "lm_head.weight"}
        out = os.path.join(args.out, fx["main"] + "_assistant")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        with open(os.path.join(out, "config.json"), "w") as f:
            f.write(json.dumps(top, indent=2, sort_keys=True) + "\n")
        save_file(sd, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})

        assistant = Gemma4AssistantForCausalLM.from_pretrained(
            out, dtype=torch.float32, attn_implementation="eager").eval()
        live = assistant.state_dict()
        for k, v in sd.items():
            if not torch.equal(live[k], v):
                raise RuntimeError(f"{out}: {k} did not load as saved")
        # The final-norm output the masked head reads (for the centroid margin).
        assistant.model.norm.register_forward_hook(
            lambda mod, inp, o: setattr(assistant, "_last_norm", o))

        g = np.random.RandomState(fx["seed"])
        window, vocab = main_text["sliding_window"], main_text["vocab_size"]
        ref, info = {}, {"fixture": fx["main"] + "_assistant", "main": fx["main"],
                         "transformers": transformers.__version__, "torch": torch.__version__,
                         "n_draft": N_DRAFT, "prompts": []}
        for i, length in enumerate([2, 5, window + 3, 3 * window + 5]):
            for attempt in range(100):
                prompt = g.randint(3, vocab, size=length).tolist()
                prompt[0] = 2
                greedy, main_margin = greedy_of(main_model, prompt)
                if main_margin < MAIN_MARGIN:
                    continue
                seq = prompt + greedy
                rows = [drafts_for(main_model, assistant, seq, length + j, fx) for j in range(GREEDY)]
                margin = min(r[3] for r in rows)
                if margin >= MIN_MARGIN:
                    break
            else:
                raise RuntimeError(f"{out}: no prompt of length {length} without near-ties")
            check_generate(main_model, assistant, prompt, greedy, rows[0][0])
            ref[f"prompt_{i}.tokens"] = torch.tensor(prompt, dtype=torch.int32)
            ref[f"prompt_{i}.greedy"] = torch.tensor(greedy, dtype=torch.int32)
            ref[f"prompt_{i}.drafts"] = torch.tensor([r[0] for r in rows], dtype=torch.int32)
            ref[f"prompt_{i}.draft_hidden"] = torch.stack([r[1] for r in rows]).contiguous()
            ref[f"prompt_{i}.draft_logits"] = torch.stack([r[2] for r in rows]).contiguous()
            accepted = sum(int(r[0][0] == seq[length + j + 1]) for j, r in enumerate(rows[:-1]))
            info["prompts"].append({"tokens": prompt, "greedy": greedy,
                                    "drafts": [r[0] for r in rows],
                                    "min_margin": round(margin, 6),
                                    "main_min_margin": round(main_margin, 6)})
            print(f"{out} prompt {i}: len {length}, margin {margin:.3g}, first drafts "
                  f"{rows[0][0]}, first-draft hits {accepted}/{GREEDY - 1}")
        save_file(ref, os.path.join(out, "reference.safetensors"),
                  metadata={"format": "oxinfer-reference"})
        with open(os.path.join(out, "reference.json"), "w") as f:
            f.write(json.dumps(info, indent=1) + "\n")
        for name in os.listdir(out):
            os.chmod(os.path.join(out, name), 0o644)


if __name__ == "__main__":
    main()
