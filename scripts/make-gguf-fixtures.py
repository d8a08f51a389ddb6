#!/usr/bin/env python3
"""Makes the GGUF fixtures of tests/fixtures/gguf/ (issue 34, item 2a).

Each tiny Hugging Face fixture of tests/fixtures/hf/ is written as the GGUF file llama.cpp's
convert_hf_to_gguf.py would make of it (tensor names, GGUF's ggml dimension order, Llama's q/k
rows permuted for ggml's RoPE, Gemma's norms stored as 1 + w, GPT-2's Conv1D transposed, the
tokenizer as tokenizer.ggml.*), by hand with struct: independent of the JS reader. Then:
  - tiny-llama again at Q8_0 and Q4_0, quantized with ggml's reference algorithms
    (quantize_row_q8_0_ref, quantize_row_q4_0_ref), with the logits of make-hf-fixtures.py's
    float64 PyTorch forward on the dequantized weights (tiny-llama-<type>.json);
  - kquants.gguf: random Q4_K and Q6_K blocks, with their float64 dequantization
    (kquants.json), written from ggml-quants.c's dequantize_row_q4_K / dequantize_row_q6_K.

Run with Debian's python3-torch and numpy; CI only reads the output:
    /usr/bin/python3 scripts/make-gguf-fixtures.py
"""
import importlib.util
import json
import math
import os
import struct

import numpy as np
import torch

HERE = os.path.dirname(__file__)
HF = os.path.join(HERE, "..", "tests", "fixtures", "hf")
OUT = os.path.join(HERE, "..", "tests", "fixtures", "gguf")

# ---- GGUF, written by hand ----
T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY, T_UINT64 = 4, 5, 6, 7, 8, 9, 10
GGML_F32, GGML_Q4_0, GGML_Q8_0, GGML_Q4_K, GGML_Q6_K = 0, 2, 8, 12, 14
ALIGN = 32


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_value(vtype, value):
    if vtype == T_STRING:
        return gguf_string(value)
    if vtype == T_ARRAY:
        etype, items = value
        out = struct.pack("<IQ", etype, len(items))
        return out + b"".join(gguf_value(etype, v) for v in items)
    fmt = {T_UINT32: "<I", T_INT32: "<i", T_FLOAT32: "<f", T_BOOL: "<?", T_UINT64: "<Q"}[vtype]
    return struct.pack(fmt, value)


def write_gguf(path, metadata, tensors):
    """metadata: [(key, type, value)]; tensors: [(name, ggml_type, ne (ggml order), bytes)]."""
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, vtype, value in metadata:
        head += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
    offset, blobs = 0, []
    for name, gtype, ne, data in tensors:
        head += gguf_string(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
        head += struct.pack("<IQ", gtype, offset)
        pad = (-len(data)) % ALIGN
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    head += b"\0" * ((-len(head)) % ALIGN)
    with open(path, "wb") as f:
        f.write(head + b"".join(blobs))
    print(os.path.basename(path), os.path.getsize(path), "bytes")


# ---- safetensors, read by hand ----
def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", e["dtype"]
        a, b = e["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + a:8 + n + b], dtype="<f4").reshape(e["shape"]).copy()
    return out


# ---- ggml's reference quantizers (ggml-quants.c), in float32 as ggml computes ----
def fp16(x):
    return np.float32(np.float16(x))


def quantize_q8_0(row):
    """quantize_row_q8_0_ref: d = amax / 127, q = roundf(x / d) (x · 1/d), d stored as fp16."""
    out, deq = b"", []
    for blk in row.reshape(-1, 32).astype(np.float32):
        amax = np.float32(np.max(np.abs(blk)))
        d = np.float32(amax / np.float32(127))
        inv = np.float32(1) / d if d != 0 else np.float32(0)
        q = [int(math.copysign(math.floor(abs(float(np.float32(v * inv))) + 0.5), float(v))) for v in blk]
        out += np.float16(d).tobytes() + struct.pack("<32b", *q)
        deq += [float(fp16(d)) * qi for qi in q]
    return out, deq


def quantize_q4_0(row):
    """quantize_row_q4_0_ref: max = the value of largest magnitude (signed), d = max / -8,
    q = min(15, (int8)(x / d + 8.5)); element j < 16 in byte j's low nibble, 16 + j in its high."""
    out, deq = b"", []
    for blk in row.reshape(-1, 32).astype(np.float32):
        i = int(np.argmax(np.abs(blk)))  # the first of the largest, as ggml's strict '>' scan
        mx = blk[i]
        d = np.float32(mx / np.float32(-8))
        inv = np.float32(1) / d if d != 0 else np.float32(0)
        q = [min(15, int(float(np.float32(np.float32(v * inv) + np.float32(8.5))))) for v in blk]
        packed = bytes(q[j] | (q[j + 16] << 4) for j in range(16))
        out += np.float16(d).tobytes() + packed
        deq += [float(fp16(d)) * (qi - 8) for qi in q]
    return out, deq


QUANTIZERS = {"Q8_0": (GGML_Q8_0, quantize_q8_0), "Q4_0": (GGML_Q4_0, quantize_q4_0)}


def tensor_entry(name, array, qtype=None, keep=()):
    """A tensor (PyTorch order) → (name, type, ne, bytes) and its stored value (float64 array);
    quantized when it is 2-D with rows of whole blocks, unless its name is in `keep`."""
    a = np.ascontiguousarray(array, dtype=np.float32)
    ne = list(reversed(a.shape))
    if qtype is not None and a.ndim == 2 and a.shape[1] % 32 == 0 and name not in keep:
        gtype, quantize = QUANTIZERS[qtype]
        data, deq = b"", []
        for row in a:
            b, d = quantize(row)
            data += b
            deq += d
        return (name, gtype, ne, data), np.array(deq, dtype=np.float64).reshape(a.shape)
    return (name, GGML_F32, ne, a.tobytes()), a.astype(np.float64)


# ---- HF names → GGUF (convert_hf_to_gguf.py's tensor map for these families) ----
def permute(w, n_head):
    """LlamaModel.permute: each head's rows [2, half] → [half, 2]."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


DECODER_MAP = {
    "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down", "input_layernorm": "attn_norm", "self_attn.q_norm": "attn_q_norm",
    "self_attn.k_norm": "attn_k_norm",
}


def decoder_tensors(arch, cfg, w):
    """[(gguf name, array)] in the converter's order."""
    gemma = arch in ("gemma2", "gemma3")
    H, KV = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    out = [("token_embd.weight", w["model.embed_tokens.weight"])]
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        for name in sorted(k for k in w if k.startswith(p)):
            rest = name[len(p):]
            base, kind = rest.rsplit(".", 1)
            if base == "post_attention_layernorm":
                g = "post_attention_norm" if gemma or arch == "olmo2" else "ffn_norm"
            elif base == "pre_feedforward_layernorm":
                g = "ffn_norm"
            elif base == "post_feedforward_layernorm":
                g = "post_ffw_norm"
            else:
                g = DECODER_MAP[base]
            t = w[name]
            if arch in ("llama", "granite", "smollm3") and g in ("attn_q", "attn_k"):  # LlamaModel.permute
                t = permute(t, H if g == "attn_q" else KV)
            if gemma and base.endswith("norm"):
                t = (torch.from_numpy(t) + 1).numpy()  # Gemma2Model.modify_tensors: data_torch + 1 (float32)
            out.append(("blk.%d.%s.%s" % (l, g, kind), t))
    norm = w["model.norm.weight"]
    out.append(("output_norm.weight", (torch.from_numpy(norm) + 1).numpy() if gemma else norm))
    if "lm_head.weight" in w:
        out.append(("output.weight", w["lm_head.weight"]))
    return out


def gpt2_tensors(cfg, w):
    w = {k.removeprefix("transformer."): v for k, v in w.items()}
    out = [("token_embd.weight", w["wte.weight"]), ("position_embd.weight", w["wpe.weight"])]
    names = {"ln_1": "attn_norm", "attn.c_attn": "attn_qkv", "attn.c_proj": "attn_output", "ln_2": "ffn_norm",
             "mlp.c_fc": "ffn_up", "mlp.c_proj": "ffn_down"}
    for l in range(cfg["n_layer"]):
        for hf, g in names.items():
            for kind in ("weight", "bias"):
                t = w["h.%d.%s.%s" % (l, hf, kind)]
                if kind == "weight" and not hf.startswith("ln"):
                    t = t.T  # Conv1D [in, out] → [out, in]
                out.append(("blk.%d.%s.%s" % (l, g, kind), t))
    # (GPT2Model.modify_tensors also writes the tied head as output.weight: left out here to keep
    # the fixtures small; the reader ties the embeddings when a file has no output.weight.)
    out += [("output_norm.weight", w["ln_f.weight"]), ("output_norm.bias", w["ln_f.bias"])]
    return out


def model_metadata(arch, cfg):
    u, f = T_UINT32, T_FLOAT32
    if arch == "gpt2":
        return [("gpt2.context_length", u, cfg["n_positions"]), ("gpt2.embedding_length", u, cfg["n_embd"]),
                ("gpt2.feed_forward_length", u, 4 * cfg["n_embd"]), ("gpt2.block_count", u, cfg["n_layer"]),
                ("gpt2.attention.head_count", u, cfg["n_head"]),
                ("gpt2.attention.layer_norm_epsilon", f, cfg["layer_norm_epsilon"])]
    hd = cfg.get("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    m = [("%s.context_length" % arch, u, cfg["max_position_embeddings"]),
         ("%s.embedding_length" % arch, u, cfg["hidden_size"]),
         ("%s.feed_forward_length" % arch, u, cfg["intermediate_size"]),
         ("%s.block_count" % arch, u, cfg["num_hidden_layers"]),
         ("%s.attention.head_count" % arch, u, cfg["num_attention_heads"]),
         ("%s.attention.head_count_kv" % arch, u, cfg["num_key_value_heads"]),
         ("%s.attention.key_length" % arch, u, hd), ("%s.attention.value_length" % arch, u, hd),
         ("%s.attention.layer_norm_rms_epsilon" % arch, f, cfg["rms_norm_eps"]),
         ("%s.rope.freq_base" % arch, f, cfg["rope_theta"]),
         ("%s.rope.dimension_count" % arch, u, int(hd * cfg.get("partial_rotary_factor", 1)))]
    if arch in ("gemma2", "gemma3"):
        m.append(("%s.attention.sliding_window" % arch, u, cfg["sliding_window"]))
        # GGUF has no query_pre_attn_scalar; llama.cpp's attention.scale carries it when it is not head_dim.
        if cfg["query_pre_attn_scalar"] != hd:
            m.append(("%s.attention.scale" % arch, f, cfg["query_pre_attn_scalar"] ** -0.5))
    if arch == "granite":  # GraniteModel.set_gguf_parameters: the _multiplier keys as _scale
        m += [("granite.attention.scale", f, cfg["attention_multiplier"]),
              ("granite.embedding_scale", f, cfg["embedding_multiplier"]),
              ("granite.residual_scale", f, cfg["residual_multiplier"]),
              ("granite.logit_scale", f, cfg["logits_scaling"])]
    if arch == "gemma2":
        m += [("gemma2.attn_logit_softcapping", f, cfg["attn_logit_softcapping"]),
              ("gemma2.final_logit_softcapping", f, cfg["final_logit_softcapping"])]
    if arch == "gemma3":
        m.append(("gemma3.attention.sliding_window_pattern", u, cfg["sliding_window_pattern"]))
        rs = cfg.get("rope_scaling")
        if rs:
            m += [("gemma3.rope.scaling.type", T_STRING, rs["rope_type"]), ("gemma3.rope.scaling.factor", f, rs["factor"])]
    return m


def tokenizer_metadata(tok, cfg, chat_template=None, pre="gpt-2"):
    """tokenizer.json → tokenizer.ggml.*: 'llama' (SentencePiece: scores, byte tokens) when the
    model falls back to bytes, else 'gpt2' (byte-level BPE with its merges)."""
    model = tok["model"]
    vocab = model["vocab"]
    added = {t["id"]: t for t in tok["added_tokens"]}
    V = max(list(vocab.values()) + list(added)) + 1
    tokens = [None] * V
    for t, i in vocab.items():
        tokens[i] = t
    for i, t in added.items():
        tokens[i] = t["content"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    m = [("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, tokens))]
    if model.get("byte_fallback"):
        # Scores: a merged piece ranks by its merge (earlier = higher), as SentencePiece's scores do.
        rank = {}
        for r, pair in enumerate(merges):
            rank.setdefault(pair.replace(" ", ""), r)
        scores = [-float(rank[t]) - 1 if t in rank else 0.0 for t in tokens]
        types = [3 if i in added else 6 if t.startswith("<0x") and len(t) == 6 else 1 for i, t in enumerate(tokens)]
        types[vocab[model["unk_token"]]] = 2
        m = [("tokenizer.ggml.model", T_STRING, "llama")] + m + [
            ("tokenizer.ggml.scores", T_ARRAY, (T_FLOAT32, scores)),
            ("tokenizer.ggml.token_type", T_ARRAY, (T_INT32, types)),
            ("tokenizer.ggml.unknown_token_id", T_UINT32, vocab[model["unk_token"]]),
            ("tokenizer.ggml.add_bos_token", T_BOOL, True)]
    else:
        types = [3 if i in added else 1 for i in range(V)]
        m = [("tokenizer.ggml.model", T_STRING, "gpt2"), ("tokenizer.ggml.pre", T_STRING, pre)] + m + [
            ("tokenizer.ggml.token_type", T_ARRAY, (T_INT32, types)),
            ("tokenizer.ggml.merges", T_ARRAY, (T_STRING, merges)),
            ("tokenizer.ggml.add_bos_token", T_BOOL, False)]
    m += [("tokenizer.ggml.bos_token_id", T_UINT32, cfg["bos_token_id"]),
          ("tokenizer.ggml.eos_token_id", T_UINT32, cfg["eos_token_id"])]
    if cfg.get("pad_token_id") is not None:
        m.append(("tokenizer.ggml.padding_token_id", T_UINT32, cfg["pad_token_id"]))
    if chat_template:
        m.append(("tokenizer.chat_template", T_STRING, chat_template))
    return m


ARCH = {"llama": "llama", "granite": "granite", "olmo2": "olmo2", "smollm3": "smollm3", "qwen2": "qwen2", "qwen3": "qwen3", "gemma2": "gemma2", "gemma3_text": "gemma3", "gpt2": "gpt2"}
CHAT = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}</s>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"


def convert(fixture, out_name, qtype=None, chat_template=None, keep=(), tokenizer=True, pre="gpt-2"):
    folder = os.path.join(HF, fixture)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    tok = json.load(open(os.path.join(folder, "tokenizer.json")))
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    arch = ARCH[cfg["model_type"]]
    named = gpt2_tensors(cfg, w) if arch == "gpt2" else decoder_tensors(arch, cfg, w)
    entries, stored = [], {}
    for name, t in named:
        e, value = tensor_entry(name, t, qtype, keep)
        entries.append(e)
        stored[name] = value
    meta = [("general.architecture", T_STRING, arch), ("general.name", T_STRING, fixture)]
    meta += model_metadata(arch, cfg) + (tokenizer_metadata(tok, cfg, chat_template, pre) if tokenizer else [])
    write_gguf(os.path.join(OUT, out_name), meta, entries)
    return cfg, stored


# ---- the quantized Llama's reference logits: make-hf-fixtures.py's forward on dequantized weights ----
def load_hf_script():
    spec = importlib.util.spec_from_file_location("make_hf_fixtures", os.path.join(HERE, "make-hf-fixtures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unpermute(w, n_head):
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def llama_reference(qtype, cfg, stored):
    hf = load_hf_script()
    H, KV = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    # The dequantized weights under their Hugging Face names (q/k rows back in HF order).
    back = {"token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight",
            "output.weight": "lm_head.weight"}
    inverse = {v: k for k, v in DECODER_MAP.items()}
    inverse["ffn_norm"] = "post_attention_layernorm"
    dequantized = {}
    for name, value in stored.items():
        if name in back:
            dequantized[back[name]] = value
            continue
        _, l, g, kind = name.split(".")
        if g in ("attn_q", "attn_k"):
            value = unpermute(value, H if g == "attn_q" else KV)
        dequantized["model.layers.%s.%s.%s" % (l, inverse[g], kind)] = value
    captured = {}

    def write_fixture(name, cfg_, tokenizer, saved, dtype, encode, forward, pad_id, extra=None):
        captured.update(forward=forward, encode=encode)

    hf.write_fixture = write_fixture
    # make_llama's W = {name: stored(tensor)}: each tensor is found by value in the fixture's
    # safetensors (the same seeded weights) and replaced by its dequantized value.
    saved_w = read_safetensors(os.path.join(HF, "tiny-llama", "model.safetensors"))

    def stored_by_value(t, dtype):
        for k, v in saved_w.items():
            if tuple(v.shape) == tuple(t.shape) and np.array_equal(v, t.numpy().astype(np.float32)):
                return torch.from_numpy(dequantized[k]).to(torch.float64)
        raise AssertionError("a tensor of make_llama is not in the fixture's safetensors")

    hf.stored = stored_by_value
    hf.make_llama()
    encode, forward = captured["encode"], captured["forward"]
    text = hf.TEXTS[0]
    ids = encode(text)
    with torch.no_grad():
        logits = forward([ids], [len(ids)])["logits"]
    # The first two rows of one quantized matrix as ggml dequantizes them (float64 = float32 here).
    sample = stored["blk.0.attn_v.weight"][:2].reshape(-1).tolist()
    return {"type": qtype, "text": text, "ids": ids, "logits": {"shape": list(logits.shape), "data": hf.flat(logits)},
            "dequantized": {"tensor": "blk.0.attn_v.weight", "values": [repr(v) for v in sample]}}


# ---- K-quants: random blocks and their float64 dequantization (ggml-quants.c) ----
def half_bits(rng, n, scale):
    return [np.float16(v).view(np.uint16) for v in rng.normal(0, scale, n).astype(np.float16)]


def scale_min_k4(j, q):
    if j < 4:
        return q[j] & 63, q[j + 4] & 63
    return (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4)


def q4_k_blocks(rng, n):
    data, y = b"", []
    for _ in range(n):
        d, dmin = half_bits(rng, 2, 0.01)
        scales = rng.integers(0, 256, 12, dtype=np.uint8).tolist()
        qs = rng.integers(0, 256, 128, dtype=np.uint8).tolist()
        data += struct.pack("<HH", d, dmin) + bytes(scales) + bytes(qs)
        df, mf = float(np.uint16(d).view(np.float16)), float(np.uint16(dmin).view(np.float16))
        for j in range(4):
            s1, m1 = scale_min_k4(2 * j, scales)
            s2, m2 = scale_min_k4(2 * j + 1, scales)
            q = qs[32 * j:32 * j + 32]
            y += [df * s1 * (b & 0xF) - mf * m1 for b in q]
            y += [df * s2 * (b >> 4) - mf * m2 for b in q]
    return data, y


def q6_k_blocks(rng, n):
    data, y = b"", []
    for _ in range(n):
        ql = rng.integers(0, 256, 128, dtype=np.uint8).tolist()
        qh = rng.integers(0, 256, 64, dtype=np.uint8).tolist()
        sc = rng.integers(-128, 128, 16, dtype=np.int8).tolist()
        (d,) = half_bits(rng, 1, 0.001)
        data += bytes(ql) + bytes(qh) + struct.pack("<16b", *sc) + struct.pack("<H", d)
        df = float(np.uint16(d).view(np.float16))
        out = [0.0] * 256
        for half in range(2):
            L, Hh, S, Y = ql[64 * half:], qh[32 * half:], sc[8 * half:], 128 * half
            for l in range(32):
                i = l // 16
                q1 = ((L[l] & 0xF) | (((Hh[l] >> 0) & 3) << 4)) - 32
                q2 = ((L[l + 32] & 0xF) | (((Hh[l] >> 2) & 3) << 4)) - 32
                q3 = ((L[l] >> 4) | (((Hh[l] >> 4) & 3) << 4)) - 32
                q4 = ((L[l + 32] >> 4) | (((Hh[l] >> 6) & 3) << 4)) - 32
                out[Y + l] = df * S[i] * q1
                out[Y + l + 32] = df * S[i + 2] * q2
                out[Y + l + 64] = df * S[i + 4] * q3
                out[Y + l + 96] = df * S[i + 6] * q4
        y += out
    return data, y


def make_kquants():
    rng = np.random.default_rng(34)
    q4k, y4 = q4_k_blocks(rng, 2)
    q6k, y6 = q6_k_blocks(rng, 2)
    write_gguf(os.path.join(OUT, "kquants.gguf"), [("general.architecture", T_STRING, "none")],
               [("q4_k", GGML_Q4_K, [512, 1], q4k), ("q6_k", GGML_Q6_K, [256, 2], q6k)])
    with open(os.path.join(OUT, "kquants.json"), "w") as f:
        json.dump({"q4_k": [repr(v) for v in y4], "q6_k": [repr(v) for v in y6]}, f, separators=(",", ":"))


# SmolLM2 as llama.cpp's converter writes it (issue 46): architecture llama, a 'gpt2' tokenizer
# with tokenizer.ggml.pre 'smollm', the tied embeddings as token_embd only; Q8_0 and Q4_0.
def make_smollm():
    for qtype in ("Q8_0", "Q4_0"):
        convert("tiny-smollm", "tiny-smollm-%s.gguf" % qtype.lower(), qtype, pre="smollm")


# EmbeddingGemma as llama.cpp's converter writes it (EmbeddingGemma(Gemma3Model), run with
# --sentence-transformers-dense-modules; issue 46): architecture gemma-embedding, Gemma 3's tensors
# and norms (stored as 1 + w), attention.sliding_window the config.json's own (not the halved
# value transformers computes), pooling_type 1 (mean, from 1_Pooling), and the Dense modules'
# weights as dense_2.weight / dense_3.weight with their dense_*_feat_in/out, written first
# (generate_extra_tensors comes before the model's tensors). llama.cpp fixes the rest: a global
# layer every sixth, no causal rule, the sliding layers' base 10000, scores × head_dim^-½.
def make_embeddinggemma(fixture="tiny-embeddinggemma-6"):
    folder = os.path.join(HF, fixture)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    tok = json.load(open(os.path.join(folder, "tokenizer.json")))
    w = {"model." + k: v for k, v in read_safetensors(os.path.join(folder, "model.safetensors")).items()}
    dense = [read_safetensors(os.path.join(folder, "%d_Dense" % k, "model.safetensors"))["linear.weight"] for k in (2, 3)]
    named = [("dense_2.weight", dense[0]), ("dense_3.weight", dense[1])] + decoder_tensors("gemma3", cfg, w)
    entries = [tensor_entry(name, t)[0] for name, t in named]
    arch, u = "gemma-embedding", T_UINT32
    meta = [("general.architecture", T_STRING, arch), ("general.name", T_STRING, fixture)]
    meta += [m for m in model_metadata("gemma3", {**cfg, "sliding_window_pattern": 6})
             if m[0] != "gemma3.attention.sliding_window_pattern"]  # (the converter writes no pattern)
    meta = [(k.replace("gemma3.", arch + ".", 1), t, v) for k, t, v in meta]
    meta += [("%s.pooling_type" % arch, u, 1),
             ("%s.dense_2_feat_in" % arch, u, dense[0].shape[1]), ("%s.dense_2_feat_out" % arch, u, dense[0].shape[0]),
             ("%s.dense_3_feat_in" % arch, u, dense[1].shape[1]), ("%s.dense_3_feat_out" % arch, u, dense[1].shape[0])]
    meta += tokenizer_metadata(tok, cfg)
    write_gguf(os.path.join(OUT, "%s-f32.gguf" % fixture), meta, entries)


# ModernBERT as llama.cpp's converter writes the base model (ModernBertModel(BertModel), issue 46):
# architecture modern-bert, the backbone's tensors under TensorNameMap's names (Wqkv → attn_qkv,
# Wi → ffn_up, mlp_norm → ffn_norm, embeddings.norm → token_embd_norm, final_norm → output_norm;
# layer 0 has no attn_norm), TextModel's metadata with the global base as rope.freq_base and the
# local one as rope.freq_base_swa, local_attention as attention.sliding_window and
# global_attn_every_n_layers as its pattern. The masked-LM head is not the base model's (left out),
# and neither is the tokenizer: the fixture's WordPiece vocabulary is not one ModernBertModel's
# set_vocab (a GPT-2 BPE) can write, so the file is read by token ids.
def make_modernbert(fixture="tiny-modernbert"):
    folder = os.path.join(HF, fixture)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    w = {k.removeprefix("model."): v for k, v in w.items()}
    names = {"attn_norm": "attn_norm", "attn.Wqkv": "attn_qkv", "attn.Wo": "attn_output", "mlp.Wi": "ffn_up",
             "mlp.Wo": "ffn_down", "mlp_norm": "ffn_norm"}
    named = [("token_embd.weight", w["embeddings.tok_embeddings.weight"]),
             ("token_embd_norm.weight", w["embeddings.norm.weight"])]
    for l in range(cfg["num_hidden_layers"]):
        for hf, g in names.items():
            key = "layers.%d.%s.weight" % (l, hf)
            if key in w:  # layer 0's attn_norm is an Identity: no tensor
                named.append(("blk.%d.%s.weight" % (l, g), w[key]))
    named.append(("output_norm.weight", w["final_norm.weight"]))
    entries = [tensor_entry(name, t)[0] for name, t in named]
    arch, u, f = "modern-bert", T_UINT32, T_FLOAT32
    meta = [("general.architecture", T_STRING, arch), ("general.name", T_STRING, fixture),
            ("%s.context_length" % arch, u, cfg["max_position_embeddings"]),
            ("%s.embedding_length" % arch, u, cfg["hidden_size"]),
            ("%s.feed_forward_length" % arch, u, cfg["intermediate_size"]),
            ("%s.block_count" % arch, u, cfg["num_hidden_layers"]),
            ("%s.attention.head_count" % arch, u, cfg["num_attention_heads"]),
            ("%s.attention.layer_norm_epsilon" % arch, f, cfg["norm_eps"]),
            ("%s.rope.freq_base" % arch, f, cfg["global_rope_theta"]),
            ("%s.rope.freq_base_swa" % arch, f, cfg["local_rope_theta"]),
            ("%s.attention.causal" % arch, T_BOOL, False),
            ("%s.attention.sliding_window" % arch, u, cfg["local_attention"]),
            ("%s.attention.sliding_window_pattern" % arch, u, cfg["global_attn_every_n_layers"]),
            ("%s.rope.scaling.type" % arch, T_STRING, "none"),
            ("%s.vocab_size" % arch, u, cfg["vocab_size"])]
    write_gguf(os.path.join(OUT, "%s-f32.gguf" % fixture), meta, entries)


if __name__ == "__main__":
    import sys
    os.makedirs(OUT, exist_ok=True)
    if sys.argv[1:] == ["tiny-smollm"]:
        make_smollm()
        sys.exit(0)
    if sys.argv[1:] == ["tiny-embeddinggemma-6"]:
        make_embeddinggemma()
        sys.exit(0)
    if sys.argv[1:] == ["tiny-modernbert"]:
        make_modernbert()
        sys.exit(0)
    if sys.argv[1:] == ["tiny-granite"]:  # Granite and OLMo 2 as llama.cpp writes them (issue 46)
        convert("tiny-granite", "tiny-granite-f32.gguf")
        convert("tiny-olmo2", "tiny-olmo2-f32.gguf")
        convert("tiny-smollm3", "tiny-smollm3-f32.gguf", pre="smollm")
        sys.exit(0)
    cfg, _ = convert("tiny-llama", "tiny-llama-f32.gguf", chat_template=CHAT)
    for qtype in ("Q8_0", "Q4_0"):
        cfg, stored = convert("tiny-llama", "tiny-llama-%s.gguf" % qtype.lower(), qtype)
        with open(os.path.join(OUT, "tiny-llama-%s.json" % qtype.lower()), "w") as f:
            json.dump(llama_reference(qtype, cfg, stored), f, separators=(",", ":"))
    convert("tiny-qwen2", "tiny-qwen2-f32.gguf")
    convert("tiny-gpt2", "tiny-gpt2-f32.gguf")
    convert("tiny-gemma2", "tiny-gemma2-f32.gguf")
    # GPT-2 with every layer matrix Q8_0 and float32 embeddings (no tokenizer): loaded with
    # dtype 'q8', the runner keeps the file's blocks, which must be the ones it makes itself
    # from the float model (ggml's quantize_row_q8_0_ref on both sides).
    convert("tiny-gpt2", "tiny-gpt2-q8_0.gguf", "Q8_0", keep=("token_embd.weight", "position_embd.weight"), tokenizer=False)
    make_kquants()
    make_smollm()
    convert("tiny-granite", "tiny-granite-f32.gguf")
    convert("tiny-olmo2", "tiny-olmo2-f32.gguf")
    convert("tiny-smollm3", "tiny-smollm3-f32.gguf", pre="smollm")
    make_embeddinggemma()
    make_modernbert()
