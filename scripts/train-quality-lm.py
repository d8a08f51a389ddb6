#!/usr/bin/env python3
"""Trains the small GPT-2 of tests/fixtures/hf/trained-gpt2-docs/ (issue 34: quantization quality).

The random-weight fixtures of tests/fixtures/hf/ have top logits too close together for greedy
agreement between a quantized and a float model to mean anything. This script trains a real
(if small) causal language model, so tests/quantized-quality.test.js can measure what Q8_0 and
Q4_0 cost on logits a trained model is confident about.

  - Text: this project's own README.md and docs/*.md at commit CORPUS_COMMIT (MIT, our own
    work): the last 10% of each file (cut at a line start) is held out, the rest trained on.
  - Tokenizer: byte-level, 256 tokens (GPT-2's byte-to-symbol table, no merges, no specials).
  - Model: GPT-2's architecture (modeling_gpt2.py: pre-norm blocks, fused c_attn, Conv1D
    weights [in, out], gelu_new, learned positions, LM head tied to wte), 4 layers, d_model 96,
    4 heads, 128 positions: 484,416 float32 parameters (1.9 MB).
  - Training: AdamW (no dropout), a fixed number of steps, one thread, seeded.

Writes the Hugging Face folder (config.json, generation_config.json, tokenizer.json,
tokenizer_config.json, model.safetensors in float32 with GPT2LMHeadModel's names) and
reference.json: a float64 forward of the saved weights (the same code in float64) for one
prompt (full logit rows at a few positions), and the held-out prompts the test measures with,
with their float64 greedy continuations. Then the Q8_0 GGUF of the checkpoint, through
scripts/make-gguf-fixtures.py (`--gguf-only`: just that, from the saved folder).

Run with Debian's python3-torch (7.5 minutes of training on one busy core, 1.5 more for the
losses and references); CI only reads the output:
    /usr/bin/python3 scripts/train-quality-lm.py
"""
import importlib.util
import math
import os
import subprocess
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
NAME = "trained-gpt2-docs"
OUT = os.path.join(ROOT, "tests", "fixtures", "hf", NAME)

# The model and its training, all in one place.
D, LAYERS, HEADS, POSITIONS, VOCAB = 96, 4, 4, 128, 256
# (0.65 s a step on one busy core, most of it in attention's batched products: reference BLAS.)
STEPS, BATCH, LR, WARMUP, WEIGHT_DECAY = int(os.environ.get("STEPS", 680)), 16, 4e-3, 50, 0.1
SEED = 34
CORPUS_COMMIT = "7dcb0bac442145e29e63832321cda8eab0a627e4"  # the docs the model was trained on
PROMPT_BYTES, NEW_TOKENS, PROMPTS = 64, 32, 8


def load_hf_script():
    """scripts/make-hf-fixtures.py as a module: its safetensors writer, byte table and JSON style."""
    spec = importlib.util.spec_from_file_location("make_hf_fixtures", os.path.join(HERE, "make-hf-fixtures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hf = load_hf_script()


# ---- text and tokens ----
def read_corpus():
    """(train, held-out) byte strings, and the files: README.md and docs/*.md as they stand at
    CORPUS_COMMIT (read from git, so the docs may change and the script still makes this model),
    each split at the last line start before 90% of it."""
    git = lambda *args: subprocess.run(["git", "-C", ROOT, *args], check=True, capture_output=True).stdout
    listed = git("ls-tree", "--name-only", CORPUS_COMMIT, "README.md", "docs/").decode().split()
    files = ["README.md"] + sorted(f for f in listed if f.startswith("docs/") and f.endswith(".md"))
    train, held = [], []
    for path in files:
        data = git("show", "%s:%s" % (CORPUS_COMMIT, path))
        cut = data.rfind(b"\n", 0, int(len(data) * 0.9)) + 1
        train.append(data[:cut])
        held.append(data[cut:])
    return train, held, files


BYTE_MAP, BYTE_ORDER = hf.bytes_to_unicode()  # byte → symbol; the vocabulary's order of bytes
BYTE_TO_ID = {b: i for i, b in enumerate(BYTE_ORDER)}


def encode(data):
    """Byte-level BPE with no merges: one token per byte (the pre-tokenizer's split changes nothing)."""
    return [BYTE_TO_ID[b] for b in data]


def decode(ids):
    return bytes(BYTE_ORDER[i] for i in ids)


def tokenizer_json():
    vocab = {BYTE_MAP[b]: i for i, b in enumerate(BYTE_ORDER)}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": []},
    }


# ---- GPT-2, with its parameters under GPT2LMHeadModel's names and shapes ----
def linear(x, w, b=None):
    """x @ w + b for x [B, T, in], w [in, out] (Conv1D's layout). In float32 as a 1×1 convolution:
    Debian's torch multiplies matrices with the reference BLAS (~3 GFLOP/s on one core) but
    convolves with oneDNN (~35), which makes the training ten times faster. float64 (the
    reference forward) multiplies."""
    if x.dtype != torch.float32:
        return x @ w + (0 if b is None else b)
    y = torch.nn.functional.conv1d(x.transpose(1, 2), w.T.unsqueeze(2), b)
    return y.transpose(1, 2)


class GPT2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        f = 4 * D
        shapes = {"wte.weight": (VOCAB, D), "wpe.weight": (POSITIONS, D)}
        for l in range(LAYERS):
            p = "h.%d." % l
            shapes.update({p + "ln_1.weight": (D,), p + "ln_1.bias": (D,),
                           p + "attn.c_attn.weight": (D, 3 * D), p + "attn.c_attn.bias": (3 * D,),
                           p + "attn.c_proj.weight": (D, D), p + "attn.c_proj.bias": (D,),
                           p + "ln_2.weight": (D,), p + "ln_2.bias": (D,),
                           p + "mlp.c_fc.weight": (D, f), p + "mlp.c_fc.bias": (f,),
                           p + "mlp.c_proj.weight": (f, D), p + "mlp.c_proj.bias": (D,)})
        shapes.update({"ln_f.weight": (D,), "ln_f.bias": (D,)})
        self.names = list(shapes)
        self.w = torch.nn.ParameterDict({k.replace(".", "_"): torch.nn.Parameter(self.initial(k, s)) for k, s in shapes.items()})

    @staticmethod
    def initial(name, shape):
        """GPT2PreTrainedModel._init_weights: normal(0, 0.02), LayerNorm 1/0, biases 0, and the
        residual projections (c_proj) scaled by 1/sqrt(2·layers)."""
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
            return torch.ones(shape)
        if name.endswith("bias"):
            return torch.zeros(shape)
        std = 0.02 / math.sqrt(2 * LAYERS) if name.endswith("c_proj.weight") else 0.02
        return torch.randn(shape) * std

    def p(self, name):
        return self.w[name.replace(".", "_")]

    def forward(self, ids):
        B, T = ids.shape
        x = self.p("wte.weight")[ids] + self.p("wpe.weight")[:T][None]
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        hd = D // HEADS
        for l in range(LAYERS):
            p = "h.%d." % l
            a = hf.layer_norm(x, self.p(p + "ln_1.weight"), self.p(p + "ln_1.bias"), 1e-5)
            q, k, v = linear(a, self.p(p + "attn.c_attn.weight"), self.p(p + "attn.c_attn.bias")).split(D, dim=2)
            q, k, v = (t.view(B, T, HEADS, hd).transpose(1, 2) for t in (q, k, v))
            scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
            scores = scores.masked_fill(~causal, torch.finfo(scores.dtype).min)
            o = scores.softmax(-1) @ v
            o = o.transpose(1, 2).reshape(B, T, D)
            x = x + linear(o, self.p(p + "attn.c_proj.weight"), self.p(p + "attn.c_proj.bias"))
            m = hf.layer_norm(x, self.p(p + "ln_2.weight"), self.p(p + "ln_2.bias"), 1e-5)
            m = hf.gelu_new(linear(m, self.p(p + "mlp.c_fc.weight"), self.p(p + "mlp.c_fc.bias")))
            x = x + linear(m, self.p(p + "mlp.c_proj.weight"), self.p(p + "mlp.c_proj.bias"))
        x = hf.layer_norm(x, self.p("ln_f.weight"), self.p("ln_f.bias"), 1e-5)
        return linear(x, self.p("wte.weight").T)  # the LM head, tied to the word embeddings

    def named_weights(self):
        return {k: self.p(k).detach() for k in self.names}


# ---- training ----
def windows(stream, count, generator):
    starts = torch.randint(0, len(stream) - POSITIONS - 1, (count,), generator=generator)
    batch = torch.stack([stream[s:s + POSITIONS + 1] for s in starts.tolist()])
    return batch[:, :-1], batch[:, 1:]


def mean_loss(model, stream):
    """Cross-entropy (nats per byte) over every next-byte prediction of non-overlapping windows."""
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for s in range(0, len(stream) - 1, POSITIONS):
            chunk = stream[s:s + POSITIONS + 1]
            logits = model(chunk[None, :-1])
            total += torch.nn.functional.cross_entropy(logits[0], chunk[1:], reduction="sum").item()
            n += len(chunk) - 1
    model.train()
    return total / n


def learning_rate(step):
    """Linear warm-up, then a cosine down to a tenth."""
    if step < WARMUP:
        return LR * (step + 1) / WARMUP
    t = (step - WARMUP) / max(1, STEPS - WARMUP)
    return LR * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def train(model, train_stream):
    decay = [p for k, p in model.w.items() if p.dim() == 2]
    rest = [p for k, p in model.w.items() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY}, {"params": rest, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95))
    generator = torch.Generator().manual_seed(SEED)
    started = time.time()
    for step in range(STEPS):
        for group in opt.param_groups:
            group["lr"] = learning_rate(step)
        x, y = windows(train_stream, BATCH, generator)
        loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 200 == 0 or step == STEPS - 1:
            print("step %5d  batch loss %.3f  %.0f s" % (step, loss.item(), time.time() - started), flush=True)
    return time.time() - started


# ---- the reference: the saved (float32) weights, run in float64 ----
def reference(weights, held):
    model64 = GPT2().double()
    with torch.no_grad():
        for k, v in weights.items():
            model64.p(k).copy_(v.double())
    model64.eval()

    def logits(ids):
        with torch.no_grad():
            return model64(torch.tensor([ids]))[0]

    # One prompt from the training text, full logit rows at a few positions.
    text = "Quantized models: the weights are stored as blocks of 32 values with one scale."
    ids = encode(text.encode())
    rows = logits(ids)
    positions = [0, 1, len(ids) // 2, len(ids) - 1]
    parity = {"text": text, "ids": ids, "positions": positions,
              "logits": [hf.flat(rows[t]) for t in positions]}

    # Held-out text: PROMPT_BYTES + NEW_TOKENS bytes of ASCII prose from a line start, one piece
    # from each of the first PROMPTS files that has one. The first PROMPT_BYTES are the prompt;
    # `ids` is the prompt and its float64 greedy continuation, `text_ids` the prompt and the
    # text's own next bytes.
    pieces = []
    for data in held:
        lines = [i + 1 for i in range(len(data) - 1) if data[i] == 10 and data[i + 1] not in b"\n`|#-<"]
        for s in lines:
            piece = data[s:s + PROMPT_BYTES + NEW_TOKENS]
            if len(piece) == PROMPT_BYTES + NEW_TOKENS and all(32 <= b < 127 for b in piece) and piece.count(b" ") >= 8:
                pieces.append(piece)
                break
    cases = []
    for piece in pieces[:PROMPTS]:
        ids = encode(piece[:PROMPT_BYTES])
        for _ in range(NEW_TOKENS):  # greedy, in float64
            ids.append(int(torch.argmax(logits(ids)[-1])))
        cases.append({"prompt": piece[:PROMPT_BYTES].decode(), "ids": ids, "text_ids": encode(piece),
                      "greedy": decode(ids[PROMPT_BYTES:]).decode("utf-8", "replace"), "text": piece[PROMPT_BYTES:].decode()})
    return parity, cases


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    train_parts, held_parts, files = read_corpus()
    train_stream = torch.tensor(encode(b"".join(train_parts)))
    held_stream = torch.tensor(encode(b"".join(held_parts)))
    print("text: %d training bytes, %d held out, from %d files" % (len(train_stream), len(held_stream), len(files)))

    model = GPT2()
    count = sum(p.numel() for p in model.parameters())
    print("parameters: %d (%d bytes as float32)" % (count, 4 * count))
    seconds = train(model, train_stream)
    train_loss, held_loss = mean_loss(model, train_stream), mean_loss(model, held_stream)
    print("trained %d steps in %.0f s: train loss %.4f, held-out loss %.4f (nats per byte)" % (STEPS, seconds, train_loss, held_loss))

    weights = model.named_weights()
    os.makedirs(OUT, exist_ok=True)
    cfg = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": VOCAB, "n_positions": POSITIONS,
           "n_embd": D, "n_layer": LAYERS, "n_head": HEADS, "n_inner": None, "activation_function": "gelu_new",
           "layer_norm_epsilon": 1e-5, "tie_word_embeddings": True, "scale_attn_weights": True,
           "torch_dtype": "float32"}
    hf.write_json(os.path.join(OUT, "config.json"), cfg)
    hf.write_json(os.path.join(OUT, "generation_config.json"), {"do_sample": False})
    hf.write_json(os.path.join(OUT, "tokenizer.json"), tokenizer_json())
    hf.write_json(os.path.join(OUT, "tokenizer_config.json"), {"model_max_length": POSITIONS, "clean_up_tokenization_spaces": False})
    saved = {"transformer." + k: v for k, v in weights.items()}  # as GPT2LMHeadModel saves (lm_head tied: absent)
    hf.save_safetensors(os.path.join(OUT, "model.safetensors"), saved, "F32", {"format": "pt"})

    parity, cases = reference(weights, held_parts)
    training = {"commit": CORPUS_COMMIT, "files": files, "train_bytes": len(train_stream), "held_out_bytes": len(held_stream),
                "parameters": count, "steps": STEPS, "batch": BATCH, "seed": SEED, "seconds": round(seconds),
                "train_loss": round(train_loss, 4), "held_out_loss": round(held_loss, 4)}
    hf.write_json(os.path.join(OUT, "reference.json"), {"training": training, "parity": parity, "held_out": cases})
    for c in cases:
        print(repr(c["prompt"]), "→", repr(c["greedy"]), "(held out:", repr(c["text"]) + ")")

    write_gguf()


def write_gguf():
    """tests/fixtures/gguf/trained-gpt2-docs-q8_0.gguf: the checkpoint as convert_hf_to_gguf.py
    --outtype q8_0 writes it (every matrix and the tied embeddings Q8_0, the position table
    float32), without tokenizer metadata (the tokenizer has no end-of-text token to name)."""
    spec = importlib.util.spec_from_file_location("make_gguf_fixtures", os.path.join(HERE, "make-gguf-fixtures.py"))
    gguf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gguf)
    gguf.convert(NAME, NAME + "-q8_0.gguf", "Q8_0", keep=("position_embd.weight",), tokenizer=False)


if __name__ == "__main__":
    if sys.argv[1:] == ["--gguf-only"]:  # the GGUF again from the saved folder, without training
        write_gguf()
    else:
        main()
