#!/usr/bin/env python3
"""Stage table (markdown) and plot from run_sd.sh's logs.

  report_sd.py RESULTS_DIR OUT.png > table.md

stable-diffusion.cpp stages from its own log lines: get_learned_condition (text
encoder), sampling (the UNet pass; 1 step), decode_first_stage (VAE decoder),
"generate_image completed" or the sum (total). oxinfer stages from sd_bench:
"text encoder", the sum of "unet pass N", "vae decoder", total (with staged
residency that total includes the networks' "load ..." stages, which sd-cli does
before it starts generating).
Median of the rounds per stage; peak RSS from /usr/bin/time -v."""
import glob, os, re, statistics, sys

d, png = sys.argv[1:3]


def rss(s):
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", s)
    return int(m.group(1)) / 1e6 if m else float("nan")


def sdcpp(path):
    s = open(path).read()
    def f(pat):
        m = re.findall(pat, s)
        return float(m[-1]) if m else float("nan")
    te = f(r"get_learned_condition completed, taking ([\d.]+)s")
    un = f(r"sampling completed, taking ([\d.]+)s")
    va = f(r"decode_first_stage completed, taking ([\d.]+)s")
    tot = f(r"generate_image completed in ([\d.]+)s")
    if tot != tot:
        tot = te + un + va
    load = re.search(r"^LOAD (.*)$", s, re.M).group(1)
    return dict(te=te, unet=un, vae=va, total=tot, load=load, rss=rss(s))


def ours(path):
    s = open(path).read()
    def f(name):
        m = re.search(r"^%s\s+([\d.]+) s wall\s+([\d.]+) s cpu" % re.escape(name), s, re.M)
        return float(m.group(1)) if m else float("nan")
    un = [float(x) for x in re.findall(r"^unet pass \d+\s+([\d.]+) s wall", s, re.M)]
    m = re.search(r"^total: ([\d.]+) s wall", s, re.M)
    load = re.search(r"^LOAD (.*)$", s, re.M).group(1)
    return dict(te=f("text encoder"), unet=sum(un) if un else float("nan"), vae=f("vae decoder"),
                total=float(m.group(1)) if m else float("nan"), load=load, rss=rss(s))


runs = {"stable-diffusion.cpp": [sdcpp(p) for p in sorted(glob.glob(os.path.join(d, "sd_sdcpp_*.log")))],
        "oxinfer": [ours(p) for p in sorted(glob.glob(os.path.join(d, "sd_ours_*.log")))]}
best = {e: {k: statistics.median(r[k] for r in rs) for k in ("te", "unet", "vae", "total", "rss")}
        for e, rs in runs.items() if rs}
print("| stage (s, wall; median of the rounds) | stable-diffusion.cpp | oxinfer | oxinfer / sd.cpp |")
print("|---|---|---|---|")
names = {"te": "text encoder", "unet": "UNet pass (1 step)", "vae": "VAE decoder", "total": "total (generation, no model load)",
         "rss": "peak RSS, GB"}
for k, n in names.items():
    a, o = best["stable-diffusion.cpp"][k], best["oxinfer"][k]
    print(f"| {n} | {a:.2f} | {o:.2f} | {o/a:.2f} |")
print()
print("Each round (engines alternate within a round):")
print()
print("| round | engine | load avg before | text encoder | UNet pass | VAE decoder | total | peak RSS GB |")
print("|---|---|---|---|---|---|---|---|")
for i in range(max(len(v) for v in runs.values())):
    for e, rs in runs.items():
        if i < len(rs):
            r = rs[i]
            print(f"| {i+1} | {e} | {r['load']} | {r['te']:.2f} | {r['unet']:.2f} | {r['vae']:.2f} | {r['total']:.2f} | {r['rss']:.2f} |")

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(7, 4.5))
keys = ["te", "unet", "vae"]
for i, e in enumerate(["stable-diffusion.cpp", "oxinfer"]):
    left = 0
    for k, c in zip(keys, ["tab:green", "tab:blue", "tab:orange"]):
        v = best[e][k]
        ax.barh(i, v, left=left, color=c, label=names[k] if i == 0 else None)
        left += v
    ax.text(left, i, f" {best[e]['total']:.1f} s", va="center")
ax.set_yticks([0, 1]); ax.set_yticklabels(["stable-diffusion.cpp", "oxinfer"])
ax.set_xlabel("seconds, wall (2 threads, shared machine)")
ax.set_title("SD-Turbo 512x512, 1 step, random weights (f16)")
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
fig.savefig(png, dpi=90)
