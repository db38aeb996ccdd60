#!/usr/bin/env python3
"""Alternates two builds of gemma4_bench on one checkpoint and reports medians.

Each build is a folder holding gemma4_bench, liboxinfer_gemma4.so and a CPU
backend .so (copy them out of bazel-bin first, so a rebuild cannot change them
between rounds). Per round and weight type, A then B (B then A on odd rounds)
run one prefill of --prompt tokens and --new greedy decode steps; the table
gives the median tok/s over rounds and the load averages seen.

  python3 tools/bench/gemma4_ab.py --a OLD_DIR --b NEW_DIR --model E2B_DIR \
      [--rounds 3] [--quants bf16,q8_0,q4_0] [--prompt 512] [--new 32]
"""

import argparse
import os
import re
import statistics
import subprocess

LINE = re.compile(r"prefill (\d+) tokens ([\d.]+) tok/s, decode (\d+) tokens ([\d.]+) tok/s")


def run(build, backend, model, prompt, new, quant):
    cmd = [os.path.join(build, "gemma4_bench"), os.path.join(build, "liboxinfer_gemma4.so"),
           os.path.join(build, backend), model, str(prompt), str(new), quant]
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    m = LINE.search(out.stdout)
    if out.returncode != 0 or m is None:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}")
    return float(m.group(2)), float(m.group(4)), float(load), out.stdout.strip().splitlines()[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="build folder A (e.g. the old one)")
    ap.add_argument("--b", required=True, help="build folder B")
    ap.add_argument("--backend", default="liboxinfer_cpu_avx2.so")
    ap.add_argument("--model", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quants", default="bf16,q8_0,q4_0")
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--new", type=int, default=32)
    args = ap.parse_args()
    quants = args.quants.split(",")
    res = {(b, q): [] for b in ("a", "b") for q in quants}
    for r in range(args.rounds):
        for q in quants:
            order = ("a", "b") if r % 2 == 0 else ("b", "a")
            for b in order:
                pre, dec, load, ops = run(getattr(args, b), args.backend, args.model, args.prompt,
                                          args.new, q)
                res[(b, q)].append((pre, dec, load))
                print(f"round {r} {q} {b}: prefill {pre} tok/s, decode {dec} tok/s, load {load}"
                      f"\n    {ops}", flush=True)
    print(f"\n| weights | A prefill {args.prompt} | B prefill {args.prompt} | B/A | "
          f"A decode | B decode | B/A | load (min-max) |")
    print("|---|---|---|---|---|---|---|---|")
    for q in quants:
        a, b = res[("a", q)], res[("b", q)]
        ap_, bp = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
        ad, bd = statistics.median(x[1] for x in a), statistics.median(x[1] for x in b)
        loads = [x[2] for x in a + b]
        print(f"| {q} | {ap_:.1f} | {bp:.1f} | {bp / ap_:.2f} | {ad:.2f} | {bd:.2f} | "
              f"{bd / ad:.2f} | {min(loads):.2f}-{max(loads):.2f} |")


if __name__ == "__main__":
    main()
