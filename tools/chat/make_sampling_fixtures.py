#!/usr/bin/env python3
"""Reference outputs of HF transformers' logits processors for the sampler.

For fixed logits and several sampling configurations, runs transformers'
RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper, TopKLogitsWarper,
TopPLogitsWarper and MinPLogitsWarper in the order generate() uses, and
records the processed scores (null = -inf), the distribution softmax(scores)
and the greedy choice. Writes tests/sampling/testdata/hf_processors.json.

Usage: python3 tools/chat/make_sampling_fixtures.py
"""

import json
import math
import os

import torch
import transformers
from transformers.generation.logits_process import (
    LogitsProcessorList, MinPLogitsWarper, RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper)

g = torch.Generator().manual_seed(1234)
LOGITS = {
    "small": [2.0, 1.0, 0.5, -0.5, -1.0, 3.0, 0.0, 1.5, -2.0, 2.5, 0.25, -0.25],
    "ties": [1.0, 1.0, 0.0, 1.0, -1.0, 0.0, 2.0, 2.0],
    "random64": [round(x, 4) for x in (torch.randn(64, generator=g) * 2.0).tolist()],
    "peaked": [8.0, 1.0, 0.5, 0.0, -0.5, -1.0, -3.0, -6.0],
}
PREVIOUS = [5, 0, 5, 9, 3]  # 5 twice: penalised once

CONFIGS = {
    "plain": {},
    "temp_0_7": {"temperature": 0.7},
    "temp_1_5": {"temperature": 1.5},
    "top_k_3": {"top_k": 3},
    "top_p_0_9": {"top_p": 0.9},
    "top_p_0_5": {"top_p": 0.5},
    "min_p_0_1": {"min_p": 0.1},
    "min_p_0_3": {"min_p": 0.3},
    "rep_1_3": {"repetition_penalty": 1.3},
    "rep_0_8": {"repetition_penalty": 0.8},
    "all": {"repetition_penalty": 1.2, "temperature": 0.8, "top_k": 6, "top_p": 0.95, "min_p": 0.05},
    "all_tight": {"repetition_penalty": 1.1, "temperature": 0.6, "top_k": 4, "top_p": 0.8, "min_p": 0.2},
}


def processors(cfg):
    procs = LogitsProcessorList()
    if cfg.get("repetition_penalty", 1.0) != 1.0:
        procs.append(RepetitionPenaltyLogitsProcessor(penalty=cfg["repetition_penalty"]))
    if cfg.get("temperature", 1.0) != 1.0:
        procs.append(TemperatureLogitsWarper(cfg["temperature"]))
    if cfg.get("top_k", 0) != 0:
        procs.append(TopKLogitsWarper(top_k=cfg["top_k"], min_tokens_to_keep=1))
    if cfg.get("top_p", 1.0) < 1.0:
        procs.append(TopPLogitsWarper(top_p=cfg["top_p"], min_tokens_to_keep=1))
    if cfg.get("min_p") is not None:
        procs.append(MinPLogitsWarper(min_p=cfg["min_p"], min_tokens_to_keep=1))
    return procs


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    out_path = os.path.join(repo, "tests/sampling/testdata/hf_processors.json")
    cases = []
    for lname, logits in LOGITS.items():
        for cname, cfg in CONFIGS.items():
            for use_prev in (False, True):
                if use_prev and "repetition_penalty" not in cfg:
                    continue
                prev = PREVIOUS if use_prev else []
                scores = torch.tensor([logits], dtype=torch.float32)
                ids = torch.tensor([prev if prev else [0]], dtype=torch.long)
                if not prev:
                    ids = ids[:, :0]
                out = processors(cfg)(ids, scores.clone())[0]
                probs = torch.softmax(out.double(), dim=-1)
                cases.append({
                    "logits": lname, "config": cname, "params": cfg, "previous": prev,
                    "scores": [None if math.isinf(x) else x for x in out.tolist()],
                    "probs": probs.tolist(),
                    "greedy": int(torch.argmax(out).item()),
                })
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump({"generator": "tools/chat/make_sampling_fixtures.py",
                   "transformers_version": transformers.__version__, "torch_version": torch.__version__,
                   "logits": LOGITS, "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {out_path}")


if __name__ == "__main__":
    main()
