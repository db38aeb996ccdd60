#!/usr/bin/env python3
"""Writes the seed corpora of the model-config, shard-index and CLIP tokenizer fuzz targets
(fuzz/corpus/{model_config,shard_index,clip_tokenizer}/): valid_* are accepted, bad_* refused.
The valid configs are the repository's test configs (real published ones, minified)."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def load(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return json.load(f)


def dump(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def with_field(obj, path, value):
    obj = json.loads(json.dumps(obj))
    node = obj
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return obj


def model_config_seeds():
    gemma = load("tests/models/gemma4/testdata/configs/gemma-4-E2B-it.config.json")
    gemma_tiny = load("tests/models/gemma4/testdata/e2b_like/config.json")
    qwen = load("tests/models/qwen35/testdata/configs/Qwen3.5-0.8B.config.json")
    qwen_tiny = load("tests/models/qwen35/testdata/tiny_tied/config.json")
    proc = load("tests/models/gemma4/testdata/media/processor_config.json")
    unet = load("tests/models/sd/testdata/sd1/unet/config.json")
    vae = load("tests/models/sd/testdata/sd1/vae/config.json")
    clip = load("tests/models/sd/testdata/sd1/text_encoder/config.json")
    sched = load("tests/models/sd/testdata/sd1/scheduler/scheduler_config.json")
    text = "text_config"
    return {
        "valid_gemma4_e2b": dump(gemma),
        "valid_gemma4_tiny": dump(gemma_tiny),
        "valid_qwen35_08b": dump(qwen),
        "valid_qwen35_tiny": dump(qwen_tiny),
        "valid_gemma4_processor": dump(proc),
        "valid_sd_unet": dump(unet),
        "valid_sd_vae": dump(vae),
        "valid_sd_clip": dump(clip),
        "valid_sd_scheduler": dump(sched),
        "bad_not_json": b'{"model_type": gemma4}',
        "bad_array": b"[1, 2, 3]",
        "bad_deep": b"[" * 600 + b"]" * 600,
        "bad_gemma4_eps_zero": dump(with_field(gemma, [text, "rms_norm_eps"], 0)),
        "bad_gemma4_head_dim_zero": dump(with_field(gemma, [text, "head_dim"], 0)),
        "bad_gemma4_layers_huge": dump(with_field(gemma, [text, "num_hidden_layers"], 1 << 40)),
        "bad_qwen35_heads_indivisible": dump(with_field(qwen, [text, "num_key_value_heads"], 3)),
        "bad_qwen35_eps_nan": dump(with_field(qwen, [text, "rms_norm_eps"], "NaN")),
        "bad_sd_unet_eps_zero": dump(with_field(unet, ["norm_eps"], 0)),
        "bad_sd_unet_blocks_mismatch": dump(with_field(unet, ["block_out_channels"], [32])),
        "bad_sd_clip_heads_indivisible": dump(with_field(clip, ["num_attention_heads"], 5)),
        "bad_sd_vae_scaling_inf": dump(with_field(vae, ["scaling_factor"], 7.5)).replace(
            b"7.5", b"1e400"),
    }


def shard_index_seeds():
    a, b = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
    full = {"a.weight": a, "b.bias": a, "c.weight": b}
    return {
        "valid_two_shards": dump({"metadata": {"total_size": 40}, "weight_map": full}),
        "valid_one_shard_subset": dump({"weight_map": {"c.weight": b}}),
        "valid_null_metadata": dump({"metadata": None, "weight_map": {"a.weight": a}}),
        "bad_not_json": b'{"weight_map": {',
        "bad_no_weight_map": dump({"metadata": {}}),
        "bad_weight_map_array": dump({"weight_map": [a]}),
        "bad_empty_map": dump({"weight_map": {}}),
        "bad_wrong_shard": dump({"weight_map": {"a.weight": b}}),
        "bad_missing_shard": dump({"weight_map": {"a.weight": "model-00009.safetensors"}}),
        "bad_path_escape": dump({"weight_map": {"a.weight": "../" + a}}),
        "bad_dotdot": dump({"weight_map": {"a.weight": ".."}}),
        "bad_not_a_shard": dump({"weight_map": {"a.weight": "notes.txt"}}),
        "bad_index_itself": dump({"weight_map": {"a.weight": "model.safetensors.index.json"}}),
        "bad_number_value": dump({"weight_map": {"a.weight": 1}}),
        "bad_metadata_string": dump({"metadata": "x", "weight_map": {"a.weight": a}}),
    }


def clip_tokenizer_seeds():
    tok = load("tests/models/sd/testdata/sd1/tokenizer/tokenizer.json")
    small = dump(tok)
    prompts = [
        "a photograph of an astronaut riding a horse",
        "Café crème, naïve façade — “quoted” 🚀 e\u0301 ÅNGSTRÖM",
        "<|startoftext|>two <|endoftext|> specials!!! it's 1234   spaces\t\nnew",
        "x" * 300,
        "the " * 100,
    ]
    seeds = {f"valid_prompt_{i}": p.encode() for i, p in enumerate(prompts)}
    seeds["valid_prompt_bytes"] = bytes(range(1, 256))
    seeds["valid_tokenizer_json"] = prompts[1].encode() + b"\0" + small
    seeds["bad_tokenizer_not_json"] = b"a cat\0" + b'{"model": '
    seeds["bad_tokenizer_no_model"] = b'a cat\0{"added_tokens": []}'
    # The refusals on a minimal tokenizer.json (the prefixes the corpus test
    # runs stay cheap).
    tiny = {"model": {"type": "BPE", "vocab": {"<|startoftext|>": 0, "<|endoftext|>": 1, "a</w>": 2,
                                             "c": 3, "a": 4, "t</w>": 5, "ca": 6, "cat</w>": 7},
                      "merges": ["c a", "ca t</w>"]}}
    seeds["valid_tokenizer_minimal"] = b"a cat\0" + dump(tiny)
    no_bos = json.loads(json.dumps(tiny))
    del no_bos["model"]["vocab"]["<|startoftext|>"]
    seeds["bad_tokenizer_no_bos"] = b"a cat\0" + dump(no_bos)
    seeds["bad_tokenizer_negative_id"] = b"a cat\0" + dump(
        with_field(tiny, ["model", "vocab", "a"], -5))
    seeds["bad_tokenizer_huge_id"] = b"a cat\0" + dump(
        with_field(tiny, ["model", "vocab", "a"], 1 << 40))
    seeds["bad_tokenizer_merges_object"] = b"a cat\0" + dump(
        with_field(tiny, ["model", "merges"], {"c": "a"}))
    seeds["bad_tokenizer_merge_pair_number"] = b"a cat\0" + dump(
        with_field(tiny, ["model", "merges"], [["c", 1]]))
    return seeds


def main():
    for corpus, seeds in (("model_config", model_config_seeds()),
                          ("shard_index", shard_index_seeds()),
                          ("clip_tokenizer", clip_tokenizer_seeds())):
        out = os.path.join(CORPUS, corpus)
        os.makedirs(out, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
