"""oxinfer-server through the real openai Python client (tests/server/
requirements.txt), on the built-in tiny model, over loopback.

  openai_client_test.py SERVER CLI MODEL_DIR PLUGIN_DIRS

Greedy replies must equal the CLI's for the same messages; every request has
a timeout and no retries; every loop is bounded in count."""
import concurrent.futures
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

import openai

from server_harness import ServerCase

SERVER, CLI, MODEL, PLUGINS = sys.argv[1:5]
TMP = os.environ.get("TEST_TMPDIR", tempfile.gettempdir())
PROMPTS = ["In the beginning", "And the LORD said", "Blessed are they", "The king of Israel",
           "And it came to pass", "Hear, O Israel"]


def client(server, key="none"):
    return openai.OpenAI(base_url=server.url + "/v1", api_key=key, timeout=60, max_retries=0)


def cli_reply(messages=None, raw=None, max_tokens=20):
    args = [CLI, "--model", MODEL, "--plugin-dir", PLUGINS, "--device", "cpu", "--threads", "1",
            "--max-tokens", str(max_tokens)]
    if raw is not None:
        args += ["--raw", "-p", raw]
    else:
        path = os.path.join(TMP, "messages.json")
        with open(path, "w") as f:
            json.dump(messages, f)
        args += ["--messages", path]
    out = subprocess.run(args, capture_output=True, timeout=120, check=True).stdout.decode()
    assert out.endswith("\n"), repr(out)
    return out[:-1]


class ChatTest(ServerCase):
    server_args = (SERVER, MODEL, PLUGINS, "--parallel", "4", "--context", "512")

    def chat(self, content, **kw):
        return self.client.chat.completions.create(
            model="default", messages=[{"role": "user", "content": content}], **kw)

    def test_models_and_health(self):
        models = self.client.models.list()
        self.assertEqual([m.id for m in models.data], ["default"])
        self.assertEqual(self.client.models.retrieve("default").id, "default")
        with self.assertRaises(openai.NotFoundError):
            self.client.models.retrieve("gpt-9")
        self.assertEqual(self.server.get("/health"), (200, '{"status":"ok"}'))

    def test_greedy_chat_equals_cli(self):
        messages = [{"role": "system", "content": "Speak plainly."},
                    {"role": "user", "content": "In the beginning"}]
        r = self.client.chat.completions.create(model="default", messages=messages,
                                                temperature=0, max_tokens=20)
        self.assertEqual(r.object, "chat.completion")
        choice = r.choices[0]
        self.assertEqual(choice.message.role, "assistant")
        self.assertEqual(choice.message.content, cli_reply(messages))
        self.assertIn(choice.finish_reason, ("stop", "length"))
        self.assertGreater(r.usage.prompt_tokens, 0)
        self.assertEqual(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens)
        # max_completion_tokens is the newer spelling of max_tokens.
        r2 = self.client.chat.completions.create(model="default", messages=messages,
                                                 temperature=0, max_completion_tokens=20)
        self.assertEqual(r2.choices[0].message.content, choice.message.content)

    def test_stream_with_usage(self):
        alone = self.chat("And the LORD said", temperature=0, max_tokens=12)
        chunks = list(self.chat("And the LORD said", temperature=0, max_tokens=12, stream=True,
                                stream_options={"include_usage": True}))
        self.assertGreater(len(chunks), 3)
        self.assertTrue(all(c.object == "chat.completion.chunk" for c in chunks))
        self.assertEqual(len({c.id for c in chunks}), 1)
        self.assertEqual(chunks[0].choices[0].delta.role, "assistant")
        last = chunks[-1]
        self.assertEqual(last.choices, [])
        self.assertEqual(last.usage.completion_tokens, alone.usage.completion_tokens)
        self.assertEqual(last.usage.prompt_tokens, alone.usage.prompt_tokens)
        self.assertTrue(all(c.usage is None for c in chunks[:-1]))
        text = "".join(c.choices[0].delta.content or "" for c in chunks[:-1])
        self.assertEqual(text, alone.choices[0].message.content)
        self.assertEqual(chunks[-2].choices[0].finish_reason, alone.choices[0].finish_reason)
        # Without include_usage: no usage chunk.
        plain = list(self.chat("And the LORD said", temperature=0, max_tokens=12, stream=True))
        self.assertNotEqual(plain[-1].choices, [])
        self.assertEqual("".join(c.choices[0].delta.content or "" for c in plain), text)

    def test_completions_raw_equals_cli(self):
        r = self.client.completions.create(model="default", prompt="And God said", temperature=0,
                                           max_tokens=20)
        self.assertEqual(r.object, "text_completion")
        self.assertEqual(r.choices[0].text, cli_reply(raw="And God said"))
        streamed = "".join(c.choices[0].text for c in self.client.completions.create(
            model="default", prompt="And God said", temperature=0, max_tokens=20, stream=True))
        self.assertEqual(streamed, r.choices[0].text)

    def test_stop_and_length(self):
        full = self.chat("In the beginning", temperature=0, max_tokens=30).choices[0].message.content
        words = full.split(" ")
        self.assertGreater(len(words), 3, full)
        cut = self.chat("In the beginning", temperature=0, max_tokens=30, stop=[" " + words[2]])
        self.assertEqual(cut.choices[0].message.content, " ".join(words[:2]))
        self.assertEqual(cut.choices[0].finish_reason, "stop")
        short = self.chat("In the beginning", temperature=0, max_tokens=2)
        self.assertEqual(short.usage.completion_tokens, 2)
        self.assertEqual(short.choices[0].finish_reason, "length")

    def test_prefix_reuse(self):
        first = [{"role": "user", "content": "In the beginning"}]
        a = self.client.chat.completions.create(model="default", messages=first, temperature=0,
                                                max_tokens=8)
        turn2 = first + [{"role": "assistant", "content": a.choices[0].message.content},
                         {"role": "user", "content": "And then?"}]
        b = self.client.chat.completions.create(model="default", messages=turn2, temperature=0,
                                                max_tokens=8)
        # The slot still holds the first turn: only the rest is computed again.
        cached = b.usage.prompt_tokens_details.cached_tokens
        self.assertGreaterEqual(cached, a.usage.prompt_tokens - 1)
        self.assertLess(cached, b.usage.prompt_tokens)
        # And the reply is what a fresh computation gives (greedy == the CLI).
        self.assertEqual(b.choices[0].message.content, cli_reply(turn2, max_tokens=8))

    def test_seeded_sampling_repeats(self):
        a = self.chat("Hear, O Israel", temperature=1.0, top_p=0.9, seed=7, max_tokens=16)
        b = self.chat("Hear, O Israel", temperature=1.0, top_p=0.9, seed=7, max_tokens=16)
        self.assertEqual(a.choices[0].message.content, b.choices[0].message.content)

    def test_bad_requests_name_the_field(self):
        cases = [
            (dict(temperature="hot"), "temperature"),
            (dict(temperature=5), "temperature"),
            (dict(top_p=0), "top_p"),
            (dict(max_tokens=0), "max_tokens"),
            (dict(n=2), "n"),
            (dict(stop=[1, 2]), "stop"),
            (dict(presence_penalty=1.0), "presence_penalty"),
            (dict(tool_choice="required",
                  tools=[{"type": "function", "function": {"name": "f"}}]), "tool_choice"),
            (dict(tools=[{"type": "nope"}]), "tools"),
        ]
        for kw, param in cases:
            with self.subTest(param=param):
                with self.assertRaises(openai.BadRequestError) as e:
                    self.chat("hi", **{"max_tokens": 2, **kw})
                self.assertEqual(e.exception.status_code, 400)
                self.assertEqual(e.exception.body["param"], param)
                self.assertIn(param, e.exception.message)
        for messages, what in [([], "must not be empty"),
                               ([{"role": "robot", "content": "x"}], "robot"),
                               ([{"role": "user", "content": 3}], "content")]:
            with self.assertRaises(openai.BadRequestError) as e:
                self.client.chat.completions.create(model="default", messages=messages)
            self.assertEqual(e.exception.body["param"], "messages")
            self.assertIn(what, e.exception.message)
        # Not JSON, not an object, missing fields.
        for body in [b"{", b"[1]", b"{}", b'{"messages": "x"}', b"\xff\xfe"]:
            status, text = self.server.post_raw("/v1/chat/completions", body)
            self.assertEqual(status, 400, body)
            self.assertIn("message", json.loads(text)["error"])
        status, _ = self.server.post_raw("/v1/completions", b'{"prompt": 5}')
        self.assertEqual(status, 400)

    def test_prompt_longer_than_context_is_400(self):
        with self.assertRaises(openai.BadRequestError) as e:
            self.chat("And it came to pass " * 200, max_tokens=4)
        self.assertEqual(e.exception.body["code"], "context_length_exceeded")
        self.assertIn("512", e.exception.message)

    def test_body_too_large_is_413(self):
        big = json.dumps({"messages": [{"role": "user", "content": "x" * (9 << 20)}]})
        try:
            status, text = self.server.post_raw("/v1/chat/completions", big.encode())
        except (ConnectionError, OSError):
            return  # the server may close the connection while the client still writes
        self.assertEqual(status, 413)
        self.assertIn("larger than", json.loads(text)["error"]["message"])

    def test_concurrent_clients_equal_alone(self):
        alone = [self.chat(p, temperature=0, max_tokens=24).choices[0].message.content
                 for p in PROMPTS]

        def one(i):
            p = PROMPTS[i % len(PROMPTS)]
            if i % 2:
                chunks = self.chat(p, temperature=0, max_tokens=24, stream=True)
                return "".join(c.choices[0].delta.content or "" for c in chunks)
            return self.chat(p, temperature=0, max_tokens=24).choices[0].message.content

        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            together = list(pool.map(one, range(12), timeout=300))
        for i, text in enumerate(together):
            self.assertEqual(text, alone[i % len(PROMPTS)], f"request {i}")

    def test_client_disconnect_cancels(self):
        request = {"messages": [{"role": "user", "content": "And"}], "max_tokens": 400,
                   "temperature": 1.0, "seed": 3}
        full = self.client.chat.completions.create(model="default", **request)
        self.assertGreater(full.usage.completion_tokens, 40)  # else nothing to cancel
        before = self.server.metric("oxinfer_completion_tokens_total")
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        conn.request("POST", "/v1/chat/completions", body=json.dumps({**request, "stream": True}),
            headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        for _ in range(6):
            self.assertTrue(r.fp.readline())
        conn.sock.close() if conn.sock else None
        r.close()
        conn.close()
        # The slot comes free before the whole reply was made.
        for _ in range(200):
            if self.server.metric("oxinfer_busy_slots") == 0:
                break
            time.sleep(0.05)
        self.assertEqual(self.server.metric("oxinfer_busy_slots"), 0)
        made = self.server.metric("oxinfer_completion_tokens_total") - before
        self.assertLess(made, full.usage.completion_tokens)
        # A client that leaves before a whole (not streamed) reply was made. It
        # leaves at once: the tiny model makes the whole reply within one of the
        # server's socket checks (100 ms) on a fast CPU, so waiting until its slot
        # is busy would race the reply's end.
        before = self.server.metric("oxinfer_completion_tokens_total")
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        conn.request("POST", "/v1/chat/completions", body=json.dumps(request),
                     headers={"Content-Type": "application/json"})
        conn.close()
        for _ in range(200):
            if (self.server.metric("oxinfer_busy_slots") == 0 and
                    self.server.metric("oxinfer_completion_tokens_total") > before):
                break
            time.sleep(0.05)
        self.assertEqual(self.server.metric("oxinfer_busy_slots"), 0)
        made = self.server.metric("oxinfer_completion_tokens_total") - before
        self.assertGreater(made, 0)  # it was answered, and stopped early
        self.assertLess(made, full.usage.completion_tokens)
        # And the server still answers.
        self.assertEqual(len(self.chat("And", max_tokens=2).choices), 1)

    def test_metrics(self):
        self.chat("And", max_tokens=2)
        _, text = self.server.get("/metrics")
        for name in ["oxinfer_requests_total", "oxinfer_prompt_tokens_total",
                     "oxinfer_completion_tokens_total", "oxinfer_tokens_per_second",
                     "oxinfer_queue_depth", "oxinfer_busy_slots"]:
            self.assertIn(f"# TYPE {name} ", text)
        self.assertIn('oxinfer_requests_total{endpoint="/v1/chat/completions",status="200"}', text)
        self.assertGreater(self.server.metric("oxinfer_completion_tokens_total"), 0)


class SlotReuseTest(ServerCase):
    """Two conversations taking turns on two slots: each turn goes to the slot
    that holds its conversation, so the earlier turns are not computed again
    (usage.prompt_tokens_details.cached_tokens). Handing out the slot used
    last would give both conversations the same slot, each turn evicting the
    other conversation's tokens."""

    server_args = (SERVER, MODEL, PLUGINS, "--parallel", "2", "--context", "512")

    def test_each_conversation_keeps_its_slot(self):
        talks = {"a": [{"role": "user", "content": "In the beginning God created the heaven "
                                                   "and the earth, and the earth was without form"}],
                 "b": [{"role": "user", "content": "Blessed are they that mourn: for they "
                                                   "shall be comforted, and the meek also"}]}
        prompt_before = {}
        for turn in range(3):
            for name, messages in talks.items():
                r = self.client.chat.completions.create(model="default", messages=messages,
                                                        temperature=0, max_tokens=8)
                cached = r.usage.prompt_tokens_details.cached_tokens
                if turn == 0:
                    self.assertEqual(cached, 0, name)
                else:
                    # The whole earlier prompt, at least: its tokens are held.
                    self.assertGreaterEqual(cached, prompt_before[name], (name, turn, r.usage))
                prompt_before[name] = r.usage.prompt_tokens
                messages.append({"role": "assistant", "content": r.choices[0].message.content})
                messages.append({"role": "user", "content": f"And then {turn}?"})


class AuthTest(ServerCase):
    server_args = (SERVER, MODEL, PLUGINS, "--api-key", "sekret", "--max-queue", "0")

    def test_key(self):
        messages = [{"role": "user", "content": "In the beginning"}]
        with self.assertRaises(openai.AuthenticationError) as e:
            client(self.server, "wrong").chat.completions.create(model="default",
                                                                 messages=messages)
        self.assertEqual(e.exception.status_code, 401)
        with self.assertRaises(openai.AuthenticationError):
            client(self.server, "wrong").models.list()
        r = client(self.server, "sekret").chat.completions.create(
            model="default", messages=messages, max_tokens=3)
        self.assertEqual(len(r.choices), 1)
        # Readiness probes need no key.
        self.assertEqual(self.server.get("/health")[0], 200)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
