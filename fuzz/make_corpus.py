#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/safetensors/ and fuzz/corpus/json/ (valid_* parse,
bad_* fail)."""
import json
import os
import struct

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
         "U8": 1, "BOOL": 1}


def frame(header_text, data=b""):
    h = header_text.encode()
    return struct.pack("<Q", len(h)) + h + data


def build(tensors, metadata=None, pad=True):
    header, off = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape in tensors:
        n = SIZES[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + n]}
        off += n
    text = json.dumps(header, separators=(",", ":"), sort_keys=True)
    if pad:
        text += " " * ((8 - len(text) % 8) % 8)
    return frame(text, bytes(i % 251 for i in range(off)))


def safetensors_seeds():
    return {
        "valid_empty": frame("{}"),
        "valid_one_f32": build([("w", "F32", [2, 3])]),
        "valid_all_dtypes": build([(f"t.{d.lower()}", d, [2, 1]) for d in SIZES],
                                  {"format": "pt"}),
        "valid_scalar_and_empty": build([("s", "I64", []), ("e", "U8", [0, 4]),
                                         ("z", "BF16", [3])]),
        "valid_metadata_only": frame(json.dumps({"__metadata__": {"a": "b", "c": ""}})),
        "valid_unpadded": build([("x", "F16", [4])], pad=False),
        "bad_short": b"\x05\x00\x00",
        "bad_header_past_end": struct.pack("<Q", 100) + b"{}",
        "bad_header_huge": struct.pack("<Q", 1 << 56) + b"{}",
        "bad_not_json": frame('{"a": nope}'),
        "bad_top_array": frame("[1,2]"),
        "bad_duplicate": frame('{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                               '"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}',
                               bytes(8)),
        "bad_truncated": build([("a", "F32", [4, 4]), ("b", "F32", [8])])[:-5],
        "bad_overlap": frame('{"a":{"dtype":"F32","shape":[6],"data_offsets":[0,24]},'
                             '"b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}}',
                             bytes(24)),
        "bad_fp8": frame('{"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}}', b"ab"),
        "bad_size_mismatch": frame('{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}}',
                                   bytes(24)),
        "bad_negative_dim": frame('{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}'),
        "bad_overflow": frame('{"a":{"dtype":"F32","shape":[4294967296,4294967296],'
                              '"data_offsets":[0,0]}}'),
        "bad_metadata": frame('{"__metadata__":{"format":1}}'),
        "bad_deep": frame("[" * 200 + "]" * 200),
        "valid_json_header": b'{"w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]},'
                      b'"__metadata__":{"k":"v"}}',
        "valid_json_unicode": '{"w\\u00e9\\ud83d\\ude00":{"dtype":"U8","shape":[1],'
                        '"data_offsets":[0,1]}}'.encode(),
        "bad_json_offsets": b'{"w":{"dtype":"I8","shape":[3],"data_offsets":[1e3,2]}}',
    }


def json_seeds():
    config = {
        "architectures": ["Gemma4ForConditionalGeneration"],
        "text_config": {"hidden_size": 1536, "rope_theta": 1000000.0, "sliding_window": 512,
                        "layer_types": ["sliding_attention", "full_attention"],
                        "final_logit_softcapping": 30.0, "use_cache": True,
                        "rope_scaling": None},
        "eos_token_id": [1, 106],
        "torch_dtype": "bfloat16",
    }
    return {
        "valid_config": json.dumps(config, indent=2).encode(),
        "valid_all_types": b'{"n":null,"t":true,"f":false,"i":-7,"x":2.5e-3,"s":"a\\"b",'
                           b'"a":[1,[],{}],"o":{"":0}}',
        "valid_scalar": b"42",
        "valid_string_root": b'"\\u00e9\\ud83d\\ude00 \xf0\x9f\x98\x80"',
        "valid_numbers": b"[9223372036854775807,-9223372036854775808,9223372036854775808,"
                         b"18446744073709551616,1e308,-0,0.0,1E+2]",
        "valid_escapes": b'["\\n\\t\\/\\\\\\u0000", "\\b\\f\\r"]',
        "valid_deep_512": b"[" * 512 + b"]" * 512,
        "valid_deep_objects": b'{"a":' * 100 + b"1" + b"}" * 100,
        "valid_whitespace": b" \r\n\t{ \"k\" : [ 1 , 2 ] }\n",
        "valid_bom": b"\xef\xbb\xbf{}",
        "valid_siblings_same_key": b'[{"a":1},{"a":{"a":2}}]',
        "bad_empty": b"",
        "bad_deep_513": b"[" * 513 + b"]" * 513,
        "bad_duplicate": b'{"a":1,"a":2}',
        "bad_duplicate_escaped": b'{"x":{"\\u0061":1,"a":2}}',
        "bad_utf8": b'["\xff"]',
        "bad_overlong": b'"\xc0\xaf"',
        "bad_lone_surrogate": b'"\\ud800"',
        "bad_overflow": b"[1e400]",
        "bad_trailing": b"{} {}",
        "bad_nul": b"[1]\x00",
        "bad_comment": b"// no\n{}",
        "bad_single_quotes": b"{'a':1}",
        "bad_trailing_comma": b"[1,]",
        "bad_truncated": b'{"a":[1,2',
        "bad_control_char": b'"a\x01b"',
    }


def main():
    for corpus, seeds in (("safetensors", safetensors_seeds()), ("json", json_seeds())):
        out = os.path.join(CORPUS, corpus)
        os.makedirs(out, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
