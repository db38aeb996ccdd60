#!/usr/bin/env python3
"""Aggregate decode throughput and time to first token of an OpenAI-compatible
server (oxinfer-server, llama-server, ...) with C concurrent streaming clients.

  server_bench.py --url http://127.0.0.1:8080 --clients 1,2,4,8 --max-tokens 128 [--rounds 3]

Each client sends one streamed /v1/completions request (a distinct raw prompt,
greedy) per round and the round's clients start together. Per round: the
aggregate rate is all the tokens generated after each client's first one,
divided by the time from the first first-token to the last end; TTFT is the
mean time from sending to the first token. Prints one JSON line per
concurrency (the median round) to stdout. Standard library only."""
import argparse
import http.client
import json
import statistics
import threading
import time
import urllib.parse

PROMPTS = ["In the beginning", "And the LORD said unto Moses", "Blessed are they that mourn",
           "The king of Israel went", "And it came to pass", "Hear, O Israel", "Now the serpent",
           "And Jacob said", "Then answered Jesus", "Praise ye the LORD"]


def one_request(url, prompt, max_tokens, out):
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    body = {"prompt": prompt, "max_tokens": max_tokens, "temperature": 0, "stream": True,
            "stream_options": {"include_usage": True}}
    t0 = time.perf_counter()
    conn.request("POST", "/v1/completions", body=json.dumps(body),
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    if r.status != 200:
        raise RuntimeError(f"HTTP {r.status}: {r.read()[:300]!r}")
    first = None
    tokens = None
    pieces = 0
    for raw in r:
        line = raw.decode().strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        if chunk.get("usage"):
            tokens = chunk["usage"]["completion_tokens"]
        for c in chunk.get("choices", []):
            if c.get("text"):
                pieces += 1
                if first is None:
                    first = time.perf_counter()
    end = time.perf_counter()
    conn.close()
    out.append({"start": t0, "first": first or end, "end": end,
                "tokens": tokens if tokens is not None else pieces})


def round_of(url, clients, max_tokens):
    out = []
    threads = [threading.Thread(target=one_request,
                                args=(url, PROMPTS[i % len(PROMPTS)], max_tokens, out))
               for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if len(out) != clients:
        raise RuntimeError("a client failed")
    span = max(o["end"] for o in out) - min(o["first"] for o in out)
    after_first = sum(max(o["tokens"] - 1, 0) for o in out)
    return {"aggregate_tps": after_first / span if span > 0 else 0.0,
            "ttft_s": statistics.mean(o["first"] - o["start"] for o in out),
            "tokens": sum(o["tokens"] for o in out)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--clients", default="1,2,4,8")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    round_of(a.url, 1, 8)  # warm up
    for c in (int(x) for x in a.clients.split(",")):
        rounds = sorted((round_of(a.url, c, a.max_tokens) for _ in range(a.rounds)),
                        key=lambda r: r["aggregate_tps"])
        mid = rounds[len(rounds) // 2]
        with open("/proc/loadavg") as f:
            load = float(f.read().split()[0])
        print(json.dumps({"label": a.label, "clients": c, "max_tokens": a.max_tokens,
                          "aggregate_tps": round(mid["aggregate_tps"], 2),
                          "ttft_s": round(mid["ttft_s"], 4), "tokens": mid["tokens"],
                          "load1": load}), flush=True)


if __name__ == "__main__":
    main()
