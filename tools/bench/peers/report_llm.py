#!/usr/bin/env python3
"""Table (markdown) and plot from run_llm.sh's llm.jsonl.

  report_llm.py RESULTS/llm.jsonl GGUF_DIR LLAMA_SRC OUT.png > table.md

Decode bound = membench read bandwidth (same run, same thread count, mean of the
runs before and after) / bytes of weights read per token; the bytes are the
tensor bytes of the GGUF (text model only; Qwen 3.5-0.8B ties its embeddings,
so the 248320x1024 matrix is read once per token as the LM head). Best of the
repetitions for both engines."""
import json, os, sys, collections

jl, gguf_dir, llama_src, png = sys.argv[1:5]
sys.path.insert(0, os.path.join(llama_src, "gguf-py"))
import gguf  # llama.cpp's own reader

rows = [json.loads(l) for l in open(jl) if l.strip()]
bw = collections.defaultdict(list)
for r in rows:
    if r["engine"] == "membench":
        bw[int(r["name"].split("/")[1])].append((r["GBps"], r["load"]))
wbytes = {}
for q in ("bf16", "q8_0", "q4_0"):
    p = os.path.join(gguf_dir, f"qwen35-0.8b-{q}.gguf")
    if os.path.exists(p):
        wbytes[q] = sum(int(t.n_bytes) for t in gguf.GGUFReader(p).tensors)

best = {}
rows = [r for r in rows if not (r.get("kind") == "tg" and r.get("n") != 32)]
for r in rows:
    if r["engine"] == "membench":
        continue
    k = (r["engine"], r["quant"], r["threads"], r["kind"], r["n"])
    if k not in best or r["tps_best"] > best[k]["tps_best"]:
        best[k] = r

print("membench read bandwidth in this run (wall time, GB/s): " + "; ".join(
    f"{t} thr: " + ", ".join(f"{g:.1f} (load {l})" for g, l in v) for t, v in sorted(bw.items())))
print()
print("GGUF tensor bytes (= bytes of weights per decoded token): " +
      ", ".join(f"{q} {b/1e9:.3f} GB" for q, b in wbytes.items()))
print()
print("| weights | threads | test | llama.cpp tok/s | oxinfer tok/s | oxinfer / llama.cpp | decode bound tok/s | load avg (llama.cpp; oxinfer) |")
print("|---|---|---|---|---|---|---|---|")
keys = sorted({k[1:] for k in best}, key=lambda k: (["bf16", "q8_0", "q4_0"].index(k[0]), -k[1], k[2] != "pp", k[3]))
plot = []
for q, t, kind, n in keys:
    a = best.get(("llama.cpp", q, t, kind, n)); o = best.get(("oxinfer", q, t, kind, n))
    av = a["tps_best"] if a else float("nan"); ov = o["tps_best"] if o else float("nan")
    bound = ""
    bnd = float("nan")
    if kind == "tg" and q in wbytes and bw.get(t):
        g = sum(x for x, _ in bw[t]) / len(bw[t])
        bnd = g * 1e9 / wbytes[q]
        bound = f"{bnd:.1f}"
    print(f"| {q} | {t} | {kind}{n} | {av:.2f} | {ov:.2f} | {ov/av:.2f} | {bound} | {a['load'] if a else '-'}; {o['load'] if o else '-'} |")
    plot.append((q, t, kind, n, av, ov, bnd))

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
for ax, (kind, n) in zip(axes, [("pp", 64), ("pp", 512), ("tg", 32)]):
    sel = [p for p in plot if p[2] == kind and p[3] == n]
    labels = [f"{p[0]}\n{p[1]} thr" for p in sel]
    x = range(len(sel))
    ax.bar([i - 0.2 for i in x], [p[4] for p in sel], 0.4, label="llama.cpp")
    ax.bar([i + 0.2 for i in x], [p[5] for p in sel], 0.4, label="oxinfer")
    if kind == "tg":
        ax.plot(list(x), [p[6] for p in sel], "k_", markersize=22, mew=2, label="bound (membench)")
    ax.set_xticks(list(x)); ax.set_xticklabels(labels)
    ax.set_title(f"{'prefill' if kind == 'pp' else 'decode'} {kind}{n}, tok/s")
    ax.legend(fontsize=8)
fig.suptitle("Qwen3.5-0.8B (random weights), 2-core EPYC, shared machine (see load averages in docs/peers.md)")
fig.tight_layout()
fig.savefig(png, dpi=90)
