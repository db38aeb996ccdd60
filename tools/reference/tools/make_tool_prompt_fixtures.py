#!/usr/bin/env python3
"""Reference prompts of tool-calling conversations, rendered by transformers.

Each conversation is written as the CLI's --messages and --tools-file take it
(OpenAI's chat format: function.arguments a JSON string). Here, as in the
engine, the arguments are parsed into objects keeping their key order before
`tokenizer.apply_chat_template(messages, tools=tools, tokenize=False,
add_generation_prompt=True, enable_thinking=...)` renders them with every chat
template under ../shared/data (the template list of tools/chat/make_fixtures.py).
The C++ test (//tests/engine:tool_prompt_fixture_test) feeds the same texts
through the engine's parsers and template and expects the same bytes.

Usage: python3 tools/reference/tools/make_tool_prompt_fixtures.py [--shared ../shared]
Needs: transformers==5.24.0, jinja2==3.1.6 (the versions of the committed fixture).
"""

import argparse
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "tools", "chat"))

import jinja2  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

from make_fixtures import GEMMA4_TOKENS, sha256, template_specs  # noqa: E402

# The built-in tools' declarations, as core/builtin_tools declares them (the
# C++ test checks they are the same).
CALCULATE = {
    "type": "function",
    "function": {
        "name": "calculate",
        "description": "Evaluate an arithmetic expression exactly: + - * / ^ and parentheses "
                       "over integers and decimals.",
        "parameters": {
            "type": "object",
            "properties": {
                "expression": {"type": "string",
                               "description": "The expression, e.g. 1234.5 * 6789 - 2^20"},
            },
            "required": ["expression"],
        },
    },
}
DATETIME = {
    "type": "function",
    "function": {
        "name": "get_current_datetime",
        "description": "The current local date, time and time zone.",
        "parameters": {"type": "object", "properties": {}},
    },
}
BUILTIN = [CALCULATE, DATETIME]

TRIP = {
    "type": "function",
    "function": {
        "name": "plan_trip",
        "description": "Plan a trip with \"stops\" and a budget.",
        "parameters": {
            "type": "object",
            "properties": {
                "traveller": {
                    "type": "object",
                    "description": "Who travels",
                    "properties": {
                        "name": {"type": "string"},
                        "age": {"type": "integer"},
                        "passport": {"type": "object", "properties": {
                            "country": {"type": "string", "enum": ["FR", "DE", "JP"]},
                            "expires": {"type": "string"}}},
                    },
                    "required": ["name"],
                },
                "stops": {"type": "array", "description": "Cities in order",
                          "items": {"type": "object", "properties": {
                              "city": {"type": "string"}, "nights": {"type": "integer"}}}},
                "mode": {"type": "string", "enum": ["train", "plane", "car"],
                         "description": "How to travel"},
                "budget": {"type": "number", "description": "In euros"},
                "flexible": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["traveller", "stops"],
        },
    },
}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}


def call(cid, name, args):
    return {"id": cid, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}


CONVERSATIONS = {
    "declare_nested": {
        "tools": [TRIP, WEATHER],
        "messages": [
            {"role": "system", "content": "You plan trips."},
            {"role": "user", "content": "Plan Paris then Kyoto for Ann, 34, by plane."},
        ],
    },
    "call_pending": {
        "tools": [TRIP, WEATHER],
        "messages": [
            {"role": "user", "content": "Plan Paris then Kyoto for Ann."},
            {"role": "assistant", "content": None, "tool_calls": [call("c1", "plan_trip", {
                "traveller": {"name": "Ann", "age": 34, "passport": {"country": "FR"}},
                "stops": [{"city": "Paris", "nights": 2}, {"city": "Kyoto", "nights": 5}],
                "mode": "plane", "budget": 2500.5, "flexible": True, "tags": []})]},
        ],
    },
    "call_answered": {
        "tools": [TRIP, WEATHER],
        "messages": [
            {"role": "system", "content": "You plan trips."},
            {"role": "user", "content": "Weather in Oslo?"},
            {"role": "assistant", "content": "Let me look.",
             "tool_calls": [call("w1", "get_weather", {"unit": "celsius", "city": "Oslo"})]},
            {"role": "tool", "tool_call_id": "w1", "name": "get_weather",
             "content": "{\"temp\": -3, \"sky\": \"snow\"}"},
        ],
    },
    "two_calls": {
        "tools": [WEATHER, TRIP],
        "messages": [
            {"role": "user", "content": "Weather in Paris and in Rome?"},
            {"role": "assistant", "content": "", "reasoning_content": "Two cities, two calls.",
             "tool_calls": [call("a", "get_weather", {"city": "Paris"}),
                            call("b", "get_weather", {"city": "Rome", "unit": "fahrenheit"})]},
            {"role": "tool", "tool_call_id": "a", "name": "get_weather", "content": "22 C, sunny"},
            {"role": "tool", "tool_call_id": "b", "name": "get_weather", "content": "77 F, clouds"},
            {"role": "assistant", "content": "Paris is sunny at 22 C; Rome is cloudy at 77 F."},
            {"role": "user", "content": [{"type": "text", "text": "And "},
                                         {"type": "text", "text": "tomorrow?"}]},
        ],
    },
    "builtin_round_trip": {
        "tools": BUILTIN,
        "messages": [
            {"role": "system", "content": "You run locally. Use tools for arithmetic."},
            {"role": "user", "content": "What is 1234.5 * 6789 - 2^20?"},
            {"role": "assistant", "content": "",
             "tool_calls": [call("call_1", "calculate", {"expression": "1234.5 * 6789 - 2^20"})]},
            {"role": "tool", "tool_call_id": "call_1", "name": "calculate", "content": "7332444.5"},
        ],
    },
    "unicode_args": {
        "tools": [WEATHER],
        "messages": [
            {"role": "user", "content": "Météo à Zürich? 天気"},
            {"role": "assistant", "content": None,
             "tool_calls": [call("u", "get_weather", {"city": "Zürich \"ZH\" \\ 東京"})]},
            {"role": "tool", "tool_call_id": "u", "content": "5 °C"},
            {"role": "assistant", "content": "5 °C in Zürich."},
            {"role": "user", "content": "Merci"},
        ],
    },
}

VARIANTS = {"think": {"enable_thinking": True}, "nothink": {"enable_thinking": False}}


def parse_arguments(messages):
    """What the engine does to a messages file before the template sees it."""
    for m in messages:
        for c in m.get("tool_calls") or []:
            if isinstance(c["function"].get("arguments"), str):
                c["function"]["arguments"] = json.loads(c["function"]["arguments"])
    return messages


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(REPO), "shared"))
    ap.add_argument("--out", default=os.path.join(REPO, "tests/engine/testdata/tool_prompts.json"))
    args = ap.parse_args()
    data = os.path.join(args.shared, "data")
    tok_gemma = AutoTokenizer.from_pretrained(os.path.join(data, "tokenizers", "gemma3"))
    tok_qwen = AutoTokenizer.from_pretrained(os.path.join(data, "tokenizers", "qwen3"))

    conversations = {}
    for name, conv in CONVERSATIONS.items():
        conversations[name] = {
            "messages_file": json.dumps(conv["messages"], ensure_ascii=False, indent=1),
            "tools_file": json.dumps(conv["tools"], ensure_ascii=False, indent=1),
        }
    out = {"generator": "tools/reference/tools/make_tool_prompt_fixtures.py",
           "transformers_version": transformers.__version__, "jinja2_version": jinja2.__version__,
           "builtin_tools": BUILTIN, "conversations": conversations, "variants": VARIANTS,
           "templates": []}
    total = rendered = 0
    for spec in template_specs(args.shared):
        path = os.path.join(data, spec["path"])
        raw = open(path, "rb").read()
        overrides = {}
        if "tokenizer_dir" in spec:
            tok = tok_gemma if spec["id"].endswith("gemma3") else tok_qwen
            template = None
        else:
            template = raw.decode("utf-8") if spec["kind"] == "jinja" else json.loads(raw)["chat_template"]
            tok = tok_gemma if spec["family"] == "gemma" else tok_qwen
            if spec["family"] == "gemma":
                overrides = dict(GEMMA4_TOKENS)
        entry = {"id": spec["id"], "path": spec["path"], "kind": spec["kind"], "sha256": sha256(raw),
                 "template_vars": {**tok.special_tokens_map, **overrides}, "results": []}
        for cname, conv in conversations.items():
            for vname, variant in VARIANTS.items():
                total += 1
                messages = parse_arguments(json.loads(conv["messages_file"]))
                tools = json.loads(conv["tools_file"])
                result = {"conversation": cname, "variant": vname}
                try:
                    result["output"] = tok.apply_chat_template(
                        copy.deepcopy(messages), tools=tools, chat_template=template, tokenize=False,
                        add_generation_prompt=True, **variant, **overrides)
                    rendered += 1
                except Exception as e:  # noqa: BLE001 - recorded; the test expects an error too
                    result["error"] = f"{type(e).__name__}: {e}"
                entry["results"].append(result)
        out["templates"].append(entry)
        print(f"{spec['id']}: {sum('output' in r for r in entry['results'])}/"
              f"{len(entry['results'])} rendered", file=sys.stderr)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{rendered}/{total} rendered; wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
