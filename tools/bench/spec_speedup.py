#!/usr/bin/env python3
"""Expected speed-up of speculative decoding from qwen35_spec_bench's output.

Reads the bench's lines on stdin ("k=1 step T ms", "k=K verify T ms ...",
"mtp draft step T ms ...", "rewind after k=K ... T ms ...") and prints, for a
per-draft acceptance probability a (each draft accepted with probability a
when the ones before it were, independently), the tokens per round of k
drafts, E = (1 - a^(k+1)) / (1 - a), the time per round,
k * draft + verify(k + 1) + (1 - a^k) * rewind, and the speed-up
E * step / round over plain decoding, for every k the bench timed and the best.

Usage: qwen35_spec_bench ... | python3 tools/bench/spec_speedup.py [a ...]
(default a = 0.4 0.6).
"""
import re
import sys


def main():
    rates = [float(x) for x in sys.argv[1:]] or [0.4, 0.6]
    step, draft, verify, rewind = None, 0.0, {}, {}
    for line in sys.stdin:
        sys.stdout.write(line)
        if m := re.match(r"k=1 step ([\d.]+) ms", line):
            step = float(m.group(1))
        elif m := re.match(r"k=(\d+) verify ([\d.]+) ms", line):
            verify[int(m.group(1))] = float(m.group(2))
        elif m := re.match(r"mtp draft step ([\d.]+) ms", line):
            draft = float(m.group(1))
        elif m := re.match(r"rewind after k=(\d+) to 1 kept ([\d.]+) ms", line):
            rewind[int(m.group(1))] = float(m.group(2))
    if step is None:
        sys.exit("no 'k=1 step' line")
    verify[1] = step
    rw = max(rewind.values()) if rewind else 0.0
    for a in rates:
        best = None
        cells = []
        for k in sorted(verify):
            if k < 2 or k - 1 < 1:
                continue
            n = k - 1  # drafts verified by a k-token forward
            tokens = (1 - a ** (n + 1)) / (1 - a)
            t = n * draft + verify[k] + (1 - a ** n) * rw
            s = tokens * step / t
            cells.append(f"{n} drafts {s:.2f}x")
            if best is None or s > best[1]:
                best = (n, s)
        print(f"a={a:.0%}: " + ", ".join(cells) + f"; best {best[0]} drafts: {best[1]:.2f}x")


if __name__ == "__main__":
    main()
