#!/usr/bin/env python3
"""Markdown tables and a plot from run_llm.sh's llm.jsonl.

  report_llm.py RESULTS/llm.jsonl GGUF_DIR LLAMA_SRC OUT.png > table.md

Every figure is the median over the rounds (run_llm.sh alternates the engines
round by round); the range and the load averages of the rounds stand beside
it, and rounds that started above the run's MAX_LOAD are marked with `!` and
counted. Decode bound = the median membench read limit of the same thread
count (runs before and after) / the bytes of weights read per token (the GGUF's
tensor bytes: Qwen 3.5-0.8B ties its embeddings, so the 248320x1024 matrix is
read once per token, as the LM head)."""
import collections
import json
import os
import statistics
import sys

jl, gguf_dir, llama_src, png = sys.argv[1:5]
sys.path.insert(0, os.path.join(llama_src, "gguf-py"))
import gguf  # llama.cpp's own reader

rows = [json.loads(l) for l in open(jl) if l.strip()]
meta = next((r for r in rows if r["engine"] == "meta"), {})
bw = collections.defaultdict(list)
for r in rows:
    if r["engine"] == "membench":
        bw[r["threads"]].append(r)
wbytes = {}
for q in ("bf16", "q8_0", "q4_0"):
    p = os.path.join(gguf_dir, f"qwen35-0.8b-{q}.gguf")
    if os.path.exists(p):
        wbytes[q] = sum(int(t.n_bytes) for t in gguf.GGUFReader(p).tensors)

groups = collections.defaultdict(list)
for r in rows:
    if r["engine"] in ("llama.cpp", "oxinfer"):
        groups[(r["engine"], r["quant"], r["threads"], r["kind"], r["n"])].append(r)
med = statistics.median


def cell(rs):
    v = [r["tps"] for r in rs]
    return f"{med(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "-"


def loads(rs):
    return ", ".join(r["load"].split()[0] + ("!" if r.get("flagged") else "") for r in rs)


print(f"oxinfer's CPU backend: `{meta.get('backend', '?')}` (the one `oxinfer` chooses here); "
      f"{meta.get('rounds', '?')} alternating rounds per configuration after a warm-up of each engine; "
      f"median (min-max) over the rounds; `!`: the round started above a 1-minute load of "
      f"{meta.get('max_load', '?')}.")
print()
print("membench read limit in this run (GB/s, best layout): " + "; ".join(
    f"{t} thread{'s' if t > 1 else ''}: " + ", ".join(f"{r['GBps']:.1f} ({r['when']}, load {r['load']})" for r in v)
    for t, v in sorted(bw.items())))
print()
print("GGUF tensor bytes (= bytes of weights per decoded token): " +
      ", ".join(f"{q} {b/1e9:.3f} GB" for q, b in wbytes.items()))
print()
print("| weights | threads | test | llama.cpp tok/s | oxinfer tok/s | oxinfer / llama.cpp | decode bound tok/s "
      "(share: llama.cpp; oxinfer) | peak RSS GB (llama.cpp; oxinfer) | 1-min load per round (llama.cpp; oxinfer) |")
print("|---|---|---|---|---|---|---|---|---|")
keys = sorted({k[1:] for k in groups},
              key=lambda k: (["bf16", "q8_0", "q4_0"].index(k[0]), k[1], k[2] != "pp", k[3]))
plot = []
n_flag = 0
for q, t, kind, n in keys:
    a = groups.get(("llama.cpp", q, t, kind, n), []); o = groups.get(("oxinfer", q, t, kind, n), [])
    n_flag += sum(1 for r in a + o if r.get("flagged"))
    av = med([r["tps"] for r in a]) if a else float("nan")
    ov = med([r["tps"] for r in o]) if o else float("nan")
    bound, bnd = "", float("nan")
    if kind == "tg" and q in wbytes and bw.get(t):
        bnd = med([r["GBps"] for r in bw[t]]) * 1e9 / wbytes[q]
        bound = f"{bnd:.1f} ({100 * av / bnd:.0f}%; {100 * ov / bnd:.0f}%)"
    rss = "; ".join(f"{med([r['rss_kb'] for r in x]) / 1e6:.2f}" if x else "-" for x in (a, o))
    print(f"| {q} | {t} | {kind}{n} | {cell(a)} | {cell(o)} | **{ov / av:.2f}** | {bound} | {rss} | "
          f"{loads(a)}; {loads(o)} |")
    plot.append((q, t, kind, n, av, ov, bnd))
print()
print(f"Measurements from rounds that started above the load limit: {n_flag}.")

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
kinds = sorted({(p[2], p[3]) for p in plot}, key=lambda k: (k[0] != "pp", k[1]))
fig, axes = plt.subplots(1, len(kinds), figsize=(6 * len(kinds), 4.5), squeeze=False)
for ax, (kind, n) in zip(axes[0], kinds):
    sel = [p for p in plot if p[2] == kind and p[3] == n]
    x = range(len(sel))
    ax.bar([i - 0.2 for i in x], [p[4] for p in sel], 0.4, label="llama.cpp")
    ax.bar([i + 0.2 for i in x], [p[5] for p in sel], 0.4, label=f"oxinfer ({meta.get('backend', '?')})")
    if kind == "tg":
        ax.plot(list(x), [p[6] for p in sel], "k_", markersize=22, mew=2, label="bound (membench)")
    ax.set_xticks(list(x)); ax.set_xticklabels([f"{p[0]}\n{p[1]} thr" for p in sel])
    ax.set_title(f"{'prefill' if kind == 'pp' else 'decode'} {kind}{n}, tok/s (median of rounds)")
    ax.legend(fontsize=8)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "CPU")
fig.suptitle(f"Qwen3.5-0.8B (random weights), {cpu}, {os.cpu_count()} cores (load averages in the table)")
fig.tight_layout()
fig.savefig(png, dpi=90)
