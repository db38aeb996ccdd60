#!/usr/bin/env python3
"""Differential fuzzing of the chat-template engine against transformers.

Makes random conversations (roles, reasoning, tool calls with random JSON
arguments, awkward strings) and renders them with every template, in the
fixture format of make_fixtures.py, to a file outside the repository:

  python3 tools/chat/fuzz_fixtures.py --n 300 --seed 1 --out /tmp/chat_fuzz.json
  bazel test //tests/chat:chat_template_fixture_test \
      --test_env=OXINFER_CHAT_FIXTURE=/tmp/chat_fuzz.json --test_env=OXINFER_SHARED_DIR=$PWD/../shared
"""

import argparse
import copy
import json
import os
import random
import sys

import make_fixtures as mf

STRINGS = ["hi", "", " padded ", "line1\nline2", "quote \" and ' and \\", "日本語 🚀 é",
           "<think>\ninner\n</think>\n\nafter", "<tool_response>\nx\n</tool_response>", "{{ x }} {% y %}",
           "\t tab", "a" * 50, "<|turn>model", "null", "1.5", "<channel|>x<|channel>thought\ny"]


def rand_json(r, depth=0):
    k = r.randrange(9 if depth < 2 else 6)
    if k == 0:
        return r.choice(STRINGS)
    if k == 1:
        return r.randrange(-1000, 1000)
    if k == 2:
        return r.choice([0.5, -2.25, 1e-7, 1e20, 3.14159, 100.0, -0.0])
    if k == 3:
        return r.choice([True, False])
    if k == 4:
        return None
    if k == 5:
        return r.choice(STRINGS)
    if k in (6, 7):
        return {f"k{i}_{r.choice('zab')}": rand_json(r, depth + 1) for i in range(r.randrange(4))}
    return [rand_json(r, depth + 1) for _ in range(r.randrange(4))]


def rand_conversation(r):
    msgs = []
    if r.random() < 0.5:
        msgs.append({"role": "system", "content": r.choice(STRINGS[:6])})
    call_id = 0
    for turn in range(r.randrange(1, 5)):
        msgs.append({"role": "user", "content": r.choice(STRINGS)})
        if r.random() < 0.75:
            m = {"role": "assistant", "content": r.choice(STRINGS)}
            if r.random() < 0.4:
                m[r.choice(["reasoning_content", "reasoning", "thinking"])] = r.choice(STRINGS)
            if r.random() < 0.4:
                calls = []
                for _ in range(r.randrange(1, 3)):
                    call_id += 1
                    args = {f"p{i}": rand_json(r) for i in range(r.randrange(3))}
                    calls.append({"id": f"call_{call_id}", "type": "function",
                                  "function": {"name": r.choice(["get_weather", "search_documents"]),
                                               "arguments": args}})
                m["tool_calls"] = calls
                if r.random() < 0.3:
                    m["content"] = None
                msgs.append(m)
                for c in calls:
                    if r.random() < 0.8:
                        msgs.append({"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"],
                                     "content": r.choice(STRINGS)})
            else:
                msgs.append(m)
    if r.random() < 0.3 and msgs[-1]["role"] != "assistant":
        msgs.append({"role": "assistant", "content": r.choice(STRINGS)})
    conv = {"messages": msgs}
    if r.random() < 0.5:
        conv["tools"] = r.choice([mf.TOOLS, [mf.WEATHER_TOOL], [mf.SEARCH_TOOL]])
    return conv


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(repo), "shared"))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/chat_fuzz.json")
    args = ap.parse_args()
    r = random.Random(args.seed)
    mf.CONVERSATIONS = {f"fuzz{i}": rand_conversation(r) for i in range(args.n)}
    # One random variant per conversation keeps the file small.
    names = list(mf.VARIANTS)
    orig_variants = dict(mf.VARIANTS)
    sys.argv = [sys.argv[0], "--shared", args.shared, "--out", args.out]
    # Render every conversation with two variants chosen at random.
    picked = set(r.sample(names, 3))
    mf.VARIANTS = {k: v for k, v in orig_variants.items() if k in picked}
    mf.main()


if __name__ == "__main__":
    main()
