#!/usr/bin/env python3
"""Writes testdata/: a bigram checkpoint for the example model plugin, over the
tiny tokenizer of tests/cli/testdata/tiny_tokenizer (256 ids). Row t of
bigram.weight puts its largest logit on (t + 7) % 256, except that ids >= 240
lead to <eos> (id 1), so greedy decoding from any token walks a known chain
and stops. Deterministic; needs numpy and safetensors.

    python3 examples/model_plugin/make_fixture.py
"""
import json
import os
import shutil

import numpy as np
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "testdata")
TOKENIZER = os.path.join(HERE, "..", "..", "tests", "cli", "testdata", "tiny_tokenizer")
V, EOS = 256, 1

rng = np.random.default_rng(0)
table = rng.standard_normal((V, V)).astype(np.float32) * 0.1
for t in range(V):
    table[t, EOS if t >= 240 else (t + 7) % V] = 4.0
os.makedirs(OUT, exist_ok=True)
save_file({"bigram.weight": table.astype(np.float16)}, os.path.join(OUT, "model.safetensors"))
with open(os.path.join(OUT, "config.json"), "w") as f:
    json.dump({"model_type": "bigram", "vocab_size": V, "eos_token_id": EOS}, f, indent=1)
    f.write("\n")
for name in ("tokenizer.json", "tokenizer_config.json"):
    shutil.copy(os.path.join(TOKENIZER, name), os.path.join(OUT, name))
