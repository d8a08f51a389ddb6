#!/usr/bin/env python3
"""Makes the tiny pretrained-model fixtures of tests/fixtures/hf/ (issue 21).

Each fixture is a folder in the exact Hugging Face layout (config.json, tokenizer.json,
model.safetensors with the Hub's weight names and shapes) holding small random weights, and
reference.json: outputs of an independent float64 PyTorch forward written here from the
Hugging Face modeling code (modeling_gpt2.py, modeling_bert.py, modeling_distilbert.py), for
a single input and a right-padded batch, plus the token ids of a few texts as the reference
tokenizers below compute them.

Run with Debian's python3-torch (apt-get install python3-torch); CI only reads the output:
    /usr/bin/python3 scripts/make-hf-fixtures.py
"""
import json
import math
import os
import re
import struct

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "hf")
F64 = torch.float64


# ---- safetensors, written by hand (the format: u64 header length, JSON header, raw data) ----
def save_safetensors(path, tensors, dtype="F32", metadata=None):
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        t = t.contiguous()
        if dtype == "F16":
            data = t.to(torch.float16).numpy().tobytes()
        elif dtype == "BF16":
            data = t.to(torch.bfloat16).view(torch.int16).numpy().tobytes()
        else:
            data = t.to(torch.float32).numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def stored(t, dtype):
    """The float64 value of t as the checkpoint stores it (rounded to its dtype)."""
    if dtype == "F16":
        return t.to(torch.float16).to(F64)
    if dtype == "BF16":
        return t.to(torch.bfloat16).to(F64)
    return t.to(torch.float32).to(F64)


def rand(gen, *shape, std=0.2):
    return torch.randn(*shape, generator=gen, dtype=torch.float32) * std


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w + b


def gelu(x):  # ACT2FN["gelu"]: the exact erf form
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gelu_new(x):  # ACT2FN["gelu_new"], GPT-2
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def attention(q, k, v, heads, causal, lengths):
    """q, k, v: [B, T, d] → (out [B, T, d], probs [B, H, T, T]); HF's masked_fill/finfo.min
    masking: blocked scores become the dtype's minimum, so exp gives exactly 0."""
    B, T, d = q.shape
    hd = d // heads
    split = lambda x: x.view(B, T, heads, hd).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(-1, -2) / math.sqrt(hd)
    allowed = torch.ones(B, 1, T, T, dtype=torch.bool)
    for b in range(B):
        allowed[b, :, :, lengths[b]:] = False
    if causal:
        allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1)
    out = (probs @ v).transpose(1, 2).reshape(B, T, d)
    return out, probs


def bert_encoder_weights(lin, ln, L, d, f):
    """BERT's (and RoBERTa's) encoder layers, in modeling_bert.py's names and order."""
    for l in range(L):
        p = "encoder.layer.%d." % l
        for n in ["query", "key", "value"]:
            lin(p + "attention.self." + n, d, d)
        lin(p + "attention.output.dense", d, d)
        ln(p + "attention.output.LayerNorm")
        lin(p + "intermediate.dense", d, f)
        lin(p + "output.dense", f, d)
        ln(p + "output.LayerNorm")


def post_norm_block(x, Lin, LN, H, lengths, names):
    """BERT's and DistilBERT's block: x = LN(x + Attn(x)); x = LN(x + FFN(x)), GELU (erf).
    names: the q, k, v, output projections, the first norm, the FFN's two layers, the second norm."""
    q_name, k_name, v_name, o_name, norm1, up, down, norm2 = names
    o, probs = attention(Lin(x, q_name), Lin(x, k_name), Lin(x, v_name), H, False, lengths)
    x = LN(Lin(o, o_name) + x, norm1)
    x = LN(Lin(gelu(Lin(x, up)), down) + x, norm2)
    return x, probs


# ---- reference tokenizers (for the expected ids of the fixtures' tokenizer.json) ----
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs))), bs


GPT2_SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def bpe_words(text):
    byte_map, _ = bytes_to_unicode()
    return ["".join(byte_map[b] for b in piece.encode()) for piece in GPT2_SPLIT.findall(text)]


def bpe_encode_word(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        pairs = [(ranks.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
        rank, i = min(pairs)
        if rank == 1 << 30:
            break
        parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2:]
    return parts


def merge_pair(words, best):
    """Every word (a tuple of symbols → its count) with the pair `best` merged."""
    merged = {}
    for w, n in words.items():
        out, i = [], 0
        while i < len(w):
            if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                out.append(w[i] + w[i + 1])
                i += 2
            else:
                out.append(w[i])
                i += 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + n
    return merged


def train_bpe(corpus, merges_wanted, split=bpe_words):
    words = {}
    for line in corpus:
        for w in split(line):
            words[tuple(w)] = words.get(tuple(w), 0) + 1
    merges = []
    for _ in range(merges_wanted):
        counts = {}
        for w, n in words.items():
            for pair in zip(w, w[1:]):
                counts[pair] = counts.get(pair, 0) + n
        if not counts:
            break
        best = max(sorted(counts), key=lambda p: counts[p])
        merges.append(best)
        words = merge_pair(words, best)
    return merges


def gpt2_tokenizer(corpus, merges_wanted, specials=None, split=bpe_words):
    """GPT-2's byte-level BPE; with `specials` (RoBERTa: <s> <pad> </s> <unk> first), those
    lead the vocabulary and the post-processor wraps a text in <s> … </s>."""
    byte_map, order = bytes_to_unicode()
    vocab = {t: i for i, t in enumerate(specials or [])}
    for b in order:
        vocab[byte_map[b]] = len(vocab)
    merges = train_bpe(corpus, merges_wanted, split)
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    eos = len(vocab)
    added = [(eos, "<|endoftext|>")] if not specials else [(vocab[t], t) for t in specials]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": not specials, "special": True} for i, t in added],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [a + " " + b for a, b in merges]},
    }
    if specials:
        tokenizer["post_processor"] = {"type": "RobertaProcessing", "sep": ["</s>", vocab["</s>"]], "cls": ["<s>", vocab["<s>"]],
                                       "trim_offsets": True, "add_prefix_space": False}
    ranks = {m: i for i, m in enumerate(merges)}

    def encode(text):
        ids = [vocab[p] for w in bpe_words(text) for p in bpe_encode_word(w, ranks)]
        return [vocab["<s>"]] + ids + [vocab["</s>"]] if specials else ids

    return tokenizer, encode, eos


BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def bert_basic_split(text):
    return re.findall(r"[a-z0-9]+|[^\sa-z0-9]", text.lower())


def bert_tokenizer(words, pieces):
    vocab = {t: i for i, t in enumerate(BERT_SPECIALS)}
    for t in words + ["##" + p for p in pieces]:
        vocab.setdefault(t, len(vocab))
    special = lambda t: {"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                         "normalized": False, "special": True}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [special(t) for t in BERT_SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]} for t in ["[CLS]", "[SEP]"]},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }

    def encode(text):
        ids = [vocab["[CLS]"]]
        for word in bert_basic_split(text):
            start, out = 0, []
            while start < len(word):
                end, found = len(word), None
                while start < end:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    if piece in vocab:
                        found = piece
                        break
                    end -= 1
                if found is None:
                    out = ["[UNK]"]
                    break
                out.append(found)
                start = end
            ids += [vocab[p] for p in out]
        return ids + [vocab["[SEP]"]]

    return tokenizer, encode, vocab


CORPUS = [
    "The cat sat on the mat.", "The dog sat on the log.", "A film about attention and transformers.",
    "Attention is all you need.", "The movie was not bad at all!", "I would watch it again, twice.",
    "Queries, keys and values: the heads attend to the tokens.",
]
WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "log", "film", "movie", "was", "not", "bad", "at",
         "all", "good", "great", "i", "would", "watch", "it", "again", "attention", "is", "you", "need",
         "head", "heads", "token", "query", "key", "value", ".", ",", "!", "?", ":", "'", "un", "trans"]
PIECES = ["s", "ed", "ing", "er", "form", "ly", "able", "e", "t", "n"]
TEXTS = ["The cat sat on the mat.", "Attention is all you need!", "Transformers attend, unbelievably."]


SP_SPECIALS = ["<unk>", "<s>", "</s>"]


def sentencepiece_bpe_tokenizer(corpus, merges_wanted):
    """A SentencePiece-style BPE (Llama/TinyLlama's tokenizer.json): spaces become '▁', a '▁'
    is prepended, BPE over the whole text, characters outside the vocabulary fall back to
    their UTF-8 bytes as <0xNN> tokens."""
    vocab = {t: i for i, t in enumerate(SP_SPECIALS)}
    for b in range(256):
        vocab["<0x%02X>" % b] = len(vocab)
    norm = lambda text: "\u2581" + text.replace(" ", "\u2581")
    words = {}
    for line in corpus:
        w = tuple(norm(line))
        words[w] = words.get(w, 0) + 1
    chars = sorted({c for w in words for c in w})
    for c in chars:
        vocab.setdefault(c, len(vocab))
    merges = []
    for _ in range(merges_wanted):
        counts = {}
        for w, n in words.items():
            for pair in zip(w, w[1:]):
                counts[pair] = counts.get(pair, 0) + n
        best = max(sorted(counts), key=lambda p: counts[p])
        merges.append(best)
        vocab.setdefault(best[0] + best[1], len(vocab))
        words = merge_pair(words, best)
    special = lambda t: {"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                         "normalized": False, "special": True}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [special(t) for t in SP_SPECIALS],
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
                                                           {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                                                     {"type": "ByteFallback"}, {"type": "Fuse"},
                                                     {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [a + " " + b for a, b in merges]},
    }
    ranks = {m: i for i, m in enumerate(merges)}

    def encode(text):
        parts = list(norm(text))
        while len(parts) > 1:
            pairs = [(ranks.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
            rank, i = min(pairs)
            if rank == 1 << 30:
                break
            parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2:]
        ids = [vocab["<s>"]]
        for p in parts:
            if p in vocab:
                ids.append(vocab[p])
            else:
                ids += [vocab["<0x%02X>" % b] for b in p.encode()]
        return ids

    return tokenizer, encode, vocab


def rms_norm(x, w, eps):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


# ---- Llama (modeling_llama.py: LlamaForCausalLM): RMSNorm, SwiGLU, RoPE, grouped-query heads ----
# Mistral (modeling_mistral.py: MistralForCausalLM) is the same model with a sliding window:
# masking_utils' sliding_window_overlay lets query i see key j only when j > i - sliding_window.
def llama_inv_freq(theta, hd, scaling):
    """modeling_rope_utils.py: the default frequencies, 'linear' (÷ factor) or 'llama3'
    (_compute_llama3_parameters: low frequencies ÷ factor, high kept, a blend between)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=F64) / hd))
    if scaling is None:
        return inv_freq
    if scaling["rope_type"] == "linear":
        return inv_freq / scaling["factor"]
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old = scaling["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, scaled)


# SmolLM/SmolLM2's tokenizer.json (issue 46): GPT-2's byte-level BPE with Digits
# (individual_digits) before ByteLevel, so that every digit is its own piece; trained on a corpus
# with numbers, which GPT-2's split would merge. bos = eos = <|endoftext|>, as in SmolLM.
SMOLLM_CORPUS = CORPUS + ["In 2026 there were 12345 tokens, 678 heads and 90 layers.", "Call 555 0199 or 2026."]


def smollm_tokenizer(corpus, merges_wanted):
    digits = lambda text: [p for p in re.split(r"([0-9])", text) if p]
    words = lambda text: [w for p in digits(text) for w in bpe_words(p)]
    tokenizer, _, eos = gpt2_tokenizer(corpus, merges_wanted, split=words)
    tokenizer["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]}
    vocab = tokenizer["model"]["vocab"]
    ranks = {tuple(m.split(" ")): i for i, m in enumerate(tokenizer["model"]["merges"])}
    return tokenizer, lambda text: [vocab[t] for w in words(text) for t in bpe_encode_word(w, ranks)], eos


def make_llama(name="tiny-llama", sliding_window=None, seed=24, rope_scaling=None, dtype="F32", smollm=False):
    gen = torch.Generator().manual_seed(seed)
    if smollm:
        tokenizer, encode, eos = smollm_tokenizer(SMOLLM_CORPUS, 80)
        vocab = range(eos + 1)
    else:
        tokenizer, encode, vocab = sentencepiece_bpe_tokenizer(CORPUS, 60)
    V, d, L, H, KV, f, eps, theta = len(vocab), 32, 2, 4, 2, 48, 1e-6, 10000.0
    hd = d // H
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "hidden_act": "silu", "max_position_embeddings": 64, "rms_norm_eps": eps, "rope_theta": theta,
           "rope_scaling": rope_scaling, "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": False,
           "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32"}
    if sliding_window is not None:  # MistralConfig's keys (no attention_bias / mlp_bias)
        cfg = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "vocab_size": V, "hidden_size": d,
               "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
               "head_dim": hd, "hidden_act": "silu", "max_position_embeddings": 64, "rms_norm_eps": eps,
               "rope_theta": theta, "sliding_window": sliding_window, "tie_word_embeddings": False,
               "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32"}
    w = {"model.embed_tokens.weight": rand(gen, V, d)}
    for l in range(L):
        p = "model.layers.%d." % l
        w[p + "self_attn.q_proj.weight"] = rand(gen, d, d)
        w[p + "self_attn.k_proj.weight"] = rand(gen, KV * hd, d)
        w[p + "self_attn.v_proj.weight"] = rand(gen, KV * hd, d)
        w[p + "self_attn.o_proj.weight"] = rand(gen, d, d)
        w[p + "mlp.gate_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.up_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.down_proj.weight"] = rand(gen, d, f)
        w[p + "input_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "post_attention_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
    w["model.norm.weight"] = 1 + rand(gen, d, std=0.1)
    w["lm_head.weight"] = rand(gen, V, d)
    if smollm:  # SmolLM ties its LM head to the embeddings
        cfg.update({"tie_word_embeddings": True, "bos_token_id": eos, "eos_token_id": eos})
        w["lm_head.weight"] = w["model.embed_tokens.weight"]
    if dtype == "BF16":  # as bfloat16 checkpoints are saved (torch's own rounding)
        cfg["torch_dtype"] = "bfloat16"
    W = {k: stored(v, dtype) for k, v in w.items()}
    inv_freq = llama_inv_freq(theta, hd, rope_scaling)

    def forward(ids, lengths, inv_freq=inv_freq):
        ids = torch.tensor(ids)
        B, T = ids.shape
        x = W["model.embed_tokens.weight"][ids]
        angles = torch.arange(T, dtype=F64)[:, None] * inv_freq[None]
        emb = torch.cat((angles, angles), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        hidden, attns = [x], []
        for l in range(L):
            p = "model.layers.%d." % l
            a = rms_norm(x, W[p + "input_layernorm.weight"], eps)
            q = (a @ W[p + "self_attn.q_proj.weight"].T).view(B, T, H, hd).transpose(1, 2)
            k = (a @ W[p + "self_attn.k_proj.weight"].T).view(B, T, KV, hd).transpose(1, 2)
            v = (a @ W[p + "self_attn.v_proj.weight"].T).view(B, T, KV, hd).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            k = k.repeat_interleave(H // KV, dim=1)  # repeat_kv
            v = v.repeat_interleave(H // KV, dim=1)
            scores = q @ k.transpose(-1, -2) / math.sqrt(hd)
            allowed = torch.tril(torch.ones(T, T, dtype=torch.bool))[None, None].repeat(B, 1, 1, 1)
            if sliding_window is not None:
                i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
                allowed = allowed & (j > i - sliding_window)[None, None]
            for b in range(B):
                allowed[b, :, :, lengths[b]:] = False
            scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
            probs = torch.softmax(scores, dim=-1)
            o = (probs @ v).transpose(1, 2).reshape(B, T, d)
            x = x + o @ W[p + "self_attn.o_proj.weight"].T
            m = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
            g = m @ W[p + "mlp.gate_proj.weight"].T
            m = (g * torch.sigmoid(g) * (m @ W[p + "mlp.up_proj.weight"].T)) @ W[p + "mlp.down_proj.weight"].T
            x = x + m
            attns.append(probs)
            hidden.append(x)
        x = rms_norm(x, W["model.norm.weight"], eps)
        hidden[-1] = x
        return {"logits": x @ W["lm_head.weight"].T, "hidden": hidden, "attn": attns}

    def greedy(ids, steps):
        ids = list(ids)
        for _ in range(steps):
            logits = forward([ids], [len(ids)])["logits"][0, -1]
            ids.append(int(torch.argmax(logits)))
        return ids

    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy(encode(TEXTS[0]), 12)}}
    if smollm:
        extra["digits"] = {text: encode(text) for text in SMOLLM_CORPUS[-2:]}
        del w["lm_head.weight"]  # tied: not saved
    else:
        extra["byte_fallback"] = {text: encode(text) for text in ["Café ☕ naïve", "The cat sat on the mat."]}
    if rope_scaling is not None:  # the same weights with 'linear' scaling too: its logits for TEXTS[0]
        linear = {"rope_type": "linear", "factor": 2.0}
        ids = [encode(TEXTS[0])]
        with torch.no_grad():
            logits = forward(ids, [len(ids[0])], llama_inv_freq(theta, hd, linear))["logits"]
        extra["linear"] = {"rope_scaling": linear, "text": TEXTS[0], "logits": {"shape": list(logits.shape), "data": flat(logits)}}
    write_fixture(name, cfg, tokenizer, w, dtype, encode, forward, pad_id=cfg["eos_token_id"], extra=extra)


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=1 if path.endswith("config.json") else None, separators=None if path.endswith("config.json") else (",", ":"))
        f.write("\n")


def flat(t):
    return [float("%.9g" % v) for v in t.reshape(-1).tolist()]


def pad_batch(seqs, pad_id):
    T = max(map(len, seqs))
    return [s + [pad_id] * (T - len(s)) for s in seqs], [len(s) for s in seqs]


# ---- GPT-2 (modeling_gpt2.py: GPT2LMHeadModel) ----
def make_gpt2(name="tiny-gpt2"):
    gen = torch.Generator().manual_seed(21)
    tokenizer, encode, eos = gpt2_tokenizer(CORPUS, 48)
    V = len(tokenizer["model"]["vocab"]) + 1
    cfg = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": V, "n_positions": 32,
           "n_embd": 32, "n_layer": 2, "n_head": 4, "n_inner": None, "activation_function": "gelu_new",
           "layer_norm_epsilon": 1e-5, "bos_token_id": eos, "eos_token_id": eos, "tie_word_embeddings": True,
           "scale_attn_weights": True, "torch_dtype": "float32"}
    d, L, H, P = 32, 2, 4, 32
    f = 4 * d
    w = {"wte.weight": rand(gen, V, d), "wpe.weight": rand(gen, P, d, std=0.05)}
    for l in range(L):
        p = "h.%d." % l
        w[p + "ln_1.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "ln_1.bias"] = rand(gen, d, std=0.1)
        w[p + "attn.c_attn.weight"] = rand(gen, d, 3 * d)  # Conv1D: [in, out]
        w[p + "attn.c_attn.bias"] = rand(gen, 3 * d, std=0.05)
        w[p + "attn.c_proj.weight"] = rand(gen, d, d)
        w[p + "attn.c_proj.bias"] = rand(gen, d, std=0.05)
        w[p + "ln_2.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "ln_2.bias"] = rand(gen, d, std=0.1)
        w[p + "mlp.c_fc.weight"] = rand(gen, d, f)
        w[p + "mlp.c_fc.bias"] = rand(gen, f, std=0.05)
        w[p + "mlp.c_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.c_proj.bias"] = rand(gen, d, std=0.05)
    w["ln_f.weight"] = 1 + rand(gen, d, std=0.1)
    w["ln_f.bias"] = rand(gen, d, std=0.1)
    saved = {"transformer." + k: v for k, v in w.items()}  # as GPT2LMHeadModel saves (lm_head tied: absent)
    W = {k: stored(v, "F32") for k, v in w.items()}

    def forward(ids, lengths):
        ids = torch.tensor(ids)
        B, T = ids.shape
        x = W["wte.weight"][ids] + W["wpe.weight"][torch.arange(T)][None]
        hidden, attns = [x], []
        for l in range(L):
            p = "h.%d." % l
            a = layer_norm(x, W[p + "ln_1.weight"], W[p + "ln_1.bias"], 1e-5)
            qkv = a @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]
            q, k, v = qkv.split(d, dim=2)
            o, probs = attention(q, k, v, H, True, lengths)
            x = x + o @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
            m = layer_norm(x, W[p + "ln_2.weight"], W[p + "ln_2.bias"], 1e-5)
            m = gelu_new(m @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"])
            x = x + m @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
            attns.append(probs)
            hidden.append(x)
        x = layer_norm(x, W["ln_f.weight"], W["ln_f.bias"], 1e-5)
        hidden[-1] = x  # HF reports the last hidden state after ln_f
        return {"logits": x @ W["wte.weight"].T, "hidden": hidden, "attn": attns}

    ids = encode(TEXTS[0])
    for _ in range(12):
        ids.append(int(torch.argmax(forward([ids], [len(ids)])["logits"][0, -1])))
    extra = {"greedy": {"prompt": TEXTS[0], "ids": ids}}
    write_fixture(name, cfg, tokenizer, saved, "F32", encode, forward, pad_id=eos, extra=extra)


# ---- BERT (modeling_bert.py: BertForMaskedLM) ----
def make_bert(name="tiny-bert"):
    gen = torch.Generator().manual_seed(22)
    tokenizer, encode, vocab = bert_tokenizer(WORDS, PIECES)
    V, d, L, H, P, f, eps = len(vocab), 32, 2, 4, 40, 64, 1e-12
    cfg = {"architectures": ["BertForMaskedLM"], "model_type": "bert", "vocab_size": V, "hidden_size": d,
           "num_hidden_layers": L, "num_attention_heads": H, "intermediate_size": f, "hidden_act": "gelu",
           "max_position_embeddings": P, "type_vocab_size": 2, "layer_norm_eps": eps, "pad_token_id": 0,
           "position_embedding_type": "absolute", "torch_dtype": "float32"}
    w = {"embeddings.word_embeddings.weight": rand(gen, V, d), "embeddings.position_embeddings.weight": rand(gen, P, d, std=0.05),
         "embeddings.token_type_embeddings.weight": rand(gen, 2, d, std=0.05),
         "embeddings.LayerNorm.weight": 1 + rand(gen, d, std=0.1), "embeddings.LayerNorm.bias": rand(gen, d, std=0.1)}
    lin = lambda p, i, o: w.update({p + ".weight": rand(gen, o, i), p + ".bias": rand(gen, o, std=0.05)})  # nn.Linear [out, in]
    ln = lambda p: w.update({p + ".weight": 1 + rand(gen, d, std=0.1), p + ".bias": rand(gen, d, std=0.1)})
    bert_encoder_weights(lin, ln, L, d, f)
    lin("pooler.dense", d, d)
    saved = {"bert." + k: v for k, v in w.items()}
    head = {}
    lin2 = lambda p, i, o: head.update({p + ".weight": rand(gen, o, i), p + ".bias": rand(gen, o, std=0.05)})
    lin2("cls.predictions.transform.dense", d, d)
    head["cls.predictions.transform.LayerNorm.weight"] = 1 + rand(gen, d, std=0.1)
    head["cls.predictions.transform.LayerNorm.bias"] = rand(gen, d, std=0.1)
    head["cls.predictions.bias"] = rand(gen, V, std=0.05)
    saved.update(head)
    W = {k: stored(v, "F32") for k, v in saved.items()}
    Lin = lambda x, p: x @ W[p + ".weight"].T + W[p + ".bias"]
    LN = lambda x, p: layer_norm(x, W[p + ".weight"], W[p + ".bias"], eps)

    def forward(ids, lengths):
        ids = torch.tensor(ids)
        B, T = ids.shape
        e = "bert.embeddings."
        x = W[e + "word_embeddings.weight"][ids] + W[e + "position_embeddings.weight"][torch.arange(T)][None] + \
            W[e + "token_type_embeddings.weight"][0]
        x = LN(x, e + "LayerNorm")
        hidden, attns = [x], []
        for l in range(L):
            p = "bert.encoder.layer.%d." % l
            names = [p + n for n in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                                     "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"]]
            x, probs = post_norm_block(x, Lin, LN, H, lengths, names)
            attns.append(probs)
            hidden.append(x)
        t = LN(gelu(Lin(x, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm")
        logits = t @ W[e + "word_embeddings.weight"].T + W["cls.predictions.bias"]
        return {"logits": logits, "hidden": hidden, "attn": attns}

    write_fixture(name, cfg, tokenizer, saved, "F32", encode, forward, pad_id=0)


# ---- DistilBERT (modeling_distilbert.py: DistilBertForSequenceClassification), float16 ----
# ---- RoBERTa (modeling_roberta.py: RobertaForSequenceClassification) ----
def make_roberta(name="tiny-roberta"):
    gen = torch.Generator().manual_seed(25)
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    tokenizer, encode, _ = gpt2_tokenizer(CORPUS, 48, specials)
    V, d, L, H, P, f, eps, pad = len(tokenizer["model"]["vocab"]), 32, 2, 4, 42, 64, 1e-5, 1
    cfg = {"architectures": ["RobertaForSequenceClassification"], "model_type": "roberta", "vocab_size": V, "hidden_size": d,
           "num_hidden_layers": L, "num_attention_heads": H, "intermediate_size": f, "hidden_act": "gelu",
           "max_position_embeddings": P, "type_vocab_size": 1, "layer_norm_eps": eps, "pad_token_id": pad,
           "bos_token_id": 0, "eos_token_id": 2, "position_embedding_type": "absolute",
           "id2label": {"0": "negative", "1": "neutral", "2": "positive"}, "torch_dtype": "float32"}
    w = {"embeddings.word_embeddings.weight": rand(gen, V, d), "embeddings.position_embeddings.weight": rand(gen, P, d, std=0.05),
         "embeddings.token_type_embeddings.weight": rand(gen, 1, d, std=0.05),
         "embeddings.LayerNorm.weight": 1 + rand(gen, d, std=0.1), "embeddings.LayerNorm.bias": rand(gen, d, std=0.1)}
    lin = lambda p, i, o: w.update({p + ".weight": rand(gen, o, i), p + ".bias": rand(gen, o, std=0.05)})
    ln = lambda p: w.update({p + ".weight": 1 + rand(gen, d, std=0.1), p + ".bias": rand(gen, d, std=0.1)})
    bert_encoder_weights(lin, ln, L, d, f)
    saved = {"roberta." + k: v for k, v in w.items()}
    saved["classifier.dense.weight"], saved["classifier.dense.bias"] = rand(gen, d, d), rand(gen, d, std=0.05)
    saved["classifier.out_proj.weight"], saved["classifier.out_proj.bias"] = rand(gen, 3, d), rand(gen, 3, std=0.05)
    W = {k: stored(v, "F32") for k, v in saved.items()}
    Lin = lambda x, p: x @ W[p + ".weight"].T + W[p + ".bias"]
    LN = lambda x, p: layer_norm(x, W[p + ".weight"], W[p + ".bias"], eps)

    def forward(ids, lengths):
        ids = torch.tensor(ids)
        # create_position_ids_from_input_ids: real tokens count from padding_idx + 1, padding sits at padding_idx.
        mask = (ids != pad).long()
        positions = torch.cumsum(mask, dim=1) * mask + pad
        e = "roberta.embeddings."
        x = W[e + "word_embeddings.weight"][ids] + W[e + "position_embeddings.weight"][positions] + W[e + "token_type_embeddings.weight"][0]
        x = LN(x, e + "LayerNorm")
        hidden, attns = [x], []
        for l in range(L):
            p = "roberta.encoder.layer.%d." % l
            names = [p + n for n in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                                     "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"]]
            x, probs = post_norm_block(x, Lin, LN, H, lengths, names)
            attns.append(probs)
            hidden.append(x)
        pooled = torch.tanh(Lin(x[:, 0], "classifier.dense"))
        return {"logits": Lin(pooled, "classifier.out_proj"), "hidden": hidden, "attn": attns}

    write_fixture(name, cfg, tokenizer, saved, "F32", encode, forward, pad_id=pad)


def make_distilbert(name="tiny-distilbert-f16"):
    gen = torch.Generator().manual_seed(23)
    tokenizer, encode, vocab = bert_tokenizer(WORDS, PIECES)
    V, d, L, H, P, f, eps = len(vocab), 32, 2, 4, 40, 64, 1e-12
    cfg = {"architectures": ["DistilBertForSequenceClassification"], "model_type": "distilbert", "vocab_size": V,
           "dim": d, "n_layers": L, "n_heads": H, "hidden_dim": f, "activation": "gelu", "max_position_embeddings": P,
           "sinusoidal_pos_embds": False, "pad_token_id": 0, "id2label": {"0": "NEGATIVE", "1": "POSITIVE"},
           "label2id": {"NEGATIVE": 0, "POSITIVE": 1}, "torch_dtype": "float16"}
    w = {"embeddings.word_embeddings.weight": rand(gen, V, d), "embeddings.position_embeddings.weight": rand(gen, P, d, std=0.05),
         "embeddings.LayerNorm.weight": 1 + rand(gen, d, std=0.1), "embeddings.LayerNorm.bias": rand(gen, d, std=0.1)}
    lin = lambda p, i, o: w.update({p + ".weight": rand(gen, o, i), p + ".bias": rand(gen, o, std=0.05)})
    ln = lambda p: w.update({p + ".weight": 1 + rand(gen, d, std=0.1), p + ".bias": rand(gen, d, std=0.1)})
    for l in range(L):
        p = "transformer.layer.%d." % l
        for n in ["q_lin", "k_lin", "v_lin", "out_lin"]:
            lin(p + "attention." + n, d, d)
        ln(p + "sa_layer_norm")
        lin(p + "ffn.lin1", d, f)
        lin(p + "ffn.lin2", f, d)
        ln(p + "output_layer_norm")
    saved = {"distilbert." + k: v for k, v in w.items()}
    saved["pre_classifier.weight"], saved["pre_classifier.bias"] = rand(gen, d, d), rand(gen, d, std=0.05)
    saved["classifier.weight"], saved["classifier.bias"] = rand(gen, 2, d), rand(gen, 2, std=0.05)
    W = {k: stored(v, "F16") for k, v in saved.items()}
    Lin = lambda x, p: x @ W[p + ".weight"].T + W[p + ".bias"]
    LN = lambda x, p: layer_norm(x, W[p + ".weight"], W[p + ".bias"], eps)

    def forward(ids, lengths):
        ids = torch.tensor(ids)
        B, T = ids.shape
        e = "distilbert.embeddings."
        x = LN(W[e + "word_embeddings.weight"][ids] + W[e + "position_embeddings.weight"][torch.arange(T)][None], e + "LayerNorm")
        hidden, attns = [x], []
        for l in range(L):
            p = "distilbert.transformer.layer.%d." % l
            names = [p + n for n in ["attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                                     "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm"]]
            x, probs = post_norm_block(x, Lin, LN, H, lengths, names)
            attns.append(probs)
            hidden.append(x)
        pooled = torch.relu(Lin(x[:, 0], "pre_classifier"))
        return {"logits": Lin(pooled, "classifier"), "hidden": hidden, "attn": attns}

    write_fixture(name, cfg, tokenizer, saved, "F16", encode, forward, pad_id=0)


# ---- sentence-transformers embedders (issue 33): a BertModel, then Pooling, then Normalize ----
# A folder as sentence-transformers saves one (all-MiniLM-L6-v2, bge-small-en-v1.5): the
# BertModel at the root, modules.json, 1_Pooling/config.json, sentence_bert_config.json.
# The reference follows sentence_transformers/models/Transformer.py (strip, lowercase when
# do_lower_case, truncate to max_seq_length keeping [CLS] … [SEP]), Pooling.py's forward and
# Normalize.py (F.normalize: x / max(‖x‖₂, 1e-12)), in float64.
ST_MODES = ["cls", "max", "mean", "mean_sqrt_len_tokens", "weightedmean", "lasttoken"]  # Pooling.forward's order
ST_KEYS = {"cls": "pooling_mode_cls_token", "max": "pooling_mode_max_tokens", "mean": "pooling_mode_mean_tokens",
           "mean_sqrt_len_tokens": "pooling_mode_mean_sqrt_len_tokens",
           "weightedmean": "pooling_mode_weightedmean_tokens", "lasttoken": "pooling_mode_lasttoken"}


def st_pool(hidden, mask, modes):
    """Pooling.forward: hidden [B, T, d], mask [B, T] (1: a real token) → [B, len(modes)·d],
    the modes concatenated in ST_MODES order."""
    m = mask.unsqueeze(-1).to(hidden.dtype)  # [B, T, 1]
    out = []
    if "cls" in modes:
        out.append(hidden[:, 0])
    if "max" in modes:
        out.append(torch.where(m == 0, torch.full_like(hidden, -1e9), hidden).max(1)[0])
    if "mean" in modes or "mean_sqrt_len_tokens" in modes:
        total = (hidden * m).sum(1)
        count = torch.clamp(m.sum(1), min=1e-9)
        if "mean" in modes:
            out.append(total / count)
        if "mean_sqrt_len_tokens" in modes:
            out.append(total / torch.sqrt(count))
    if "weightedmean" in modes:
        w = m * torch.arange(1, hidden.shape[1] + 1, dtype=hidden.dtype)[None, :, None]  # position t weighs t + 1
        out.append((hidden * w).sum(1) / torch.clamp(w.sum(1), min=1e-9))
    if "lasttoken" in modes:
        values, indices = mask.flip(1).max(1)
        indices = torch.where(values == 0, hidden.shape[1] - 1, indices)
        last = hidden.shape[1] - indices - 1
        out.append((hidden * m)[torch.arange(hidden.shape[0]), last])
    return torch.cat(out, 1)


def st_normalize(x):
    """Normalize.forward: F.normalize(x, p=2, dim=1)."""
    return x / torch.clamp(x.norm(dim=1, keepdim=True), min=1e-12)


def make_bert_embedder(name, seed, modes, max_seq_length, do_lower_case=False):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, vocab = bert_tokenizer(WORDS, PIECES)
    V, d, L, H, P, f, eps = len(vocab), 32, 2, 4, 40, 64, 1e-12
    cfg = {"architectures": ["BertModel"], "model_type": "bert", "vocab_size": V, "hidden_size": d,
           "num_hidden_layers": L, "num_attention_heads": H, "intermediate_size": f, "hidden_act": "gelu",
           "max_position_embeddings": P, "type_vocab_size": 2, "layer_norm_eps": eps, "pad_token_id": 0,
           "position_embedding_type": "absolute", "torch_dtype": "float32"}
    w = {"embeddings.word_embeddings.weight": rand(gen, V, d), "embeddings.position_embeddings.weight": rand(gen, P, d, std=0.05),
         "embeddings.token_type_embeddings.weight": rand(gen, 2, d, std=0.05),
         "embeddings.LayerNorm.weight": 1 + rand(gen, d, std=0.1), "embeddings.LayerNorm.bias": rand(gen, d, std=0.1)}
    lin = lambda p, i, o: w.update({p + ".weight": rand(gen, o, i), p + ".bias": rand(gen, o, std=0.05)})
    ln = lambda p: w.update({p + ".weight": 1 + rand(gen, d, std=0.1), p + ".bias": rand(gen, d, std=0.1)})
    bert_encoder_weights(lin, ln, L, d, f)
    lin("pooler.dense", d, d)  # BertModel saves its pooler; sentence-transformers does not use it
    W = {k: stored(v, "F32") for k, v in w.items()}
    Lin = lambda x, p: x @ W[p + ".weight"].T + W[p + ".bias"]
    LN = lambda x, p: layer_norm(x, W[p + ".weight"], W[p + ".bias"], eps)

    def last_hidden(ids, lengths):  # BertModel's last_hidden_state: [B, T, d]
        ids = torch.tensor(ids)
        T = ids.shape[1]
        e = "embeddings."
        x = W[e + "word_embeddings.weight"][ids] + W[e + "position_embeddings.weight"][torch.arange(T)][None] + \
            W[e + "token_type_embeddings.weight"][0]
        x = LN(x, e + "LayerNorm")
        for l in range(L):
            p = "encoder.layer.%d." % l
            names = [p + n for n in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                                     "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"]]
            x, _ = post_norm_block(x, Lin, LN, H, lengths, names)
        return x

    def tokens(text):  # Transformer.tokenize, then truncation="longest_first" at max_seq_length
        text = text.strip()
        if do_lower_case:
            text = text.lower()
        ids = encode(text)
        if len(ids) > max_seq_length:
            ids = ids[:1] + ids[1:-1][:max_seq_length - 2] + ids[-1:]
        return ids

    def pooled(texts, pooling_modes):  # → [B, len(modes)·d] before Normalize, and the padded ids
        ids, lengths = pad_batch([tokens(t) for t in texts], 0)
        mask = torch.tensor([[1 if t < n else 0 for t in range(len(ids[0]))] for n in lengths])
        with torch.no_grad():
            return st_pool(last_hidden(ids, lengths), mask, pooling_modes), ids, lengths

    folder = os.path.join(OUT, name)
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    write_json(os.path.join(folder, "config.json"), cfg)
    write_json(os.path.join(folder, "tokenizer.json"), tokenizer)
    write_json(os.path.join(folder, "tokenizer_config.json"), {"model_max_length": P, "do_lower_case": True,
                                                               "clean_up_tokenization_spaces": False})
    save_safetensors(os.path.join(folder, "model.safetensors"), w, "F32", {"format": "pt"})
    write_json(os.path.join(folder, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
    pooling = {"word_embedding_dimension": d, **{ST_KEYS[m]: m in modes for m in ST_MODES}, "include_prompt": True}
    write_json(os.path.join(folder, "1_Pooling", "config.json"), pooling)
    write_json(os.path.join(folder, "sentence_bert_config.json"), {"max_seq_length": max_seq_length, "do_lower_case": do_lower_case})
    tensor = lambda t: {"shape": list(t.shape), "data": flat(t)}
    batch, ids, lengths = pooled(TEXTS, modes)
    reference = {
        "modes": modes, "max_seq_length": max_seq_length,
        "tokens": {t: tokens(t) for t in TEXTS},
        # Each text alone, then the three as one right-padded batch.
        "single": [tensor(st_normalize(pooled([t], modes)[0])) for t in TEXTS],
        "batch": {"texts": TEXTS, "ids": ids, "lengths": lengths, "embeddings": tensor(st_normalize(batch))},
        # Every pooling mode of the batch alone, before Normalize; and all six concatenated, normalized.
        "pooled": {m: tensor(pooled(TEXTS, [m])[0]) for m in ST_MODES},
        "all_modes": tensor(st_normalize(pooled(TEXTS, ST_MODES)[0])),
    }
    write_json(os.path.join(folder, "reference.json"), reference)
    print(name, os.path.getsize(os.path.join(folder, "model.safetensors")), "bytes of weights")


EMBEDDERS = {
    "tiny-minilm-embedder": lambda: make_bert_embedder("tiny-minilm-embedder", 51, ["mean"], 9),  # truncates the third text
    "tiny-bge-embedder": lambda: make_bert_embedder("tiny-bge-embedder", 52, ["cls"], 40, do_lower_case=True),
}


def write_fixture(name, cfg, tokenizer, saved, dtype, encode, forward, pad_id, extra=None):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    write_json(os.path.join(folder, "config.json"), cfg)
    write_json(os.path.join(folder, "tokenizer.json"), tokenizer)
    write_json(os.path.join(folder, "tokenizer_config.json"), {"model_max_length": cfg.get("max_position_embeddings", cfg.get("n_positions")),
                                                               "clean_up_tokenization_spaces": False})
    save_safetensors(os.path.join(folder, "model.safetensors"), saved, dtype, {"format": "pt"})
    if cfg["architectures"][0].endswith(("ForCausalLM", "LMHeadModel")):
        # A decoder's generation_config.json as transformers writes it from the config (loadModel
        # reads it; without one a page sees a 404 in its console).
        write_json(os.path.join(folder, "generation_config.json"), {"bos_token_id": cfg["bos_token_id"], "eos_token_id": cfg["eos_token_id"]})
    encoded = {t: encode(t) for t in TEXTS}
    cases = []
    for texts in [TEXTS[:1], TEXTS[1:3]]:
        ids, lengths = pad_batch([encoded[t] for t in texts], pad_id)
        with torch.no_grad():
            r = forward(ids, lengths)
        cases.append({"texts": texts, "ids": ids, "lengths": lengths,
                      "logits": {"shape": list(r["logits"].shape), "data": flat(r["logits"])},
                      "hidden_states": [{"shape": list(h.shape), "data": flat(h)} for h in r["hidden"]],
                      "attentions": [{"shape": list(a.shape), "data": flat(a)} for a in r["attn"]]})
    write_json(os.path.join(folder, "reference.json"), {"tokens": encoded, "cases": cases, **(extra or {})})
    print(name, os.path.getsize(os.path.join(folder, "model.safetensors")), "bytes of weights")


# ---- Decoder families after Llama: Qwen2, Qwen3, Gemma 2, Gemma 3, Phi-3 ----
# Each reference is written from transformers' modeling_<family>.py and configuration_<family>.py
# (the v5 sources: rope_parameters, layer_types), masking_utils.py (which keys a query sees) and
# modeling_rope_utils.py (LongRoPE). The shared pieces come first; the model functions follow.
def rope_cos_sin(T, inv_freq, attention_scaling=1.0):
    """*RotaryEmbedding.forward: angle = position × inv_freq, emb = cat(angles, angles); cos and sin
    both times attention_scaling (1 for every rope type here but LongRoPE)."""
    angles = torch.arange(T, dtype=F64)[:, None] * inv_freq[None]
    emb = torch.cat((angles, angles), dim=-1)
    return emb.cos() * attention_scaling, emb.sin() * attention_scaling


def apply_rope(x, cos, sin):
    """apply_rotary_pos_emb on [B, heads, T, hd]: the first cos.shape[-1] columns of each head rotate
    (rotate_half within them), the others pass unchanged (Phi-3's partial_rotary_factor < 1)."""
    r = cos.shape[-1]
    rot = x[..., :r]
    return torch.cat((rot * cos + rotate_half(rot) * sin, x[..., r:]), dim=-1)


def decoder_allowed(B, T, lengths, window=None):
    """masking_utils: causal_mask_function (key j <= query i); on a sliding layer also
    sliding_window_overlay (j > i - window); padding_mask_function (keys past a row's length)."""
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = j <= i
    if window is not None:
        allowed = allowed & (j > i - window)
    allowed = allowed[None, None].repeat(B, 1, 1, 1)
    for b in range(B):
        allowed[b, :, :, lengths[b]:] = False
    return allowed


def eager_attention(q, k, v, scaling, allowed, softcap=None):
    """eager_attention_forward: q [B, H, T, hd], k and v [B, KV, T, hd] (repeat_kv: each key/value
    head serves H/KV consecutive query heads); scores × scaling; Gemma 2's tanh softcap comes before
    the mask; blocked scores are finfo.min (exp gives 0). → (out [B, T, H·hd], probs [B, H, T, T])."""
    B, H, T, hd = q.shape
    k = k.repeat_interleave(H // k.shape[1], dim=1)
    v = v.repeat_interleave(H // v.shape[1], dim=1)
    scores = q @ k.transpose(-1, -2) * scaling
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1)
    return (probs @ v).transpose(1, 2).reshape(B, T, H * hd), probs


def split_heads(x, n, hd):  # [B, T, n·hd] → [B, n, T, hd], the view(hidden_shape).transpose(1, 2) of every family
    B, T, _ = x.shape
    return x.view(B, T, n, hd).transpose(1, 2)


def silu(x):
    return x * torch.sigmoid(x)


def gemma_rms_norm(x, w, eps):
    """Gemma2RMSNorm / Gemma3RMSNorm: x · rsqrt(mean(x²) + eps) · (1 + w), weights stored around 0
    (HF computes it in float32 on purpose; float64 here)."""
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * (1.0 + w)


def greedy_ids(forward, ids, steps):
    """Greedy decoding without a cache: each step re-runs the whole forward over all the ids."""
    ids = list(ids)
    for _ in range(steps):
        ids.append(int(torch.argmax(forward([ids], [len(ids)])["logits"][0, -1])))
    return ids


def check_reference(name, forward, encode, pad_id, windows):
    """Sanity of a reference on the padded batch of TEXTS[1:3]: finite logits, attention rows that
    sum to 1 and, on real query rows, see no later key, and per layer the window: a layer with
    window w gives exactly 0 to keys w or more tokens back; a full layer (None) gives them weight.
    (A padded query whose window holds only padded keys sees no key: finfo.min everywhere, uniform.)"""
    ids, lengths = pad_batch([encode(t) for t in TEXTS[1:3]], pad_id)
    with torch.no_grad():
        r = forward(ids, lengths)
    assert torch.isfinite(r["logits"]).all(), name
    T = len(ids[0])
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    real = torch.arange(T)[None, None, :, None] < torch.tensor(lengths)[:, None, None, None]  # [B, 1, T, 1]
    for l, (p, w) in enumerate(zip(r["attn"], windows)):
        assert (p.sum(-1) - 1).abs().max() < 1e-12, name
        p = p * real
        assert p[..., j > i].abs().max() == 0, name
        far = p[..., j <= i - (w or 3)].abs().max().item()  # a full layer: measured against a window of 3
        assert (far == 0) == (w is not None), (name, l, far)
        print("  %s layer %d: window %s, largest weight on keys %d+ back %.3g" % (name, l, w, w or 3, far))


# ---- Qwen2 (modeling_qwen2.py: Qwen2ForCausalLM): Llama's layers with biased q/k/v projections ----
# configuration_qwen2.py: sliding_window = sliding_window if use_sliding_window else None, and layer i
# is "sliding_attention" only when that window is set and i >= max_window_layers. This config sets
# use_sliding_window false with sliding_window 3 and max_window_layers 1: every layer is full.
def make_qwen2(name="tiny-qwen2", seed=51):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, eos = gpt2_tokenizer(CORPUS, 48)
    V = len(tokenizer["model"]["vocab"]) + 1
    d, L, H, KV, f, eps, theta = 32, 2, 4, 2, 48, 1e-6, 1000000.0
    hd = d // H
    cfg = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "hidden_act": "silu", "max_position_embeddings": 64, "rms_norm_eps": eps, "rope_theta": theta,
           "rope_scaling": None, "use_sliding_window": False, "sliding_window": 3, "max_window_layers": 1,
           "attention_dropout": 0.0, "tie_word_embeddings": True, "bos_token_id": eos, "eos_token_id": eos,
           "torch_dtype": "float32"}
    w = {"model.embed_tokens.weight": rand(gen, V, d)}
    for l in range(L):
        p = "model.layers.%d." % l
        for n, rows in [("q_proj", H * hd), ("k_proj", KV * hd), ("v_proj", KV * hd)]:  # Qwen2Attention: bias=True
            w[p + "self_attn.%s.weight" % n] = rand(gen, rows, d)
            w[p + "self_attn.%s.bias" % n] = rand(gen, rows, std=0.1)
        w[p + "self_attn.o_proj.weight"] = rand(gen, d, H * hd)  # bias=False
        w[p + "mlp.gate_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.up_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.down_proj.weight"] = rand(gen, d, f)
        w[p + "input_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "post_attention_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
    w["model.norm.weight"] = 1 + rand(gen, d, std=0.1)  # tied: no lm_head.weight, logits use embed_tokens
    W = {k: stored(v, "F32") for k, v in w.items()}
    inv_freq = llama_inv_freq(theta, hd, None)
    Lin = lambda x, p: x @ W[p + ".weight"].T + (W[p + ".bias"] if p + ".bias" in W else 0)

    def forward(ids, lengths):
        ids = torch.tensor(ids)
        B, T = ids.shape
        x = W["model.embed_tokens.weight"][ids]
        cos, sin = rope_cos_sin(T, inv_freq)
        allowed = decoder_allowed(B, T, lengths)  # no window: every layer is full_attention
        hidden, attns = [x], []
        for l in range(L):
            p = "model.layers.%d." % l
            a = rms_norm(x, W[p + "input_layernorm.weight"], eps)
            q = apply_rope(split_heads(Lin(a, p + "self_attn.q_proj"), H, hd), cos, sin)
            k = apply_rope(split_heads(Lin(a, p + "self_attn.k_proj"), KV, hd), cos, sin)
            v = split_heads(Lin(a, p + "self_attn.v_proj"), KV, hd)
            o, probs = eager_attention(q, k, v, hd ** -0.5, allowed)
            x = x + Lin(o, p + "self_attn.o_proj")
            m = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
            x = x + Lin(silu(Lin(m, p + "mlp.gate_proj")) * Lin(m, p + "mlp.up_proj"), p + "mlp.down_proj")
            attns.append(probs)
            hidden.append(x)
        x = rms_norm(x, W["model.norm.weight"], eps)
        hidden[-1] = x
        return {"logits": x @ W["model.embed_tokens.weight"].T, "hidden": hidden, "attn": attns}

    check_reference(name, forward, encode, eos, [None] * L)
    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy_ids(forward, encode(TEXTS[0]), 12)}}
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=eos, extra=extra)


# ---- Granite 3 (modeling_granite.py: GraniteForCausalLM, issue 46): Llama's layers, four scalars ----
# GraniteModel: inputs_embeds × embedding_multiplier; GraniteAttention: scaling = attention_multiplier
# (not head_dim^-0.5); GraniteDecoderLayer: residual + sub-layer × residual_multiplier, for attention
# and MLP; GraniteForCausalLM: logits = lm_head(h) / logits_scaling. Values shaped like Granite 3.1's
# (12, 0.015625, 0.22, 8), scaled to this tiny width; GPT-2's byte-level BPE, tied embeddings.
def make_granite(name="tiny-granite", seed=58):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, eos = gpt2_tokenizer(CORPUS, 48)
    V = eos + 1
    d, L, H, KV, f, eps, theta = 32, 2, 4, 2, 48, 1e-6, 10000.0
    hd = d // H
    emb_mult, attn_mult, res_mult, logits_scaling = 2.0, 0.3, 0.22, 8.0
    cfg = {"architectures": ["GraniteForCausalLM"], "model_type": "granite", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "hidden_act": "silu", "max_position_embeddings": 64, "rms_norm_eps": eps, "rope_theta": theta,
           "rope_scaling": None, "attention_bias": False, "mlp_bias": False, "attention_dropout": 0.0,
           "embedding_multiplier": emb_mult, "attention_multiplier": attn_mult, "residual_multiplier": res_mult,
           "logits_scaling": logits_scaling, "tie_word_embeddings": True, "pad_token_id": eos, "bos_token_id": eos,
           "eos_token_id": eos, "torch_dtype": "float32"}
    w = {"model.embed_tokens.weight": rand(gen, V, d)}
    for l in range(L):
        p = "model.layers.%d." % l
        for n, rows in [("q_proj", H * hd), ("k_proj", KV * hd), ("v_proj", KV * hd)]:
            w[p + "self_attn.%s.weight" % n] = rand(gen, rows, d)
        w[p + "self_attn.o_proj.weight"] = rand(gen, d, H * hd)
        w[p + "mlp.gate_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.up_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.down_proj.weight"] = rand(gen, d, f)
        w[p + "input_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "post_attention_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
    w["model.norm.weight"] = 1 + rand(gen, d, std=0.1)
    W = {k: stored(v, "F32") for k, v in w.items()}
    inv_freq = llama_inv_freq(theta, hd, None)

    def model(emb_mult, attn_mult, res_mult, logits_scaling):
        def forward(ids, lengths):
            ids = torch.tensor(ids)
            B, T = ids.shape
            x = W["model.embed_tokens.weight"][ids] * emb_mult
            cos, sin = rope_cos_sin(T, inv_freq)
            allowed = decoder_allowed(B, T, lengths)
            hidden, attns = [x], []
            for l in range(L):
                p = "model.layers.%d." % l
                a = rms_norm(x, W[p + "input_layernorm.weight"], eps)
                q = apply_rope(split_heads(a @ W[p + "self_attn.q_proj.weight"].T, H, hd), cos, sin)
                k = apply_rope(split_heads(a @ W[p + "self_attn.k_proj.weight"].T, KV, hd), cos, sin)
                v = split_heads(a @ W[p + "self_attn.v_proj.weight"].T, KV, hd)
                o, probs = eager_attention(q, k, v, attn_mult, allowed)
                x = x + (o @ W[p + "self_attn.o_proj.weight"].T) * res_mult
                m = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
                g = m @ W[p + "mlp.gate_proj.weight"].T
                x = x + ((silu(g) * (m @ W[p + "mlp.up_proj.weight"].T)) @ W[p + "mlp.down_proj.weight"].T) * res_mult
                attns.append(probs)
                hidden.append(x)
            x = rms_norm(x, W["model.norm.weight"], eps)
            hidden[-1] = x
            return {"logits": (x @ W["model.embed_tokens.weight"].T) / logits_scaling, "hidden": hidden, "attn": attns}
        return forward

    forward = model(emb_mult, attn_mult, res_mult, logits_scaling)
    check_reference(name, forward, encode, eos, [None] * L)
    ids = [encode(TEXTS[0])]
    with torch.no_grad():
        logits = forward(ids, [len(ids[0])])["logits"]
        for what, variant in [("embedding_multiplier 1", (1.0, attn_mult, res_mult, logits_scaling)),
                              ("attention_multiplier as head_dim^-0.5", (emb_mult, hd ** -0.5, res_mult, logits_scaling)),
                              ("residual_multiplier 1", (emb_mult, attn_mult, 1.0, logits_scaling)),
                              ("logits_scaling 1", (emb_mult, attn_mult, res_mult, 1.0))]:
            print_difference(what, logits, model(*variant)(ids, [len(ids[0])])["logits"])
    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy_ids(forward, encode(TEXTS[0]), 12)}}
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=eos, extra=extra)


# ---- OLMo 2 (modeling_olmo2.py: Olmo2ForCausalLM, issue 46): norms after, full-width q/k norms ----
# Olmo2DecoderLayer: x = x + post_attention_layernorm(attn(x)); x = x + post_feedforward_layernorm(mlp(x))
# (no norm before either). Olmo2Attention: q = q_norm(q_proj(x)), k = k_norm(k_proj(x)), RMS norms over
# the whole projected width (heads · head_dim), before the view into heads and RoPE. Untied LM head.
def make_olmo2(name="tiny-olmo2", seed=59):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, eos = gpt2_tokenizer(CORPUS, 48)
    V = eos + 1
    d, L, H, KV, f, eps, theta = 32, 2, 4, 2, 48, 1e-6, 500000.0
    hd = d // H
    cfg = {"architectures": ["Olmo2ForCausalLM"], "model_type": "olmo2", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "hidden_act": "silu", "max_position_embeddings": 64, "rms_norm_eps": eps, "rope_theta": theta,
           "rope_scaling": None, "attention_bias": False, "attention_dropout": 0.0, "tie_word_embeddings": False,
           "pad_token_id": eos, "bos_token_id": eos, "eos_token_id": eos, "torch_dtype": "float32"}
    w = {"model.embed_tokens.weight": rand(gen, V, d)}
    for l in range(L):
        p = "model.layers.%d." % l
        for n, rows in [("q_proj", H * hd), ("k_proj", KV * hd), ("v_proj", KV * hd)]:
            w[p + "self_attn.%s.weight" % n] = rand(gen, rows, d)
        w[p + "self_attn.o_proj.weight"] = rand(gen, d, H * hd)
        w[p + "self_attn.q_norm.weight"] = 1 + rand(gen, H * hd, std=0.1)
        w[p + "self_attn.k_norm.weight"] = 1 + rand(gen, KV * hd, std=0.1)
        w[p + "mlp.gate_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.up_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.down_proj.weight"] = rand(gen, d, f)
        w[p + "post_attention_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "post_feedforward_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
    w["model.norm.weight"] = 1 + rand(gen, d, std=0.1)
    w["lm_head.weight"] = rand(gen, V, d)
    W = {k: stored(v, "F32") for k, v in w.items()}
    inv_freq = llama_inv_freq(theta, hd, None)

    def model(per_head):
        def forward(ids, lengths):
            ids = torch.tensor(ids)
            B, T = ids.shape
            x = W["model.embed_tokens.weight"][ids]
            cos, sin = rope_cos_sin(T, inv_freq)
            allowed = decoder_allowed(B, T, lengths)
            hidden, attns = [x], []
            for l in range(L):
                p = "model.layers.%d." % l
                q, k = x @ W[p + "self_attn.q_proj.weight"].T, x @ W[p + "self_attn.k_proj.weight"].T
                if per_head:  # what a per-head norm (Qwen3's) would do with the first head_dim weights
                    q = rms_norm(q.view(B, T, H, hd), W[p + "self_attn.q_norm.weight"][:hd], eps).view(B, T, H * hd)
                    k = rms_norm(k.view(B, T, KV, hd), W[p + "self_attn.k_norm.weight"][:hd], eps).view(B, T, KV * hd)
                else:
                    q = rms_norm(q, W[p + "self_attn.q_norm.weight"], eps)
                    k = rms_norm(k, W[p + "self_attn.k_norm.weight"], eps)
                q, k = apply_rope(split_heads(q, H, hd), cos, sin), apply_rope(split_heads(k, KV, hd), cos, sin)
                v = split_heads(x @ W[p + "self_attn.v_proj.weight"].T, KV, hd)
                o, probs = eager_attention(q, k, v, hd ** -0.5, allowed)
                x = x + rms_norm(o @ W[p + "self_attn.o_proj.weight"].T, W[p + "post_attention_layernorm.weight"], eps)
                g = x @ W[p + "mlp.gate_proj.weight"].T
                m = (silu(g) * (x @ W[p + "mlp.up_proj.weight"].T)) @ W[p + "mlp.down_proj.weight"].T
                x = x + rms_norm(m, W[p + "post_feedforward_layernorm.weight"], eps)
                attns.append(probs)
                hidden.append(x)
            x = rms_norm(x, W["model.norm.weight"], eps)
            hidden[-1] = x
            return {"logits": x @ W["lm_head.weight"].T, "hidden": hidden, "attn": attns}
        return forward

    forward = model(False)
    check_reference(name, forward, encode, eos, [None] * L)
    ids = [encode(TEXTS[0])]
    with torch.no_grad():
        print_difference("q/k norms per head", forward(ids, [len(ids[0])])["logits"], model(True)(ids, [len(ids[0])])["logits"])
    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy_ids(forward, encode(TEXTS[0]), 12)}}
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=eos, extra=extra)


# ---- ModernBERT (modeling_modernbert.py: ModernBertForMaskedLM, issue 46) ----
# ModernBertEmbeddings: norm(tok_embeddings(ids)), no positions. ModernBertEncoderLayer: attn_norm is
# Identity on layer 0, a LayerNorm after; x = x + Wo(attn(attn_norm(x))); x = x + mlp(mlp_norm(x)),
# ModernBertMLP: input, gate = Wi(x).chunk(2); Wo(act(input) * gate). ModernBertAttention: Wqkv viewed
# [B, T, 3, H, hd]; RoPE with global_rope_theta on global layers (layer_id % global_attn_every_n_layers
# == 0), local_rope_theta on the others, whose sliding_window_mask keeps |i - j| <= local_attention // 2;
# no causal rule. LayerNorms without bias (norm_bias false). final_norm; ModernBertPredictionHead:
# norm(act(dense(x))) (classifier_bias false), then the decoder tied to tok_embeddings with its bias.
def make_modernbert(name="tiny-modernbert", seed=60):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, vocab = bert_tokenizer(WORDS, PIECES)
    V, d, L, H, f, eps = len(vocab), 32, 4, 4, 48, 1e-5
    hd = d // H
    every, local, gtheta, ltheta = 3, 4, 160000.0, 10000.0  # local layers: |i - j| <= 2
    cfg = {"architectures": ["ModernBertForMaskedLM"], "model_type": "modernbert", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "hidden_activation": "gelu",
           "max_position_embeddings": 64, "norm_eps": eps, "norm_bias": False, "global_rope_theta": gtheta,
           "local_rope_theta": ltheta, "global_attn_every_n_layers": every, "local_attention": local,
           "attention_bias": False, "mlp_bias": False, "classifier_bias": False, "classifier_activation": "gelu",
           "decoder_bias": True, "tie_word_embeddings": True, "pad_token_id": 0, "cls_token_id": vocab["[CLS]"],
           "sep_token_id": vocab["[SEP]"], "layer_norm_eps": 1e-5, "position_embedding_type": "absolute",
           "torch_dtype": "float32"}
    w = {"model.embeddings.tok_embeddings.weight": rand(gen, V, d), "model.embeddings.norm.weight": 1 + rand(gen, d, std=0.1)}
    for l in range(L):
        p = "model.layers.%d." % l
        if l > 0:
            w[p + "attn_norm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "attn.Wqkv.weight"] = rand(gen, 3 * d, d)
        w[p + "attn.Wo.weight"] = rand(gen, d, d)
        w[p + "mlp_norm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "mlp.Wi.weight"] = rand(gen, 2 * f, d)
        w[p + "mlp.Wo.weight"] = rand(gen, d, f)
    w["model.final_norm.weight"] = 1 + rand(gen, d, std=0.1)
    w["head.dense.weight"] = rand(gen, d, d)
    w["head.norm.weight"] = 1 + rand(gen, d, std=0.1)
    w["decoder.bias"] = rand(gen, V, std=0.1)
    W = {k: stored(v, "F32") for k, v in w.items()}
    LN = lambda x, name: layer_norm(x, W[name], 0.0, eps)

    def model(windowed, thetas):
        def forward(ids, lengths):
            ids = torch.tensor(ids)
            B, T = ids.shape
            x = LN(W["model.embeddings.tok_embeddings.weight"][ids], "model.embeddings.norm.weight")
            i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
            hidden, attns = [x], []
            for l in range(L):
                p = "model.layers.%d." % l
                is_global = l % every == 0
                a = x if l == 0 else LN(x, p + "attn_norm.weight")
                qkv = (a @ W[p + "attn.Wqkv.weight"].T).view(B, T, 3, H, hd)
                q, k, v = (qkv[:, :, n].transpose(1, 2) for n in range(3))
                cos, sin = rope_cos_sin(T, llama_inv_freq(thetas[0] if is_global else thetas[1], hd, None))
                q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
                allowed = torch.ones(T, T, dtype=torch.bool) if is_global or not windowed else (i - j).abs() <= local // 2
                allowed = allowed[None, None].repeat(B, 1, 1, 1)
                for b in range(B):
                    allowed[b, :, :, lengths[b]:] = False
                o, probs = eager_attention(q, k, v, hd ** -0.5, allowed)
                x = x + o @ W[p + "attn.Wo.weight"].T
                inp, gate = (LN(x, p + "mlp_norm.weight") @ W[p + "mlp.Wi.weight"].T).chunk(2, dim=-1)
                x = x + (gelu(inp) * gate) @ W[p + "mlp.Wo.weight"].T
                attns.append(probs)
                hidden.append(x)
            x = LN(x, "model.final_norm.weight")
            hidden[-1] = x
            h = layer_norm(gelu(x @ W["head.dense.weight"].T), W["head.norm.weight"], 0.0, eps)
            logits = h @ W["model.embeddings.tok_embeddings.weight"].T + W["decoder.bias"]
            return {"logits": logits, "hidden": hidden, "attn": attns}
        return forward

    forward = model(True, (gtheta, ltheta))
    ids = [encode(TEXTS[2])]
    with torch.no_grad():
        logits = forward(ids, [len(ids[0])])["logits"]
        print_difference("no local windows", logits, model(False, (gtheta, ltheta))(ids, [len(ids[0])])["logits"])
        print_difference("one RoPE base", logits, model(True, (gtheta, gtheta))(ids, [len(ids[0])])["logits"])
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=0)


# ---- SmolLM3 (modeling_smollm3.py: SmolLM3ForCausalLM, issue 46): Llama's layers, some NoPE ----
# configuration_smollm3.py: no_rope_layers[l] is 1 where layer l applies RoPE (SmolLM3Attention:
# use_rope = no_rope_layers[layer_idx]), 0 on a NoPE layer (default every no_rope_layer_interval-th);
# windows only with use_sliding_window (false here, with sliding_window 2 set: a loader that applied
# it would miss). SmolLM's tokenizer (Digits + ByteLevel), tied embeddings, attention_bias false.
def make_smollm3(name="tiny-smollm3", seed=57):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, eos = smollm_tokenizer(SMOLLM_CORPUS, 80)
    V = eos + 1
    d, L, H, KV, f, eps, theta = 32, 4, 4, 2, 48, 1e-6, 10000.0
    hd = d // H
    no_rope_layers = [1, 0, 1, 0]
    cfg = {"architectures": ["SmolLM3ForCausalLM"], "model_type": "smollm3", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "hidden_act": "silu", "max_position_embeddings": 64, "rms_norm_eps": eps, "rope_theta": theta,
           "rope_scaling": None, "use_sliding_window": False, "sliding_window": 2, "no_rope_layers": no_rope_layers,
           "no_rope_layer_interval": 2, "layer_types": ["full_attention"] * L, "attention_bias": False,
           "mlp_bias": False, "attention_dropout": 0.0, "tie_word_embeddings": True, "pad_token_id": eos,
           "bos_token_id": eos, "eos_token_id": eos, "torch_dtype": "float32"}
    w = {"model.embed_tokens.weight": rand(gen, V, d)}
    for l in range(L):
        p = "model.layers.%d." % l
        for n, rows in [("q_proj", H * hd), ("k_proj", KV * hd), ("v_proj", KV * hd)]:
            w[p + "self_attn.%s.weight" % n] = rand(gen, rows, d)
        w[p + "self_attn.o_proj.weight"] = rand(gen, d, H * hd)
        w[p + "mlp.gate_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.up_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.down_proj.weight"] = rand(gen, d, f)
        w[p + "input_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "post_attention_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
    w["model.norm.weight"] = 1 + rand(gen, d, std=0.1)
    W = {k: stored(v, "F32") for k, v in w.items()}
    inv_freq = llama_inv_freq(theta, hd, None)

    def model(uses):
        def forward(ids, lengths):
            ids = torch.tensor(ids)
            B, T = ids.shape
            x = W["model.embed_tokens.weight"][ids]
            cos, sin = rope_cos_sin(T, inv_freq)
            allowed = decoder_allowed(B, T, lengths)
            hidden, attns = [x], []
            for l in range(L):
                p = "model.layers.%d." % l
                a = rms_norm(x, W[p + "input_layernorm.weight"], eps)
                q = split_heads(a @ W[p + "self_attn.q_proj.weight"].T, H, hd)
                k = split_heads(a @ W[p + "self_attn.k_proj.weight"].T, KV, hd)
                v = split_heads(a @ W[p + "self_attn.v_proj.weight"].T, KV, hd)
                if uses[l]:  # SmolLM3Attention: if self.use_rope: apply_rotary_pos_emb
                    q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
                o, probs = eager_attention(q, k, v, hd ** -0.5, allowed)
                x = x + o @ W[p + "self_attn.o_proj.weight"].T
                m = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
                g = m @ W[p + "mlp.gate_proj.weight"].T
                x = x + (silu(g) * (m @ W[p + "mlp.up_proj.weight"].T)) @ W[p + "mlp.down_proj.weight"].T
                attns.append(probs)
                hidden.append(x)
            x = rms_norm(x, W["model.norm.weight"], eps)
            hidden[-1] = x
            return {"logits": x @ W["model.embed_tokens.weight"].T, "hidden": hidden, "attn": attns}
        return forward

    forward = model(no_rope_layers)
    check_reference(name, forward, encode, eos, [None] * L)
    ids = [encode(TEXTS[0])]
    with torch.no_grad():
        print_difference("RoPE on every layer", forward(ids, [len(ids[0])])["logits"],
                         model([1] * L)(ids, [len(ids[0])])["logits"])
    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy_ids(forward, encode(TEXTS[0]), 12)}}
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=eos, extra=extra)


# ---- Qwen3 (modeling_qwen3.py: Qwen3ForCausalLM): explicit head_dim, q_norm/k_norm, no biases ----
# Qwen3Attention: q = q_norm(q_proj(x).view(..., head_dim)), the same for k, both RMSNorms over
# head_dim (one [head_dim] weight shared by all heads), applied before RoPE; scaling head_dim^-0.5.
def make_qwen3(name="tiny-qwen3", seed=52):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, eos = gpt2_tokenizer(CORPUS, 48)
    V = len(tokenizer["model"]["vocab"]) + 1
    d, L, H, KV, hd, f, eps, theta = 32, 2, 4, 2, 16, 48, 1e-6, 1000000.0
    cfg = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "head_dim": hd, "hidden_act": "silu", "max_position_embeddings": 64, "rms_norm_eps": eps,
           "rope_theta": theta, "rope_scaling": None, "attention_bias": False, "use_sliding_window": False,
           "sliding_window": None, "max_window_layers": L, "attention_dropout": 0.0, "tie_word_embeddings": True,
           "bos_token_id": eos, "eos_token_id": eos, "torch_dtype": "float32"}
    w = {"model.embed_tokens.weight": rand(gen, V, d)}
    for l in range(L):
        p = "model.layers.%d." % l
        w[p + "self_attn.q_proj.weight"] = rand(gen, H * hd, d)  # [64, 32]: H·head_dim ≠ hidden_size
        w[p + "self_attn.k_proj.weight"] = rand(gen, KV * hd, d)
        w[p + "self_attn.v_proj.weight"] = rand(gen, KV * hd, d)
        w[p + "self_attn.o_proj.weight"] = rand(gen, d, H * hd)  # [32, 64]
        w[p + "self_attn.q_norm.weight"] = 1 + rand(gen, hd, std=0.1)
        w[p + "self_attn.k_norm.weight"] = 1 + rand(gen, hd, std=0.1)
        w[p + "mlp.gate_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.up_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.down_proj.weight"] = rand(gen, d, f)
        w[p + "input_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "post_attention_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
    w["model.norm.weight"] = 1 + rand(gen, d, std=0.1)
    W = {k: stored(v, "F32") for k, v in w.items()}
    inv_freq = llama_inv_freq(theta, hd, None)  # over head_dim (16), not hidden_size / heads

    def forward(ids, lengths):
        ids = torch.tensor(ids)
        B, T = ids.shape
        x = W["model.embed_tokens.weight"][ids]
        cos, sin = rope_cos_sin(T, inv_freq)
        allowed = decoder_allowed(B, T, lengths)
        hidden, attns = [x], []
        for l in range(L):
            p = "model.layers.%d.self_attn." % l
            a = rms_norm(x, W["model.layers.%d.input_layernorm.weight" % l], eps)
            q = rms_norm(split_heads(a @ W[p + "q_proj.weight"].T, H, hd), W[p + "q_norm.weight"], eps)
            k = rms_norm(split_heads(a @ W[p + "k_proj.weight"].T, KV, hd), W[p + "k_norm.weight"], eps)
            v = split_heads(a @ W[p + "v_proj.weight"].T, KV, hd)
            o, probs = eager_attention(apply_rope(q, cos, sin), apply_rope(k, cos, sin), v, hd ** -0.5, allowed)
            x = x + o @ W[p + "o_proj.weight"].T
            p = "model.layers.%d." % l
            m = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
            m = (silu(m @ W[p + "mlp.gate_proj.weight"].T) * (m @ W[p + "mlp.up_proj.weight"].T)) @ W[p + "mlp.down_proj.weight"].T
            x = x + m
            attns.append(probs)
            hidden.append(x)
        x = rms_norm(x, W["model.norm.weight"], eps)
        hidden[-1] = x
        return {"logits": x @ W["model.embed_tokens.weight"].T, "hidden": hidden, "attn": attns}

    check_reference(name, forward, encode, eos, [None] * L)
    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy_ids(forward, encode(TEXTS[0]), 12)}}
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=eos, extra=extra)


# ---- Gemma 2 and Gemma 3 (modeling_gemma2.py, modeling_gemma3.py: *ForCausalLM) ----
# One decoder layer: x += post_attention_layernorm(attn(input_layernorm(x)));
# x += post_feedforward_layernorm(mlp(pre_feedforward_layernorm(x))), every norm Gemma's (1 + w);
# mlp = down(gelu_pytorch_tanh(gate(x)) · up(x)); embeddings × sqrt(hidden_size) with the normalizer
# cast to the hidden dtype (float32 here); attention scaling query_pre_attn_scalar^-0.5; a layer of
# type "sliding_attention" sees keys j > i - sliding_window. Logits use the tied embeddings, then
# final_logit_softcapping (tanh(logits / cap) · cap) when set.
def gemma_weights(gen, V, d, L, H, KV, hd, f, qk_norm):
    w = {"model.embed_tokens.weight": rand(gen, V, d)}
    for l in range(L):
        p = "model.layers.%d." % l
        w[p + "self_attn.q_proj.weight"] = rand(gen, H * hd, d)
        w[p + "self_attn.k_proj.weight"] = rand(gen, KV * hd, d)
        w[p + "self_attn.v_proj.weight"] = rand(gen, KV * hd, d)
        w[p + "self_attn.o_proj.weight"] = rand(gen, d, H * hd)
        if qk_norm:  # Gemma 3
            w[p + "self_attn.q_norm.weight"] = rand(gen, hd, std=0.1)
            w[p + "self_attn.k_norm.weight"] = rand(gen, hd, std=0.1)
        w[p + "mlp.gate_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.up_proj.weight"] = rand(gen, f, d)
        w[p + "mlp.down_proj.weight"] = rand(gen, d, f)
        for n in ["input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"]:
            w[p + n + ".weight"] = rand(gen, d, std=0.1)  # (1 + w) ≈ 1
    w["model.norm.weight"] = rand(gen, d, std=0.1)
    return w


def gemma_forward(W, L, H, KV, hd, eps, scaling, windows, inv_freqs, qk_norm, attn_cap, final_cap,
                  allowed_of=decoder_allowed, prefix="model."):
    """The Gemma 2/3 forward; windows[l] is layer l's sliding window (None: full) and inv_freqs[l]
    its rotary frequencies (Gemma 3 has one rotary embedding per layer type). allowed_of(B, T,
    lengths, window): which keys each query sees (causal by default). prefix: the weights' names
    start with it ("model." under Gemma*ForCausalLM, "" for a Gemma3TextModel)."""
    W = {("model." + k[len(prefix):] if k.startswith(prefix) else k): v for k, v in W.items()}
    E = W["model.embed_tokens.weight"]
    normalizer = float(torch.tensor(E.shape[1] ** 0.5, dtype=torch.float32))

    def forward(ids, lengths):
        ids = torch.tensor(ids)
        B, T = ids.shape
        x = E[ids] * normalizer
        hidden, attns = [x], []
        for l in range(L):
            p = "model.layers.%d." % l
            cos, sin = rope_cos_sin(T, inv_freqs[l])
            a = gemma_rms_norm(x, W[p + "input_layernorm.weight"], eps)
            q = split_heads(a @ W[p + "self_attn.q_proj.weight"].T, H, hd)
            k = split_heads(a @ W[p + "self_attn.k_proj.weight"].T, KV, hd)
            v = split_heads(a @ W[p + "self_attn.v_proj.weight"].T, KV, hd)
            if qk_norm:  # Gemma3Attention: q_norm/k_norm over head_dim, before RoPE
                q = gemma_rms_norm(q, W[p + "self_attn.q_norm.weight"], eps)
                k = gemma_rms_norm(k, W[p + "self_attn.k_norm.weight"], eps)
            o, probs = eager_attention(apply_rope(q, cos, sin), apply_rope(k, cos, sin), v, scaling,
                                       allowed_of(B, T, lengths, windows[l]), attn_cap)
            x = x + gemma_rms_norm(o @ W[p + "self_attn.o_proj.weight"].T, W[p + "post_attention_layernorm.weight"], eps)
            m = gemma_rms_norm(x, W[p + "pre_feedforward_layernorm.weight"], eps)
            m = (gelu_new(m @ W[p + "mlp.gate_proj.weight"].T) * (m @ W[p + "mlp.up_proj.weight"].T)) @ W[p + "mlp.down_proj.weight"].T
            x = x + gemma_rms_norm(m, W[p + "post_feedforward_layernorm.weight"], eps)  # gelu_new = gelu_pytorch_tanh's formula
            attns.append(probs)
            hidden.append(x)
        x = gemma_rms_norm(x, W["model.norm.weight"], eps)
        hidden[-1] = x
        logits = x @ E.T
        if final_cap is not None:
            logits = torch.tanh(logits / final_cap) * final_cap
        return {"logits": logits, "hidden": hidden, "attn": attns}

    return forward


def print_difference(what, a, b):
    """How far two variants of a forward are apart on TEXTS[0] (the variant must matter)."""
    print("  %s: max |logits difference| %.3g" % (what, (a - b).abs().max().item()))


# Gemma 2: configuration_gemma2.py's default layer_types alternate from layer 0: sliding, full,
# sliding, … (sliding when (i + 1) % 2); one default rotary embedding (rope_theta) for all layers.
def make_gemma2(name="tiny-gemma2", seed=53):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, vocab = sentencepiece_bpe_tokenizer(CORPUS, 60)
    V, d, L, H, KV, hd, f, eps, theta = len(vocab), 32, 3, 4, 2, 16, 48, 1e-6, 10000.0
    window, scalar, attn_cap, final_cap = 3, 24, 1.0, 2.0
    layer_types = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(L)]
    cfg = {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "head_dim": hd, "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh",
           "max_position_embeddings": 64, "rms_norm_eps": eps, "rope_theta": theta, "attention_bias": False,
           "attention_dropout": 0.0, "query_pre_attn_scalar": scalar, "sliding_window": window,
           "layer_types": layer_types, "attn_logit_softcapping": attn_cap, "final_logit_softcapping": final_cap,
           "tie_word_embeddings": True, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
           "torch_dtype": "float32"}
    w = gemma_weights(gen, V, d, L, H, KV, hd, f, qk_norm=False)
    W = {k: stored(v, "F32") for k, v in w.items()}
    windows = [window if t == "sliding_attention" else None for t in layer_types]
    inv_freqs = [llama_inv_freq(theta, hd, None)] * L
    model = lambda caps: gemma_forward(W, L, H, KV, hd, eps, scalar ** -0.5, windows, inv_freqs, False, *caps)
    forward = model((attn_cap, final_cap))

    check_reference(name, forward, encode, 0, windows)
    ids = [encode(TEXTS[0])]
    with torch.no_grad():
        logits = forward(ids, [len(ids[0])])["logits"]
        print_difference("without the attention softcap", logits, model((None, final_cap))(ids, [len(ids[0])])["logits"])
        print_difference("without the final softcap", logits, model((attn_cap, None))(ids, [len(ids[0])])["logits"])
        print_difference("without the window", logits, gemma_forward(W, L, H, KV, hd, eps, scalar ** -0.5, [None] * L, inv_freqs,
                                                                     False, attn_cap, final_cap)(ids, [len(ids[0])])["logits"])
    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy_ids(forward, encode(TEXTS[0]), 12)}}
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=0, extra=extra)


# Gemma 3 (model_type gemma3_text): Gemma 2's layers plus q_norm/k_norm, no softcaps by default.
# configuration_gemma3.py turns the legacy keys into rope_parameters per layer type: rope_scaling and
# rope_theta go to "full_attention"; "sliding_attention" gets rope_type "default" with
# rope_local_base_freq: the local layers are not scaled. layer_types is written explicitly (the
# default pattern, sliding unless (i + 1) % sliding_window_pattern == 0, with pattern 3 here, so
# sliding_window_pattern 3 is written too for loaders that still read it).
def make_gemma3(name="tiny-gemma3", seed=54):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, vocab = sentencepiece_bpe_tokenizer(CORPUS, 60)
    V, d, L, H, KV, hd, f, eps = len(vocab), 32, 3, 4, 2, 16, 48, 1e-6
    window, scalar, pattern = 3, 16, 3
    theta, local_theta, scaling = 1000000.0, 10000.0, {"rope_type": "linear", "factor": 8.0}
    layer_types = ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(L)]
    cfg = {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "head_dim": hd, "hidden_activation": "gelu_pytorch_tanh", "max_position_embeddings": 64,
           "rms_norm_eps": eps, "rope_theta": theta, "rope_local_base_freq": local_theta, "rope_scaling": scaling,
           "attention_bias": False, "attention_dropout": 0.0, "query_pre_attn_scalar": scalar,
           "sliding_window": window, "sliding_window_pattern": pattern, "layer_types": layer_types,
           "attn_logit_softcapping": None, "final_logit_softcapping": None, "tie_word_embeddings": True,
           "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32"}
    w = gemma_weights(gen, V, d, L, H, KV, hd, f, qk_norm=True)
    W = {k: stored(v, "F32") for k, v in w.items()}
    windows = [window if t == "sliding_attention" else None for t in layer_types]
    local, glob = llama_inv_freq(local_theta, hd, None), llama_inv_freq(theta, hd, scaling)
    inv_freqs = [local if t == "sliding_attention" else glob for t in layer_types]
    model = lambda freqs: gemma_forward(W, L, H, KV, hd, eps, scalar ** -0.5, windows, freqs, True, None, None)
    forward = model(inv_freqs)

    check_reference(name, forward, encode, 0, windows)
    ids = [encode(TEXTS[0])]
    with torch.no_grad():
        logits = forward(ids, [len(ids[0])])["logits"]
        print_difference("local layers scaled too", logits, model([local / 8.0 if t == "sliding_attention" else glob
                                                                   for t in layer_types])(ids, [len(ids[0])])["logits"])
        print_difference("global layers unscaled", logits, model([local if t == "sliding_attention" else glob * 8.0
                                                                  for t in layer_types])(ids, [len(ids[0])])["logits"])
        print_difference("without the window", logits, gemma_forward(W, L, H, KV, hd, eps, scalar ** -0.5, [None] * L, inv_freqs,
                                                                     True, None, None)(ids, [len(ids[0])])["logits"])
    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy_ids(forward, encode(TEXTS[0]), 12)}}
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=0, extra=extra)


# ---- EmbeddingGemma (issue 46): Gemma3TextModel with use_bidirectional_attention, as a
# sentence-transformers folder (Transformer, mean Pooling, Dense, Dense, Normalize) ----
# configuration_gemma3.py: with use_bidirectional_attention the config's sliding_window becomes
# sliding_window // 2 + 1 (here 4 → 3). modeling_gemma3.py Gemma3TextModel.forward: the full layers'
# mask is create_causal_mask with or_mask_function True (every key), the sliding layers' is
# create_sliding_window_causal_mask or-ed with _bidirectional_window_overlay (|i - j| < window);
# padded keys stay hidden (the padding mask is and-ed after). No LM head: last_hidden_state is
# the final norm's output. sentence-transformers' Dense (models/Dense.py): linear (no bias here,
# as EmbeddingGemma's) then Identity; its weights in <path>/model.safetensors as linear.weight.
def bidirectional_allowed(B, T, lengths, window=None):
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = torch.ones(T, T, dtype=torch.bool) if window is None else (i - j).abs() < window
    allowed = allowed[None, None].repeat(B, 1, 1, 1)
    for b in range(B):
        allowed[b, :, :, lengths[b]:] = False
    return allowed


def make_embeddinggemma(name="tiny-embeddinggemma", seed=56, L=3, pattern=3):
    gen = torch.Generator().manual_seed(seed)
    tokenizer, encode, vocab = sentencepiece_bpe_tokenizer(CORPUS, 60)
    V, d, H, KV, hd, f, eps = len(vocab), 32, 4, 2, 16, 48, 1e-6
    config_window, scalar, wide = 4, 16, 64
    window = config_window // 2 + 1
    theta, local_theta = 1000000.0, 10000.0
    layer_types = ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(L)]
    cfg = {"architectures": ["Gemma3TextModel"], "model_type": "gemma3_text", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "head_dim": hd, "hidden_activation": "gelu_pytorch_tanh", "max_position_embeddings": 64,
           "rms_norm_eps": eps, "rope_theta": theta, "rope_local_base_freq": local_theta, "rope_scaling": None,
           "attention_bias": False, "attention_dropout": 0.0, "query_pre_attn_scalar": scalar,
           "sliding_window": config_window, "layer_types": layer_types, "use_bidirectional_attention": True,
           "attn_logit_softcapping": None, "final_logit_softcapping": None, "use_cache": True,
           "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32"}
    w = {k[len("model."):]: v for k, v in gemma_weights(gen, V, d, L, H, KV, hd, f, qk_norm=True).items()}
    dense = [rand(gen, wide, d), rand(gen, d, wide)]  # [out, in] each
    W = {k: stored(v, "F32") for k, v in w.items()}
    D = [stored(m, "F32") for m in dense]
    windows = [window if t == "sliding_attention" else None for t in layer_types]
    local, glob = llama_inv_freq(local_theta, hd, None), llama_inv_freq(theta, hd, None)
    inv_freqs = [local if t == "sliding_attention" else glob for t in layer_types]
    model = lambda allowed_of, wins: gemma_forward(W, L, H, KV, hd, eps, scalar ** -0.5, wins, inv_freqs, True, None,
                                                   None, allowed_of, prefix="")
    forward = model(bidirectional_allowed, windows)

    def embed(texts):  # Transformer → mean Pooling → Dense → Dense → Normalize: [B, d]
        ids, lengths = pad_batch([encode(t.strip()) for t in texts], 0)
        mask = torch.tensor([[1 if t < n else 0 for t in range(len(ids[0]))] for n in lengths])
        with torch.no_grad():
            x = st_pool(forward(ids, lengths)["hidden"][-1], mask, ["mean"])
            return st_normalize(x @ D[0].T @ D[1].T)

    ids = [encode(TEXTS[1])]
    with torch.no_grad():
        h = forward(ids, [len(ids[0])])["hidden"][-1]
        print_difference("causal (as a loader that ignores the flag)", h,
                         model(decoder_allowed, windows)(ids, [len(ids[0])])["hidden"][-1])
        print_difference("the config's window unhalved", h,
                         model(bidirectional_allowed, [config_window if x else None for x in windows])(ids, [len(ids[0])])["hidden"][-1])
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    write_json(os.path.join(folder, "config.json"), cfg)
    write_json(os.path.join(folder, "tokenizer.json"), tokenizer)
    write_json(os.path.join(folder, "tokenizer_config.json"), {"model_max_length": 64, "clean_up_tokenization_spaces": False})
    save_safetensors(os.path.join(folder, "model.safetensors"), w, "F32", {"format": "pt"})
    write_json(os.path.join(folder, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 4, "name": "4", "path": "4_Normalize", "type": "sentence_transformers.models.Normalize"}])
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    write_json(os.path.join(folder, "1_Pooling", "config.json"),
               {"word_embedding_dimension": d, **{ST_KEYS[m]: m == "mean" for m in ST_MODES}, "include_prompt": True})
    for k, m in enumerate(dense):
        sub = os.path.join(folder, "%d_Dense" % (k + 2))
        os.makedirs(sub, exist_ok=True)
        write_json(os.path.join(sub, "config.json"), {"in_features": m.shape[1], "out_features": m.shape[0], "bias": False,
                                                      "activation_function": "torch.nn.modules.linear.Identity"})
        save_safetensors(os.path.join(sub, "model.safetensors"), {"linear.weight": m}, "F32")
    write_json(os.path.join(folder, "sentence_bert_config.json"), {"max_seq_length": 64, "do_lower_case": False})
    tensor = lambda t: {"shape": list(t.shape), "data": flat(t)}
    encoded = {t: encode(t) for t in TEXTS}
    cases = []
    for texts in [TEXTS[:1], TEXTS[1:3]]:
        ids, lengths = pad_batch([encoded[t] for t in texts], 0)
        with torch.no_grad():
            r = forward(ids, lengths)
        cases.append({"texts": texts, "ids": ids, "lengths": lengths, "hidden_states": [tensor(x) for x in r["hidden"]],
                      "attentions": [tensor(a) for a in r["attn"]]})
    reference = {"tokens": encoded, "cases": cases, "window": window,
                 "embeddings": {"texts": TEXTS, "single": [tensor(embed([t])) for t in TEXTS], "batch": tensor(embed(TEXTS))}}
    write_json(os.path.join(folder, "reference.json"), reference)
    print(name, os.path.getsize(os.path.join(folder, "model.safetensors")), "bytes of weights")


# ---- Phi-3 (modeling_phi3.py: Phi3ForCausalLM), shaped like Phi-4-mini ----
# Fused qkv_proj (rows: the H query heads, then the KV key heads, then the KV value heads) and fused
# gate_up_proj (output chunked in two: gate first, then up; up · silu(gate)). partial_rotary_factor:
# RoPE on the first head_dim · factor columns of each head. LongRoPE (modeling_rope_utils.py,
# _compute_longrope_parameters): inv_freq = 1 / (ext · theta^(2i/dim)) with ext = long_factor when
# max(position_ids) + 1 > original_max_position_embeddings in this forward call
# (longrope_frequency_update), short_factor otherwise; cos and sin × attention_factor =
# sqrt(1 + ln(factor) / ln(original_max_position_embeddings)), factor = max_position_embeddings /
# original_max_position_embeddings (no explicit factor in rope_scaling).
def make_phi3(name="tiny-phi3", seed=55):
    gen = torch.Generator().manual_seed(seed)
    # Trained on the texts too, so that each of them is shorter than original_max_position_embeddings.
    tokenizer, encode, eos = gpt2_tokenizer(CORPUS + TEXTS, 120)
    V = len(tokenizer["model"]["vocab"]) + 1
    d, L, H, KV, f, eps, theta, partial = 32, 2, 4, 2, 48, 1e-5, 10000.0, 0.5
    P, P0 = 64, 16
    hd = d // H
    rdim = int(hd * partial)
    short, long = [1.5, 3.0], [4.0, 20.0]  # rdim / 2 = 2 values each
    cfg = {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "vocab_size": V, "hidden_size": d,
           "intermediate_size": f, "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV,
           "hidden_act": "silu", "max_position_embeddings": P, "original_max_position_embeddings": P0,
           "rms_norm_eps": eps, "rope_theta": theta, "partial_rotary_factor": partial,
           "rope_scaling": {"type": "longrope", "short_factor": short, "long_factor": long},
           "sliding_window": None, "attention_bias": False, "attention_dropout": 0.0, "resid_pdrop": 0.0,
           "embd_pdrop": 0.0, "tie_word_embeddings": True, "bos_token_id": eos, "eos_token_id": eos,
           "pad_token_id": eos, "torch_dtype": "float32"}
    w = {"model.embed_tokens.weight": rand(gen, V, d)}
    for l in range(L):
        p = "model.layers.%d." % l
        w[p + "self_attn.qkv_proj.weight"] = rand(gen, H * hd + 2 * KV * hd, d)
        w[p + "self_attn.o_proj.weight"] = rand(gen, d, H * hd)
        w[p + "mlp.gate_up_proj.weight"] = rand(gen, 2 * f, d)
        w[p + "mlp.down_proj.weight"] = rand(gen, d, f)
        w[p + "input_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
        w[p + "post_attention_layernorm.weight"] = 1 + rand(gen, d, std=0.1)
    w["model.norm.weight"] = 1 + rand(gen, d, std=0.1)
    W = {k: stored(v, "F32") for k, v in w.items()}
    exponents = torch.arange(0, rdim, 2, dtype=F64) / rdim
    inv_short = 1.0 / (torch.tensor(short, dtype=F64) * theta ** exponents)
    inv_long = 1.0 / (torch.tensor(long, dtype=F64) * theta ** exponents)
    attention_factor = math.sqrt(1 + math.log(P / P0) / math.log(P0))

    def forward(ids, lengths, inv_freq=None):  # inv_freq: only to force one set of factors in a check
        ids = torch.tensor(ids)
        B, T = ids.shape
        x = W["model.embed_tokens.weight"][ids]
        if inv_freq is None:
            inv_freq = inv_long if T > P0 else inv_short
        cos, sin = rope_cos_sin(T, inv_freq, attention_factor)
        allowed = decoder_allowed(B, T, lengths)  # sliding_window null
        hidden, attns = [x], []
        for l in range(L):
            p = "model.layers.%d." % l
            a = rms_norm(x, W[p + "input_layernorm.weight"], eps)
            q, k, v = (a @ W[p + "self_attn.qkv_proj.weight"].T).split([H * hd, KV * hd, KV * hd], dim=-1)
            q = apply_rope(split_heads(q, H, hd), cos, sin)
            k = apply_rope(split_heads(k, KV, hd), cos, sin)
            o, probs = eager_attention(q, k, split_heads(v, KV, hd), hd ** -0.5, allowed)
            x = x + o @ W[p + "self_attn.o_proj.weight"].T
            m = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
            gate, up = (m @ W[p + "mlp.gate_up_proj.weight"].T).chunk(2, dim=-1)
            x = x + (up * silu(gate)) @ W[p + "mlp.down_proj.weight"].T
            attns.append(probs)
            hidden.append(x)
        x = rms_norm(x, W["model.norm.weight"], eps)
        hidden[-1] = x
        return {"logits": x @ W["model.embed_tokens.weight"].T, "hidden": hidden, "attn": attns}

    assert max(len(encode(t)) for t in TEXTS) < P0  # the standard cases use the short factors
    check_reference(name, forward, encode, eos, [None] * L)
    long_ids = encode(" ".join(CORPUS[:3]))[:24]
    assert len(long_ids) > P0 + 3
    with torch.no_grad():
        long_logits = forward([long_ids], [len(long_ids)])["logits"]
        print_difference("long ids with the short factors", long_logits, forward([long_ids], [len(long_ids)], inv_short)["logits"])
    extra = {"greedy": {"prompt": TEXTS[0], "ids": greedy_ids(forward, encode(TEXTS[0]), 12)},
             "long": {"ids": long_ids, "logits": {"shape": list(long_logits.shape), "data": flat(long_logits)}}}
    write_fixture(name, cfg, tokenizer, w, "F32", encode, forward, pad_id=eos, extra=extra)


FAMILIES = {"tiny-qwen2": make_qwen2, "tiny-qwen3": make_qwen3, "tiny-gemma2": make_gemma2,
            "tiny-gemma3": make_gemma3, "tiny-phi3": make_phi3, "tiny-embeddinggemma": make_embeddinggemma,
            # EmbeddingGemma's own layout, a global layer every sixth (llama.cpp's gemma-embedding
            # fixes that pattern: this one's GGUF twin, scripts/make-gguf-fixtures.py).
            "tiny-embeddinggemma-6": lambda: make_embeddinggemma("tiny-embeddinggemma-6", 57, L=6, pattern=6),
            "tiny-smollm3": make_smollm3, "tiny-granite": make_granite,
            "tiny-olmo2": make_olmo2,
            "tiny-modernbert": make_modernbert}


# Llama 3.1's rope_scaling shape, sized so that this model's 4 frequencies (wavelengths 6.3, 63,
# 628, 6283 tokens) fall in all three regimes: kept (< 16), blended (16 .. 64), divided (> 64).
LLAMA3_SCALING = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 64}


if __name__ == "__main__":
    import sys
    if sys.argv[1:] and all(a in EMBEDDERS for a in sys.argv[1:]):  # only the sentence embedders (issue 33)
        for a in sys.argv[1:]:
            EMBEDDERS[a]()
        sys.exit(0)
    if sys.argv[1:] == ["tiny-mistral"]:  # only the Mistral fixture (added later than the others)
        make_llama("tiny-mistral", sliding_window=3, seed=31)
        sys.exit(0)
    if sys.argv[1:] == ["tiny-llama-rope-scaling"]:  # only the rope_scaling fixture (later still)
        make_llama("tiny-llama-rope-scaling", seed=37, rope_scaling=LLAMA3_SCALING)
        sys.exit(0)
    if sys.argv[1:] == ["tiny-smollm"]:  # only the SmolLM-style Llama (issue 46)
        make_llama("tiny-smollm", seed=46, smollm=True)
        sys.exit(0)
    if sys.argv[1:] == ["tiny-llama-bf16"]:  # only the bfloat16 Llama (added later still)
        make_llama("tiny-llama-bf16", seed=41, dtype="BF16")
        sys.exit(0)
    if len(sys.argv) == 2 and sys.argv[1] in FAMILIES:  # one of the later families alone: tiny-qwen2, tiny-gemma3, …
        FAMILIES[sys.argv[1]]()
        sys.exit(0)
    torch.manual_seed(0)
    make_gpt2()
    make_bert()
    make_distilbert()
    make_llama()
    make_roberta()
    make_llama("tiny-mistral", sliding_window=3, seed=31)
    make_llama("tiny-llama-rope-scaling", seed=37, rope_scaling=LLAMA3_SCALING)
    make_llama("tiny-llama-bf16", seed=41, dtype="BF16")
    for make in FAMILIES.values():
        make()
    for make in EMBEDDERS.values():
        make()
