#!/usr/bin/env python3
"""The markdown table of run_server.sh's server.jsonl: per quant and number of
concurrent clients, the median over rounds of each engine's aggregate decode
rate and time to first token, the ratio ours / llama.cpp, and the 1-minute
load averages seen. Standard library only.

  report_server.py OUT/server.jsonl"""
import collections
import json
import statistics
import sys


def main():
    runs = collections.defaultdict(list)  # (quant, clients, engine) -> [line]
    with open(sys.argv[1]) as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            engine, quant, _ = d["label"].split()
            runs[(quant, d["clients"], engine)].append(d)
    quants = sorted({k[0] for k in runs}, key=lambda q: ["bf16", "q8_0", "q4_0"].index(q)
                    if q in ("bf16", "q8_0", "q4_0") else 9)
    print("| weights | clients | llama-server tok/s | oxinfer-server tok/s | ours / llama | "
          "TTFT llama / ours | rounds | load |")
    print("|---|---|---|---|---|---|---|---|")
    for q in quants:
        for c in sorted({k[1] for k in runs if k[0] == q}):
            lm, ours = runs.get((q, c, "llama"), []), runs.get((q, c, "ours"), [])
            if not lm or not ours:
                continue
            tl = statistics.median(d["aggregate_tps"] for d in lm)
            to = statistics.median(d["aggregate_tps"] for d in ours)
            fl = statistics.median(d["ttft_s"] for d in lm)
            fo = statistics.median(d["ttft_s"] for d in ours)
            loads = [d["load1"] for d in lm + ours]
            print(f"| {q} | {c} | {tl:.1f} | {to:.1f} | {to / tl:.2f}x | "
                  f"{fl * 1000:.0f} / {fo * 1000:.0f} ms | {min(len(lm), len(ours))} | "
                  f"{min(loads):.1f}-{max(loads):.1f} |")


if __name__ == "__main__":
    main()
