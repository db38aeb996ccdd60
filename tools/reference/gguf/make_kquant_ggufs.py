#!/usr/bin/env python3
"""K-quant GGUF files (Q4_K and Q6_K tensors) of tiny random Gemma 4 and
Qwen 3.5 text models, with transformers' float32 logits of the weights the
files hold, for //tests/models/gemma4:gemma4_gguf_test and
//tests/models/qwen35:qwen35_gguf_test.

The converter writes no K-quants and llama.cpp's quantize tool is not in the
Python package, so: a random model 256 wide (K-quant blocks are 256 values of
a row; the regular fixtures' rows are shorter) is saved by transformers,
converted to f32 by the pinned converter (make_model_ggufs.py's tree), and
every tensor with rows of a multiple of 256 values is requantised to Q6_K
(token embeddings, down projections) or Q4_K (the rest) by kquants.py, all
the metadata copied, with gguf-py's writer. The reference is transformers'
model (float32, eager) with those tensors replaced by gguf-py's dequantised
values, so the file's logits must equal it within float32 noise.

Qwen 3.5's DeltaNet has as many key as value heads here (no head reorder), and
only tensors the converter leaves as they are are requantised, so the
dequantised values go back by name alone.

Output, in tests/models/<arch>/testdata/gguf/: <name>.gguf and
<name>.reference.safetensors (p{i}.tokens I32 [T], p{i}.logits F32 [V] at the
last prompt position, p{i}.greedy I32 [G], p{i}.greedy_logits F32 [G, V],
recomputed from scratch each step).

  /work/venvs/gguf/bin/python tools/reference/gguf/make_kquant_ggufs.py \
      /tmp/lcp/llama_cpp_python-0.3.36.tar.gz
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
from make_model_ggufs import ROOT, extract_converter, qwen_tokenizer  # noqa: E402
from make_gemma4_ggufs import gemma_tokenizer  # noqa: E402
import kquants  # noqa: E402

GREEDY = 16
SEED = 1234


def gemma4_config():
    c = json.load(open(os.path.join(ROOT, "tests/models/gemma4/testdata/text_only_saved/config.json")))
    c.update(vocab_size=256, vocab_size_per_layer_input=256, hidden_size=256, intermediate_size=256,
             num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64,
             layer_types=["sliding_attention", "full_attention"], sliding_window=6,
             num_kv_shared_layers=0, hidden_size_per_layer_input=128, attention_k_eq_v=False,
             use_double_wide_mlp=False, final_logit_softcapping=10.0,
             per_layer_config={"1": {"head_dim": 128, "num_key_value_heads": 1}})
    return c


def qwen35_config():
    # Qwen 3.5's text config, 256 wide: one DeltaNet and one attention layer.
    # 320 ids, as the Qwen 3.5 fixtures: room for the 256 byte symbols, merges and specials.
    return {"architectures": ["Qwen3_5ForCausalLM"], "model_type": "qwen3_5_text",
            "vocab_size": 320, "hidden_size": 256, "intermediate_size": 256,
            "num_hidden_layers": 2, "layer_types": ["linear_attention", "full_attention"],
            "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 128,
            "linear_num_key_heads": 2, "linear_num_value_heads": 2, "linear_key_head_dim": 64,
            "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "hidden_act": "silu",
            "rms_norm_eps": 1e-6, "max_position_embeddings": 4096, "mtp_num_hidden_layers": 0, "tie_word_embeddings": False,
            "attn_output_gate": True, "attention_bias": False, "eos_token_id": 319,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000000.0,
                                "partial_rotary_factor": 0.25,
                                "mrope_section": [6, 5, 5], "mrope_interleaved": True}}


def randomize(model, gen):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(("q_norm.weight", "k_norm.weight")):
                p.copy_(torch.rand(p.shape, generator=gen) * 0.5 + 0.25)
            elif "norm" in name or "layer_scalar" in name:
                # Gemma 4 and the DeltaNet's norm scale by w, Qwen 3.5's others by 1 + w.
                plain = "gemma" in type(model).__name__.lower() or "linear_attn.norm" in name
                p.copy_(torch.rand(p.shape, generator=gen) * 0.5 + (0.75 if plain else -0.25))
            elif name.endswith("A_log"):
                p.copy_(torch.rand(p.shape, generator=gen) * 2 - 1)
            elif name.endswith("dt_bias"):
                p.copy_(torch.rand(p.shape, generator=gen) - 0.5)
            elif p.dim() >= 2:
                p.copy_(torch.randn(p.shape, generator=gen) / np.sqrt(p.shape[-1]))
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.1)


def gguf_to_hf(arch, name):
    """transformers' name of a requantised tensor (those map by name alone)."""
    if arch == "gemma4":
        g = {"token_embd.weight": "model.embed_tokens.weight",
             "per_layer_token_embd.weight": "model.embed_tokens_per_layer.weight",
             "per_layer_model_proj.weight": "model.per_layer_model_projection.weight"}
        b = {"ffn_down": "mlp.down_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
             "inp_gate": "per_layer_input_gate", "proj": "per_layer_projection",
             "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
             "attn_q": "self_attn.q_proj", "attn_output": "self_attn.o_proj"}
    else:
        g = {"token_embd.weight": "model.embed_tokens.weight", "output.weight": "lm_head.weight"}
        b = {"ffn_down": "mlp.down_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
             "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
             "attn_q": "self_attn.q_proj", "attn_output": "self_attn.o_proj",
             "attn_qkv": "linear_attn.in_proj_qkv", "attn_gate": "linear_attn.in_proj_z",
             "ssm_out": "linear_attn.out_proj"}
    if name in g:
        return g[name]
    parts = name.split(".")
    if parts[0] == "blk" and parts[2] in b and parts[3] == "weight":
        return f"model.layers.{parts[1]}.{b[parts[2]]}.weight"
    return None


def requantise(gguf, arch, src, dst):
    """Copies src (f32) to dst with Q6_K / Q4_K tensors; returns {hf name: values}."""
    r = gguf.GGUFReader(src)
    w = gguf.GGUFWriter(dst, arch)
    for key, f in r.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture":
            continue
        vtype = gguf.GGUFValueType(f.types[0])
        sub = gguf.GGUFValueType(f.types[1]) if vtype == gguf.GGUFValueType.ARRAY else None
        if key == "general.file_type":
            w.add_key_value(key, int(gguf.LlamaFileType.MOSTLY_Q4_K_M), vtype)
            continue
        w.add_key_value(key, f.contents(), vtype, sub_type=sub)
    served = {}
    for t in r.tensors:
        values = np.array(t.data, dtype=np.float32)  # ggml order: [ne1, ne0]
        hf = gguf_to_hf(arch, t.name)
        if values.ndim == 2 and values.shape[1] % 256 == 0 and hf is not None:
            six = t.name in ("token_embd.weight", "output.weight") or "ffn_down" in t.name
            qtype = gguf.GGMLQuantizationType.Q6_K if six else gguf.GGMLQuantizationType.Q4_K
            data = (kquants.quantize_q6_k if six else kquants.quantize_q4_k)(values)
            served[hf] = gguf.dequantize(data, qtype).reshape(values.shape)
            w.add_tensor(t.name, data, raw_dtype=qtype)
        else:
            w.add_tensor(t.name, values)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return served


def reference(model, vocab, gen):
    out = {}
    lengths = [1, 7, 19]
    for i, n in enumerate(lengths):
        tokens = [2] + torch.randint(5, vocab, (n - 1,), generator=gen).tolist() if n > 1 else [2]
        seq = list(tokens)
        greedy, greedy_logits = [], []
        with torch.no_grad():
            for g in range(GREEDY + 1):
                logits = model(torch.tensor([seq])).logits[0, -1].float()
                if g == 0:
                    out[f"p{i}.logits"] = logits.clone()
                if g == GREEDY:
                    break
                nxt = int(torch.argmax(logits))
                greedy.append(nxt)
                greedy_logits.append(logits.clone())
                seq.append(nxt)
        out[f"p{i}.tokens"] = torch.tensor(tokens, dtype=torch.int32)
        out[f"p{i}.greedy"] = torch.tensor(greedy, dtype=torch.int32)
        out[f"p{i}.greedy_logits"] = torch.stack(greedy_logits)
    return out


def build(llama, arch, name, out_dir):
    import transformers
    from safetensors.torch import save_file
    sys.path.insert(0, os.path.join(llama, "gguf-py"))
    import gguf
    kquants.check(gguf)
    config = gemma4_config() if arch == "gemma4" else qwen35_config()
    gen = torch.Generator().manual_seed(SEED)
    with tempfile.TemporaryDirectory() as folder:
        json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=1)
        cfg = transformers.AutoConfig.from_pretrained(folder)
        cfg._attn_implementation = "eager"
        torch.manual_seed(SEED)
        model = transformers.AutoModelForCausalLM.from_config(cfg).float().eval()
        randomize(model, gen)
        model.save_pretrained(folder)
        json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=1)
        if arch == "gemma4":
            tok, tok_cfg = gemma_tokenizer(config["vocab_size"])
        else:
            tok, tok_cfg = qwen_tokenizer(config["vocab_size"], config)
        json.dump(tok, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"),
                  ensure_ascii=False)
        json.dump(tok_cfg, open(os.path.join(folder, "tokenizer_config.json"), "w",
                                encoding="utf-8"), ensure_ascii=False)
        f32 = os.path.join(folder, "model.f32.gguf")
        pre = ("import conversion.base as b\n"
               "b.TextModel.get_vocab_base_pre = lambda self, tokenizer: 'qwen35'\n"
               if arch == "qwen35" else "")
        run = ("import sys; sys.path.insert(0, %r); sys.path.insert(0, %r)\n"
               "sys.argv = ['convert_hf_to_gguf.py', '--outtype', 'f32', '--outfile', %r,"
               " '--model-name', %r, %r] + %r\n%s"
               "import convert_hf_to_gguf\nconvert_hf_to_gguf.main()\n"
               % (os.path.join(llama, "gguf-py"), llama, f32, name, folder,
                  ["--no-mtp"] if arch == "qwen35" else [], pre))
        subprocess.run([sys.executable, "-c", run], check=True, cwd=llama)
        out = os.path.join(out_dir, f"{name}.gguf")
        served = requantise(gguf, arch, f32, out)
        state = model.state_dict()
        with torch.no_grad():
            for hf, v in served.items():
                key = hf if hf in state else hf.replace("model.", "model.language_model.", 1)
                state[key].copy_(torch.from_numpy(v))
        model.load_state_dict(state)
        ref = reference(model, config["vocab_size"], gen)
        save_file({k: v.contiguous() for k, v in ref.items()},
                  os.path.join(out_dir, f"{name}.reference.safetensors"))
        print("wrote", out, os.path.getsize(out), "requantised", len(served))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    archs = sys.argv[2].split(",") if len(sys.argv) == 3 else ["gemma4", "qwen35"]
    with tempfile.TemporaryDirectory() as work:
        llama = extract_converter(sys.argv[1], work)
        for arch in archs:
            build(llama, arch, "tiny_kquant", os.path.join(ROOT, f"tests/models/{arch}/testdata/gguf"))


if __name__ == "__main__":
    main()
