"""Tool calls, tool results and reasoning through the real openai client, with
the scripted test model (tests/engine/scripted_model_plugin.cc) on the real
Gemma 4 chat template: a real model this small cannot be made to call.

  openai_tools_test.py SERVER CHECKPOINT PLUGIN_DIRS"""
import json
import sys
import unittest

import openai

from server_harness import ServerCase

SERVER, CHECKPOINT, PLUGINS = sys.argv[1:4]

TOOLS = [{"type": "function", "function": {
    "name": "calculate", "description": "Evaluates an arithmetic expression.",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                   "required": ["expression"]}}}]
QUESTION = [{"role": "user", "content": "What is 1234.5 * 6789 - 2^20?"}]


class ToolsTest(ServerCase):
    server_args = (SERVER, CHECKPOINT, PLUGINS, "--parallel", "1")

    def call_then_answer(self, stream):
        """Script replies: a reasoning trace and a call, then the answer."""
        kw = dict(model="scripted", tools=TOOLS, temperature=0, max_tokens=200)
        if stream:
            chunks = list(self.client.chat.completions.create(messages=QUESTION, stream=True, **kw))
            deltas = [c.choices[0].delta for c in chunks if c.choices]
            reasoning = "".join(getattr(d, "reasoning_content", None) or "" for d in deltas)
            content = "".join(d.content or "" for d in deltas)
            calls = [tc for d in deltas for tc in (d.tool_calls or [])]
            self.assertEqual(len(calls), 1)
            self.assertEqual(calls[0].index, 0)
            call = calls[0]
            finish = chunks[-1].choices[0].finish_reason
        else:
            r = self.client.chat.completions.create(messages=QUESTION, **kw)
            message = r.choices[0].message
            reasoning = getattr(message, "reasoning_content", None)
            content = message.content
            self.assertEqual(len(message.tool_calls), 1)
            call = message.tool_calls[0]
            finish = r.choices[0].finish_reason
        self.assertEqual(finish, "tool_calls")
        self.assertEqual(reasoning, "I should use the calculator.")
        self.assertEqual(content or "", "Let me compute.")
        self.assertEqual(call.type, "function")
        self.assertEqual(call.function.name, "calculate")
        self.assertEqual(json.loads(call.function.arguments),
                         {"expression": "1234.5 * 6789 - 2^20"})
        self.assertTrue(call.id)
        # The client runs the tool and sends the result back.
        history = QUESTION + [
            {"role": "assistant", "content": content or None,
             "tool_calls": [{"id": call.id, "type": "function",
                             "function": {"name": call.function.name,
                                          "arguments": call.function.arguments}}]},
            {"role": "tool", "tool_call_id": call.id, "name": "calculate",
             "content": "7332444.5"}]
        answer = self.client.chat.completions.create(messages=history, **kw)
        self.assertEqual(answer.choices[0].message.content, "The answer is 7332444.5.")
        self.assertEqual(answer.choices[0].finish_reason, "stop")
        self.assertIsNone(answer.choices[0].message.tool_calls)

    def test_1_call_result_answer(self):
        self.call_then_answer(stream=False)

    def test_2_streamed_call_result_answer(self):
        self.call_then_answer(stream=True)

    def test_3_bad_tool_messages(self):
        with self.assertRaises(openai.BadRequestError) as e:
            self.client.chat.completions.create(
                model="scripted", messages=QUESTION + [
                    {"role": "assistant", "content": None,
                     "tool_calls": [{"id": "c", "type": "function",
                                     "function": {"name": "calculate",
                                                  "arguments": "{not json"}}]}])
        self.assertEqual(e.exception.body["param"], "messages")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
