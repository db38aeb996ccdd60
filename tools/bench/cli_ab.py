#!/usr/bin/env python3
"""Alternates two oxinfer CLI binaries on the same arguments and reports medians.

For before/after measurements of the host (the engine) on a shared machine:
per round A then B (B then A on odd rounds), each run in its own process; the
speed line ("prefill: N tokens ... (X tok/s); decode: M tokens ... (Y tok/s)")
is parsed and the greedy output compared between A and B. Copy each build out
of bazel-bin first (cp -rL bazel-bin/dist DIR), so a rebuild cannot change it
between rounds.

  python3 tools/bench/cli_ab.py --a OLD/dist/bin/oxinfer --b NEW/dist/bin/oxinfer \
      [--rounds 5] -- --model DIR --raw -p "Once upon a time" --max-tokens 128 --threads 1

With --b-args "ARGS" B runs (B's binary, by default A's) with other arguments
instead: one binary on two inputs, e.g. a GGUF file against the safetensors
folder it was converted from (--b-args "--model F.gguf ...").
"""
import shlex

import argparse
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"prefill: (\d+) tokens.*?\(([\d.]+) tok/s\); decode: (\d+) tokens in "
                  r"([\d.]+) s \(([\d.]+) tok/s\)")


def run(binary, args):
    with open("/proc/loadavg") as f:
        load = float(f.read().split()[0])
    out = subprocess.run([binary] + args, capture_output=True, text=True, check=False)
    m = LINE.search(out.stderr)
    if out.returncode != 0 or m is None:
        raise RuntimeError(f"{binary} {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}")
    return {"prefill": float(m.group(2)), "decoded": int(m.group(3)),
            "decode": float(m.group(5)), "text": out.stdout, "load": load}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="oxinfer binary A (e.g. the old one)")
    ap.add_argument("--b", help="oxinfer binary B (default: A's)")
    ap.add_argument("--b-args", help="B's CLI arguments, if not A's (one string)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("args", nargs=argparse.REMAINDER, help="-- then the CLI arguments")
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    a.b = a.b or a.a
    b_args = shlex.split(a.b_args) if a.b_args is not None else args
    results = {"A": [], "B": []}
    for r in range(a.rounds):
        order = [("A", a.a, args), ("B", a.b, b_args)]
        for name, binary, argv in order if r % 2 == 0 else order[::-1]:
            results[name].append(run(binary, argv))
    same = all(x["text"] == results["A"][0]["text"] for x in results["A"] + results["B"])
    print(f"args: {' '.join(args)}")
    if a.b_args is not None:
        print(f"B's args: {' '.join(b_args)}")
    print(f"rounds: {a.rounds}; greedy output identical across all runs: {same}")
    print("| build | decoded | decode tok/s median | best | prefill tok/s median | load avg |")
    print("|---|---|---|---|---|---|")
    for name, binary in (("A", a.a), ("B", a.b)):
        rs = results[name]
        dec = [x["decode"] for x in rs]
        print(f"| {name} {binary} | {rs[0]['decoded']} | {statistics.median(dec):.1f} | "
              f"{max(dec):.1f} | {statistics.median(x['prefill'] for x in rs):.1f} | "
              f"{min(x['load'] for x in rs):.1f}-{max(x['load'] for x in rs):.1f} |")
    return 0 if same or a.b_args is not None else 1


if __name__ == "__main__":
    sys.exit(main())
