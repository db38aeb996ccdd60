"""Draws docs/architecture.png: the layers of oxinfer and the plugin boundary.

python3 tools/docs/architecture_diagram.py   (needs matplotlib)
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch


def box(ax, x, y, w, h, text, color, size=9, weight="normal"):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.08",
                                fc=color, ec="#333333", lw=1.0))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, weight=weight,
            wrap=True)


def arrow(ax, x0, y0, x1, y1, text=None):
    ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                arrowprops=dict(arrowstyle="->", lw=1.2, color="#333333"))
    if text:
        ax.text((x0 + x1) / 2 + 0.08, (y0 + y1) / 2, text, fontsize=7.5, color="#333333",
                va="center")


fig, ax = plt.subplots(figsize=(11, 7.2))
ax.set_xlim(0, 11)
ax.set_ylim(0, 7.2)
ax.axis("off")

# Host process.
ax.add_patch(FancyBboxPatch((0.2, 3.75), 10.6, 3.25, boxstyle="round,pad=0.02", fc="#f4f7fb",
                            ec="#6b7b8c", lw=1.2, ls="--"))
ax.text(0.35, 6.8, "host process (oxinfer CLI, or a program embedding the core)", fontsize=9,
        color="#44546a", weight="bold")
box(ax, 0.5, 5.55, 3.1, 1.0, "engine (core/engine): sessions,\nbatching, sampling; the CLI\nprints and parses flags", "#dbe8f7")
box(ax, 3.9, 5.55, 3.2, 1.0, "Registry + loader\nsearch path, dlopen, ABI check,\nscore, choice by device kind",
    "#dbe8f7")
box(ax, 7.4, 5.55, 3.1, 1.0, "Backend dispatcher\nper op: accelerator if supported,\nelse CPU + copies; profile, check",
    "#dbe8f7")
box(ax, 0.5, 4.0, 10.0, 1.25,
    "core: dtypes (f32 bf16 f16 Q8_0 Q4_0), thread pool, safetensors, JSON, tokenizer,\n"
    "chat templates, sampler  --  files, JSON and weights reach plugins as host services",
    "#c9dcf2")

# The boundary.
ax.plot([0.2, 10.8], [3.45, 3.45], color="#b03a2e", lw=2.0)
ax.text(5.5, 3.62, "plugin C ABI 2 (plugin_abi.h): one entry symbol, struct_size on every struct, "
        "score(), host services in, C tables out; ops as data", ha="center", fontsize=8.5, color="#b03a2e")

# Plugins.
box(ax, 0.3, 1.55, 3.3, 1.3,
    "backends (BackendPlugin<T>)\ncpu-scalar  cpu-avx2  cpu-avx512\ncuda  vulkan ... (own buffers)", "#e3f1de")
box(ax, 3.85, 1.55, 3.3, 1.3, "models (ModelPlugin<T>)\ngemma4  qwen35  sd\nbatched forward, backend ops", "#fdf0d5")
box(ax, 7.4, 1.55, 3.3, 1.3, "codecs\npng  jpeg  webp  gif  audio", "#f6e0ee")
box(ax, 0.3, 0.25, 10.4, 0.9,
    "each plugin: its own shared object liboxinfer_<name>.so, built against the SDK headers "
    "alone (core/sdk/include)", "#eeeeee", size=8.5)

arrow(ax, 5.5, 5.55, 5.5, 5.25)
arrow(ax, 1.95, 3.42, 1.95, 2.87)
arrow(ax, 5.5, 3.42, 5.5, 2.87)
arrow(ax, 9.05, 3.42, 9.05, 2.87)

fig.tight_layout()
fig.savefig("docs/architecture.png", dpi=110)
print("wrote docs/architecture.png")
