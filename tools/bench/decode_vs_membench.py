#!/usr/bin/env python3
"""Decode matmul bandwidth as a share of the machine's read limit, measured
alternately in one run so that both see the same machine (on a shared host the
DRAM bandwidth moves by 20-30% from minute to minute).

Each round runs membench (every thread count x streams per thread; the limit
of a thread count is its best stream count) and then the decode benchmarks;
the ratio is taken within the round. Prints a markdown table: the median over
rounds of each figure and of each ratio.

  bazel build -c opt //tools/bench:membench //tools/bench:matmul_bench
  python3 tools/bench/decode_vs_membench.py --rounds 3
"""
import argparse
import json
import re
import statistics
import subprocess

DECODE_FILTER = r"BM_Decode/[1-6]/[12]/1/"


def bench(binary, extra):
    out = subprocess.run([binary, "--benchmark_format=json", "--benchmark_min_time=1"] + extra,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["benchmarks"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bin", default="bazel-bin/tools/bench")
    args = ap.parse_args()
    limits = {}   # threads -> [GB/s per round]
    decode = {}   # (label, threads) -> [GB/s per round]
    ratios = {}   # (label, threads) -> [ratio per round]
    for r in range(args.rounds):
        best = {}
        for b in bench(f"{args.bin}/membench", []):
            t, s = map(int, re.match(r"BM_ReadBandwidth/(\d+)/(\d+)", b["name"]).groups())
            best[t] = max(best.get(t, 0.0), b["bytes_per_second"] / 1e9)
        for t, v in best.items():
            limits.setdefault(t, []).append(v)
        for b in bench(f"{args.bin}/matmul_bench", [f"--benchmark_filter={DECODE_FILTER}"]):
            label = b["label"].split(" m=")[0]
            t = int(re.search(r"threads=(\d+)", b["label"]).group(1))
            v = b["bytes_per_second"] / 1e9
            decode.setdefault((label, t), []).append(v)
            ratios.setdefault((label, t), []).append(v / best[t])
        print(f"round {r + 1}: limit " + ", ".join(f"{t} thr {v:.1f}" for t, v in sorted(best.items())),
              flush=True)
    med = statistics.median
    threads = sorted(limits)
    print("\n| weights (storage) | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}: GB/s, % of limit" for t in threads) + " |")
    print("|---|" + "---|" * len(threads))
    print("| read limit (membench, best streams) | " +
          " | ".join(f"{med(limits[t]):.1f} ({min(limits[t]):.1f}-{max(limits[t]):.1f})" for t in threads) + " |")
    for label in dict.fromkeys(k[0] for k in decode):
        cells = []
        for t in threads:
            if (label, t) not in decode:
                cells.append("-")
                continue
            cells.append(f"{med(decode[(label, t)]):.1f}, **{100 * med(ratios[(label, t)]):.0f}%** "
                         f"({100 * min(ratios[(label, t)]):.0f}-{100 * max(ratios[(label, t)]):.0f}%)")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
