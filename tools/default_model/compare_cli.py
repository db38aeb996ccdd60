#!/usr/bin/env python3
"""Compares the oxinfer CLI's greedy tokens on models/default with transformers' own
(models/default/REFERENCE_GREEDY.json, written by train.py's check stage): same prompt ids
(C++ tokenizer + chat template vs transformers' apply_chat_template), same greedy ids.

Usage (from the repository root):
    bazel build //:dist
    python3 tools/default_model/compare_cli.py [--model models/default]
"""
import argparse
import json
import os
import re
import subprocess
import sys


def parse_ids(stderr, what):
    m = re.search(r"\[%s tokens:([^\]]*)\]" % what, stderr)
    if not m:
        return None
    return [int(t.split(":", 1)[0]) for t in m.group(1).split()]


def compare_logits(args):
    import numpy as np
    import torch
    from transformers import AutoTokenizer, Qwen3_5ForCausalLM
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(1)
    tokz = AutoTokenizer.from_pretrained(args.model)
    model = Qwen3_5ForCausalLM.from_pretrained(args.model, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    for prompt in ["Once upon a time", "And it came to pass, when the men of the city saw that " * 3]:
        ids = tokz(prompt, add_special_tokens=False, return_tensors="pt").input_ids
        with torch.no_grad():
            want = model(input_ids=ids).logits[0, -1].numpy()
        path = "/tmp/oxinfer_default_model_logits.bin"
        subprocess.run([args.oxinfer, "--model", args.model, "--raw", "-p", prompt, "--dump_logits", path,
                        "--max_tokens", "1"], capture_output=True, check=True)
        got = np.fromfile(path, dtype=np.float32)
        print("logits, %d prompt tokens: max |oxinfer - transformers| = %.3g (logit range %.1f..%.1f)" % (
            ids.shape[1], float(np.abs(got - want).max()), want.min(), want.max()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="models/default")
    ap.add_argument("--oxinfer", default="bazel-bin/dist/bin/oxinfer")
    ap.add_argument("--logits", action="store_true",
                    help="also compare the last prompt position's logits (--dump_logits) with transformers")
    args = ap.parse_args()
    if args.logits:
        compare_logits(args)
    ref = json.load(open(os.path.join(args.model, "REFERENCE_GREEDY.json")))
    eos = json.load(open(os.path.join(args.model, "generation_config.json")))["eos_token_id"]
    failures = 0
    for case in ref:
        cmd = [args.oxinfer, "--model", args.model, "--show_tokens", "--max_tokens",
               str(len(case["greedy_ids"]))]
        if case["mode"] == "raw":
            cmd += ["--raw", "-p", case["prompt"]]
        else:
            cmd += ["--system", case["system"], "-p", case["user"]]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL (exit %d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr[-2000:]))
            failures += 1
            continue
        p_ids, g_ids = parse_ids(r.stderr, "prompt"), parse_ids(r.stderr, "generated")
        want = list(case["greedy_ids"])
        if want and want[-1] in eos:
            want = want[:-1]  # the CLI stops at an end token without printing it
        same_prompt = p_ids == case["prompt_ids"]
        n = 0
        while n < min(len(want), len(g_ids or [])) and want[n] == g_ids[n]:
            n += 1
        ok = same_prompt and g_ids == want
        failures += not ok
        print("%s [%s] %r: prompt ids %s, greedy %d/%d tokens identical" % (
            "OK  " if ok else "DIFF", case["mode"], case.get("user", case["prompt"]),
            "identical" if same_prompt else "DIFFER", n, len(want)))
        print("     oxinfer: %r" % r.stdout.strip())
        if not ok:
            print("     c++ ids: %s\n     hf  ids: %s" % (g_ids, want))
            if not same_prompt:
                print("     c++ prompt: %s\n     hf  prompt: %s" % (p_ids, case["prompt_ids"]))
    print("%d cases, %d differ" % (len(ref), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
