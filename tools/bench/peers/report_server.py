#!/usr/bin/env python3
"""The markdown table of run_server.sh's server.jsonl: per quant and number of
concurrent clients, the median over rounds of each engine's aggregate decode
rate and time to first token, the ratio ours / llama.cpp, and the 1-minute
load averages seen; with a second argument also a plot (matplotlib: aggregate
tok/s against clients, one panel per quant).

  report_server.py OUT/server.jsonl [OUT/server.png [MODEL NAME for the titles]]"""
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
    plot = {}  # quant -> [(clients, llama tok/s, ours tok/s)]
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
            plot.setdefault(q, []).append((c, tl, to))
            print(f"| {q} | {c} | {tl:.1f} | {to:.1f} | {to / tl:.2f}x | "
                  f"{fl * 1000:.0f} / {fo * 1000:.0f} ms | {min(len(lm), len(ours))} | "
                  f"{min(loads):.1f}-{max(loads):.1f} |")
    if len(sys.argv) > 2 and plot:
        write_plot(plot, sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "Qwen3.5-0.8B (random)")


def write_plot(plot, png, model):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(plot), figsize=(5.5 * len(plot), 4), squeeze=False)
    for ax, (q, rows) in zip(axes[0], plot.items()):
        cs = [r[0] for r in rows]
        ax.plot(cs, [r[1] for r in rows], "o-", label="llama-server")
        ax.plot(cs, [r[2] for r in rows], "s-", label="oxinfer-server")
        ax.set_xscale("log", base=2)
        ax.set_xticks(cs)
        ax.set_xticklabels([str(c) for c in cs])
        ax.set_xlabel("concurrent clients")
        ax.set_ylabel("aggregate decode tok/s (median)")
        ax.set_title(f"{model}, {q}")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
