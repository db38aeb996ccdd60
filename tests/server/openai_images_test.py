"""POST /v1/images/generations through the real openai client, on the tiny
Stable Diffusion fixture (tests/models/sd/testdata/sd1, 64x64).

  openai_images_test.py SERVER SD_DIR PLUGIN_DIRS"""
import base64
import struct
import sys
import unittest

import openai

from server_harness import ServerCase

SERVER, SD, PLUGINS = sys.argv[1:4]


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    return struct.unpack(">II", data[16:24])


class ImagesTest(ServerCase):
    server_args = (SERVER, SD, PLUGINS)
    client_timeout = 120

    def generate(self, **kw):
        return self.client.images.generate(model="sd1", prompt="a red fox in the snow",
                                           response_format="b64_json",
                                           extra_body={"steps": 2, "seed": 7}, **kw)

    def test_images(self):
        r = self.generate(n=2, size="64x64")
        self.assertEqual(len(r.data), 2)
        a, b = (base64.b64decode(d.b64_json) for d in r.data)
        self.assertEqual(png_size(a), (64, 64))
        self.assertNotEqual(a, b)  # seed, seed + 1
        again = self.generate(n=1, size="64x64")
        self.assertEqual(base64.b64decode(again.data[0].b64_json), a)
        wide = self.generate(n=1, size="96x64")
        self.assertEqual(png_size(base64.b64decode(wide.data[0].b64_json)), (96, 64))
        # Multiples of 8 that are not of 64, as diffusers takes them.
        odd = self.generate(n=1, size="72x40")
        self.assertEqual(png_size(base64.b64decode(odd.data[0].b64_json)), (72, 40))

    def test_bad_requests(self):
        for kw, param in [(dict(n=0), "n"), (dict(n=11), "n"), (dict(size="big"), "size"),
                          (dict(response_format="url"), "response_format")]:
            with self.subTest(param=param):
                with self.assertRaises(openai.BadRequestError) as e:
                    self.client.images.generate(model="sd1", prompt="x", **kw)
                self.assertEqual(e.exception.body["param"], param)
        with self.assertRaises(openai.BadRequestError) as e:
            self.client.images.generate(model="sd1", prompt="")
        self.assertEqual(e.exception.body["param"], "prompt")
        # A text route on an image model.
        with self.assertRaises(openai.BadRequestError) as e:
            self.client.chat.completions.create(model="sd1",
                                                messages=[{"role": "user", "content": "hi"}])
        self.assertIn("does not generate text", e.exception.message)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
