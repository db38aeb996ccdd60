#!/usr/bin/env python3
"""Reference renders of real chat templates by HF transformers.

Renders every conversation in CONVERSATIONS with every variant in VARIANTS
through `tokenizer.apply_chat_template(..., tokenize=False)` for each chat
template under ../shared/data (tokenizers/*/tokenizer_config.json and every
.jinja / tokenizer_config.json under templates/), and writes the results to
tests/chat/testdata/chat_template_fixtures.json. Where transformers itself
fails, the error is recorded instead of an output (the C++ test then expects
an error too).

The templates are NOT copied: the fixture names them by their path relative
to shared/data and records their sha256, so the test can check it renders the
same bytes that were used here.

Usage: python3 tools/chat/make_fixtures.py [--shared ../shared]
Needs: transformers (5.x), jinja2 >= 3.1.6, tokenizers.
"""

import argparse
import copy
import hashlib
import json
import os
import sys

import jinja2
import transformers
from transformers import AutoTokenizer

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a given location.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City and country, e.g. Paris, France"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"],
                         "description": "Temperature unit"},
            },
            "required": ["location"],
        },
    },
}

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_documents",
        "description": "Search the knowledge base and return the best \"matching\" documents.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Free-text query"},
                "max_results": {"type": "integer", "description": "How many results (1-50)"},
                "filters": {
                    "type": "object",
                    "description": "Optional filters",
                    "properties": {
                        "year": {"type": "integer"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                },
                "exact": {"type": "boolean", "nullable": True},
            },
            "required": ["query", "max_results"],
        },
    },
}

TOOLS = [WEATHER_TOOL, SEARCH_TOOL]


def weather_call(call_id="call_1", city="Paris, France"):
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "get_weather", "arguments": {"location": city, "unit": "celsius"}},
    }


CONVERSATIONS = {
    "single_user": {"messages": [{"role": "user", "content": "Hello!"}]},
    "system_user": {
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "What is 2+2?"},
        ]
    },
    "multi_turn": {
        "messages": [
            {"role": "system", "content": "You are a concise assistant.\n"},
            {"role": "user", "content": "What is the capital of France?"},
            {"role": "assistant", "content": "  The capital of France is Paris.  "},
            {"role": "user", "content": "And of Italy?"},
        ]
    },
    "multi_turn_no_system": {
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello! How can I help?"},
            {"role": "user", "content": "Tell me a joke."},
            {"role": "assistant", "content": "Why did the chicken cross the road?"},
        ]
    },
    "reasoning_history": {
        "messages": [
            {"role": "user", "content": "What is 17 * 3?"},
            {"role": "assistant", "reasoning_content": "17 * 3 = 51.", "content": "51"},
            {"role": "user", "content": "And 18 * 3?"},
        ]
    },
    "reasoning_last": {
        "messages": [
            {"role": "system", "content": "Think step by step."},
            {"role": "user", "content": "Is 91 prime?"},
            {"role": "assistant", "reasoning_content": "91 = 7 * 13, so it is not prime.",
             "content": "No, 91 = 7 x 13."},
        ]
    },
    "think_in_content": {
        "messages": [
            {"role": "user", "content": "Say hi"},
            {"role": "assistant", "content": "<think>\nThe user wants a greeting.\n</think>\n\nHi there!"},
        ]
    },
    "tools_declared": {
        "messages": [
            {"role": "system", "content": "You can call tools."},
            {"role": "user", "content": "What's the weather like in Paris?"},
        ],
        "tools": TOOLS,
    },
    "tool_call_pending": {
        "messages": [
            {"role": "user", "content": "What's the weather like in Paris?"},
            {"role": "assistant", "content": "", "tool_calls": [weather_call()]},
        ],
        "tools": TOOLS,
    },
    "tool_round_trip": {
        "messages": [
            {"role": "system", "content": "You are a weather bot."},
            {"role": "user", "content": "What's the weather like in Paris?"},
            {"role": "assistant", "content": "Let me check.", "tool_calls": [weather_call()]},
            {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
             "content": "{\"temperature\": 22, \"condition\": \"sunny\"}"},
        ],
        "tools": TOOLS,
    },
    "tool_round_trip_answered": {
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {"role": "assistant", "reasoning_content": "I need two lookups.", "content": "",
             "tool_calls": [weather_call("call_1"), weather_call("call_2", "Rome, Italy")]},
            {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "22 C, sunny"},
            {"role": "tool", "tool_call_id": "call_2", "name": "get_weather", "content": "25 C, cloudy"},
            {"role": "assistant", "content": "Paris: 22 C and sunny. Rome: 25 C and cloudy."},
            {"role": "user", "content": "Thanks!"},
        ],
        "tools": [WEATHER_TOOL],
    },
    "tool_complex_args": {
        "messages": [
            {"role": "user", "content": "Find papers about \"attention\" from 2017."},
            {"role": "assistant", "content": "",
             "tool_calls": [{"id": "c9", "type": "function", "function": {
                 "name": "search_documents",
                 "arguments": {"query": "attention is all you need", "max_results": 3,
                               "filters": {"year": 2017, "tags": ["nlp", "transformers"]},
                               "exact": None, "score": 0.5, "deep": True}}}]},
            {"role": "tool", "tool_call_id": "c9", "name": "search_documents",
             "content": "[{\"title\": \"Attention Is All You Need\"}]"},
        ],
        "tools": TOOLS,
    },
    "tool_string_args": {
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {"role": "assistant", "content": "",
             "tool_calls": [{"id": "c1", "type": "function", "function": {
                 "name": "get_weather", "arguments": "{\"location\": \"Oslo\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "-3 C"},
        ],
        "tools": [WEATHER_TOOL],
    },
    "content_parts": {
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
            {"role": "user", "content": [{"type": "text", "text": "Describe this:"},
                                         {"type": "image"}, {"type": "text", "text": " please"}]},
        ]
    },
    "unicode_and_escapes": {
        "messages": [
            {"role": "system", "content": "Réponds en français. 日本語もOK 🚀"},
            {"role": "user", "content": "Quote: \"hi\" \\ back\tslash\nnew line <b>&amp;</b> {{ not_a_var }} {% raw %}"},
        ],
        "tools": [{"type": "function", "function": {
            "name": "translate", "description": "Traduit le texte — vers l'anglais ✓",
            "parameters": {"type": "object", "properties": {
                "text": {"type": "string", "description": "Texte à traduire: «guillemets»"}},
                "required": ["text"]}}}],
    },
    "tool_nested_schema": {
        "messages": [
            {"role": "developer", "content": "Use tools when useful."},
            {"role": "user", "content": "Book a table."},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "b1", "type": "function", "function": {
                "name": "book", "arguments": {"party": {"size": 4, "names": ["Ann", "Bo"]}, "when": None}}}]},
            {"role": "tool", "tool_call_id": "b1", "name": "book",
             "content": [{"type": "text", "text": "Booked for 4"}, {"type": "text", "text": " at 8pm."}]},
        ],
        "tools": [
            {"type": "function", "function": {
                "name": "book", "description": "Book a restaurant table.",
                "parameters": {"type": "object", "properties": {
                    "party": {"type": "object", "description": "Who is coming",
                              "properties": {"size": {"type": "integer"},
                                             "names": {"type": "array", "items": {"type": "string"}}},
                              "required": ["size"]},
                    "when": {"type": "string", "nullable": True},
                    "prefs": {"type": "object", "description": "Free-form preferences",
                              "additionalProperties": True, "seating": {"type": "string"}},
                    "courses": {"type": "array", "items": {"type": "object", "properties": {
                        "name": {"type": "string"}}, "required": ["name"]}},
                    "style": {"type": ["string", "null"], "enum": ["casual", "formal"]}},
                    "required": ["party"]},
                "response": {"type": "object", "description": "Booking confirmation"}}},
            {"type": "function", "function": {"name": "now", "description": "Current time.",
                                              "parameters": {"type": "object", "properties": {}}}},
        ],
    },
    "consecutive_assistant": {
        "messages": [
            {"role": "user", "content": "Count to two."},
            {"role": "assistant", "content": "One."},
            {"role": "assistant", "content": "Two."},
            {"role": "user", "content": "Good."},
        ]
    },
    "empty_assistant_then_user": {
        "messages": [
            {"role": "user", "content": "A"},
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "B"},
        ]
    },
}

VARIANTS = {
    "gen": {"add_generation_prompt": True},
    "nogen": {"add_generation_prompt": False},
    "gen_think": {"add_generation_prompt": True, "enable_thinking": True},
    "gen_nothink": {"add_generation_prompt": True, "enable_thinking": False},
    "nogen_nothink": {"add_generation_prompt": False, "enable_thinking": False},
    "gen_think_preserve": {"add_generation_prompt": True, "enable_thinking": True,
                           "preserve_thinking": True},
    "gen_effort_low": {"add_generation_prompt": True, "reasoning_effort": "low"},
}

GEMMA4_TOKENS = {"bos_token": "<bos>", "eos_token": "<eos>", "unk_token": "<unk>",
                 "pad_token": "<pad>", "mask_token": "<mask>"}


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def template_specs(shared):
    data = os.path.join(shared, "data")
    specs = []
    for name in ("gemma3", "qwen3"):
        specs.append({"id": f"tokenizers/{name}", "path": f"tokenizers/{name}/tokenizer_config.json",
                      "kind": "tokenizer_config", "tokenizer_dir": os.path.join(data, "tokenizers", name)})
    tdir = os.path.join(data, "templates")
    for root, _, files in sorted(os.walk(tdir)):
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), data)
            family = "gemma" if "/gemma4/" in "/" + rel else "qwen"
            if f.endswith(".jinja"):
                specs.append({"id": rel, "path": rel, "kind": "jinja", "family": family})
            elif f == "tokenizer_config.json":
                specs.append({"id": rel, "path": rel, "kind": "tokenizer_config", "family": family})
    return specs


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(repo), "shared"))
    ap.add_argument("--out", default=os.path.join(repo, "tests/chat/testdata/chat_template_fixtures.json"))
    args = ap.parse_args()
    data = os.path.join(args.shared, "data")

    tok_gemma = AutoTokenizer.from_pretrained(os.path.join(data, "tokenizers", "gemma3"))
    tok_qwen = AutoTokenizer.from_pretrained(os.path.join(data, "tokenizers", "qwen3"))

    out = {
        "generator": "tools/chat/make_fixtures.py",
        "transformers_version": transformers.__version__,
        "jinja2_version": jinja2.__version__,
        "conversations": CONVERSATIONS,
        "variants": VARIANTS,
        "templates": [],
    }
    total = ok = 0
    for spec in template_specs(args.shared):
        path = os.path.join(data, spec["path"])
        raw = open(path, "rb").read()
        entry = {"id": spec["id"], "path": spec["path"], "kind": spec["kind"], "sha256": sha256(raw)}
        overrides = {}
        if "tokenizer_dir" in spec:
            tok = tok_gemma if spec["id"].endswith("gemma3") else tok_qwen
            template = None  # the tokenizer's own
        else:
            if spec["kind"] == "jinja":
                template = raw.decode("utf-8")
            else:
                template = json.loads(raw)["chat_template"]
            if spec["family"] == "gemma":
                tok = tok_gemma
                overrides = dict(GEMMA4_TOKENS)
            else:
                tok = tok_qwen
        special = {**tok.special_tokens_map, **overrides}
        entry["template_vars"] = special
        outputs = []
        results = []
        for cname, conv in CONVERSATIONS.items():
            for vname, variant in VARIANTS.items():
                total += 1
                kwargs = dict(variant)
                kwargs.update(overrides)
                try:
                    text = tok.apply_chat_template(
                        copy.deepcopy(conv["messages"]), tools=copy.deepcopy(conv.get("tools")),
                        chat_template=template, tokenize=False, **kwargs)
                except Exception as e:  # noqa: BLE001 - record whatever transformers raised
                    results.append({"conversation": cname, "variant": vname,
                                    "error": f"{type(e).__name__}: {e}"})
                    continue
                ok += 1
                if text not in outputs:
                    outputs.append(text)
                results.append({"conversation": cname, "variant": vname,
                                "output": outputs.index(text)})
        entry["outputs"] = outputs
        entry["results"] = results
        out["templates"].append(entry)
        print(f"{spec['id']}: {sum('output' in r for r in results)}/{len(results)} rendered, "
              f"{len(outputs)} distinct", file=sys.stderr)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{ok}/{total} renders ok; wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
