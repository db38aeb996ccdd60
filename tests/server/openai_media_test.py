"""Images in chat messages through the real openai client, on the tiny Gemma 4
vision fixture (tests/models/gemma4/testdata/media/vision_tiny): an image_url
part as a base64 data: URL gives the prompt and the reply that the CLI gives
for the same image with --image; what a server must not accept is refused
with a 400 naming the part.

  openai_media_test.py SERVER CLI FIXTURE PLUGIN.so..."""
import base64
import os
import subprocess
import sys
import unittest

import openai

from server_harness import ServerCase

SERVER, CLI, FIXTURE = (os.path.realpath(p) for p in sys.argv[1:4])
PLUGINS = ":".join(sorted({os.path.dirname(os.path.realpath(p)) for p in sys.argv[4:]}))
IMAGE = os.path.join(FIXTURE, "image0.png")


def data_url(path, mime="image/png"):
    with open(path, "rb") as f:
        return f"data:{mime};base64," + base64.b64encode(f.read()).decode()


class MediaTest(ServerCase):
    server_args = (SERVER, FIXTURE, PLUGINS)
    client_timeout = 120

    def chat(self, image_part, **kw):
        return self.client.chat.completions.create(
            model="vision_tiny", max_tokens=6, temperature=0, **kw,
            messages=[{"role": "system", "content": "You are terse."},
                      {"role": "user", "content": [image_part,
                                                   {"type": "text", "text": "Describe this."}]}])

    def test_image_url_as_the_cli_sees_it(self):
        r = self.chat({"type": "image_url", "image_url": {"url": data_url(IMAGE)}})
        with open(os.path.join(FIXTURE, "prompt_case0.ids")) as f:
            n_ids = len(f.read().split())
        self.assertEqual(r.usage.prompt_tokens, n_ids)
        cli = subprocess.run(
            [CLI, "--plugin-dir", PLUGINS, "--device", "cpu", "--threads", "1", "--model", FIXTURE,
             "--system", "You are terse.", "--image", IMAGE, "-p", "Describe this.",
             "--max-tokens", "6", "--temp", "0"],
            capture_output=True, text=True, timeout=120, check=True)
        self.assertTrue(cli.stdout.strip())
        self.assertEqual(r.choices[0].message.content, cli.stdout.rstrip("\n"))
        # Streamed, the same text.
        chunks = self.chat({"type": "image_url", "image_url": {"url": data_url(IMAGE)}},
                           stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        self.assertEqual(text, r.choices[0].message.content)

    def test_refusals_name_the_part(self):
        for part, words in [
                ({"type": "image_url", "image_url": {"url": IMAGE}}, "local paths are not accepted"),
                ({"type": "image_url", "image_url": {"url": "file://" + IMAGE}},
                 "local paths are not accepted"),
                ({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                 "not fetched"),
                ({"type": "image_url", "image_url": {"url": "data:image/png;base64,%%%"}},
                 "not valid base64"),
                ({"type": "image_url",
                  "image_url": {"url": data_url(os.path.join(FIXTURE, "config.json"))}},
                 "no codec plugin recognises"),
                ({"type": "video_url", "video_url": {"url": "x"}}, "not supported")]:
            with self.subTest(part=str(part)[:60]):
                with self.assertRaises(openai.BadRequestError) as e:
                    self.chat(part)
                message = e.exception.body["message"]
                self.assertIn("message 1, content part 0", message)
                self.assertIn(words, message)
        # The server still answers.
        self.assertTrue(self.chat({"type": "image_url",
                                   "image_url": {"url": data_url(IMAGE)}}).choices)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
