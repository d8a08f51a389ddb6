#!/usr/bin/env python3
"""The token ids a Hugging Face tokenizer gives for each pre-tokenizer llama.cpp's converter
names in tokenizer.ggml.pre (issue 46), computed here without the tokenizers library: the Hub's
tokenizer.json of a model of each kind (Llama 3, Qwen2, SmolLM, Phi-4-mini, Mistral Nemo,
Seed-Coder, GPT-2) is a pre-tokenizer — a Split on a pattern (behavior Isolated: the matches and
the text between them are the pieces), or Digits (individual_digits: each \\p{N} its own piece)
— then ByteLevel (use_regex: GPT-2's own split too), then byte-level BPE (merges by rank;
ignore_merges: a piece in the vocabulary is one token). The patterns are those tokenizer.json
files' (llama.cpp's llama-vocab.cpp quotes each as the "original regex from tokenizer.json"),
matched with the `regex` module (Unicode classes, scoped (?i:…)), as Oniguruma/Rust regex do.

One byte-level BPE vocabulary (trained here on a small corpus) serves every kind: a kind
changes the pieces, and so the tokens. Writes tests/fixtures/gguf/pretokenizers.json:
  { tokens: [...], merges: ["a b", ...], texts: [...],
    kinds: { kind: { ignore_merges, ids: [[...] per text] } },
    names: { tokenizer.ggml.pre value: kind } }   (names: llama-vocab.cpp's grouping)
Run: apt-get install python3-regex; /usr/bin/python3 scripts/make-gguf-pretokenizer-fixtures.py
"""
import json
import os

import regex

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "gguf", "pretokenizers.json")

GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
          r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
         r"|\s*[\r\n]+|\s+(?!\S)|\s+")
UPPER, LOWER = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
CONTRACTIONS = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)"
O200K = (rf"[^\r\n\p{{L}}\p{{N}}]?{UPPER}*{LOWER}+{CONTRACTIONS}?|[^\r\n\p{{L}}\p{{N}}]?{UPPER}+{LOWER}*{CONTRACTIONS}?"
         r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
TEKKEN = (rf"[^\r\n\p{{L}}\p{{N}}]?{UPPER}*{LOWER}+|[^\r\n\p{{L}}\p{{N}}]?{UPPER}+{LOWER}*"
          r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
SEED_CODER = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+"
              r"|\s*[\r\n]+|\s+(?!\S)|\s+")

# kind → (its pre-tokenizer steps before the byte-level one, ByteLevel's use_regex, ignore_merges)
KINDS = {
    "gpt2": ([], True, False),  # GPT-2: ByteLevel alone
    "llama3": ([("split", LLAMA3)], False, True),  # Llama 3
    "qwen2": ([("split", QWEN2)], False, False),  # Qwen2/2.5/3
    "smollm": ([("digits", None)], True, False),  # SmolLM, StarCoder: Digits, then ByteLevel
    "gpt4o": ([("split", O200K)], False, False),  # Phi-4-mini (o200k)
    "tekken": ([("split", TEKKEN)], False, True),  # Mistral Nemo
    "seed-coder": ([("split", SEED_CODER)], False, False),  # Seed-Coder
}

# llama-vocab.cpp: each tokenizer.ggml.pre value and the pre-tokenizer it selects (its
# LLAMA_VOCAB_PRE_TYPE), for the values whose regexes are the kinds above.
NAMES = {
    **{n: "gpt2" for n in ["default", "gpt-2", "gpt2", "phi-2", "mpt", "olmo", "jais", "trillion", "exaone4",
                           "a.x-4.0", "mellum", "gigachat", "granite-docling"]},
    **{n: "llama3" for n in ["llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
                             "smaug-bpe", "dbrx"]},
    **{n: "qwen2" for n in ["qwen2", "deepseek-r1-qwen", "megrez", "stablelm2", "kormo", "hunyuan", "grok-2",
                            "solar-open"]},
    **{n: "smollm" for n in ["smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b",
                             "mellum2"]},
    **{n: "gpt4o" for n in ["gpt-4o", "llama4", "kanana2", "minimax-m2"]},
    "tekken": "tekken",
    "seed-coder": "seed-coder",
}

CORPUS = [
    "The quick brown fox jumps over the lazy dog. It's the dog's day, isn't it?",
    "Numbers: 1234567890, 3.14159, 2026-11-28, 1,000,000 and 42 again 123 123 12 1.",
    "Hello world! HELLO WORLD! HelloWorld camelCaseWords and snake_case_words, URLs like a/b/c.",
    "Héllo wörld: déjà vu, naïve café. Привет, мир! Γειά σου κόσμε. 你好，世界。こんにちは世界。",
    "مرحبا بالعالم ١٢٣ ٤٥٦. नमस्ते दुनिया १२३. 안녕하세요 세상.",
    "Emoji 🎉🎉 👍🏽 👨‍👩‍👧 ❤️ 🙂 and symbols ©®™ ∑∫√ → ← ≠ ≤ ≥.",
    "    indented code\n\tdef f(x):\n\t\treturn x ** 2  # square\n\n\nend   \n",
    "I'LL BE THERE, YOU'RE RIGHT, WE'VE SEEN IT, they'd say; O'Neil's 'quote'.",
]
TEXTS = [
    "Héllo wörld! Привет, мир. 你好世界 こんにちは 안녕하세요 مرحبا ١٢٣٤ नमस्ते १२३",
    "Emoji: 🎉👍🏽👨‍👩‍👧 ❤️🙂 x²³ ½ Ⅻ ©™ → ≠",
    "  two spaces,\tа tab\nnewline\n\n\nthree newlines   trailing spaces   \n  ",
    "I'LL don't YOU'RE we've O'Neil's camelCaseWord HTTPServer 1234567 3.14159 2026-11-28",
    "def f(x):\n    return x ** 2  # square\r\n\u00a0nbsp\u3000ideographic",
]


def bytes_to_unicode():
    """GPT-2's byte → printable character map."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


BYTE = bytes_to_unicode()


def isolated(pieces, pattern):
    """Split(pattern, behavior Isolated) on each piece: every match, and the text between matches."""
    out = []
    for piece in pieces:
        at = 0
        for m in regex.finditer(pattern, piece):
            if m.start() > at:
                out.append(piece[at:m.start()])
            if m.end() > m.start():
                out.append(m.group(0))
            at = m.end()
        if at < len(piece):
            out.append(piece[at:])
    return out


def pieces_of(text, kind):
    steps, use_regex, _ = KINDS[kind]
    pieces = [text]
    for step, pattern in steps:
        pieces = isolated(pieces, r"\p{N}" if step == "digits" else pattern)
    if use_regex:
        pieces = isolated(pieces, GPT2)
    return ["".join(BYTE[b] for b in p.encode("utf-8")) for p in pieces]


def train(corpus, count):
    """Byte-level BPE merges over every kind's pieces of the corpus (most frequent pair first,
    ties by the pair), so that the vocabulary holds tokens across each kind's boundaries."""
    words = {}
    for line in corpus:
        for kind in KINDS:
            for p in pieces_of(line, kind):
                words[tuple(p)] = words.get(tuple(p), 0) + 1
    merges = []
    for _ in range(count):
        pairs = {}
        for w, n in words.items():
            for pair in zip(w, w[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], tuple(-ord(c) for c in kv[0][0] + "\0" + kv[0][1])))[0]
        merges.append(best)
        joined = {}
        for w, n in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            joined[tuple(out)] = joined.get(tuple(out), 0) + n
        words = joined
    return merges


def bpe(piece, ranks, vocab, ignore_merges):
    """One piece's tokens: the lowest-ranked adjacent pair merged first (leftmost on ties)."""
    if ignore_merges and piece in vocab:
        return [piece]
    symbols = list(piece)
    while len(symbols) > 1:
        best = min(range(len(symbols) - 1), key=lambda i: (ranks.get((symbols[i], symbols[i + 1]), 1 << 30), i))
        if (symbols[best], symbols[best + 1]) not in ranks:
            break
        symbols[best:best + 2] = [symbols[best] + symbols[best + 1]]
    return symbols


def main():
    merges = train(CORPUS + TEXTS, 600)
    tokens = list(BYTE.values())
    for a, b in merges:
        if a + b not in tokens:
            tokens.append(a + b)
    vocab = {t: i for i, t in enumerate(tokens)}
    ranks = {pair: i for i, pair in enumerate(merges)}
    kinds = {}
    for kind, (_, _, ignore) in KINDS.items():
        ids = [[vocab[t] for p in pieces_of(text, kind) for t in bpe(p, ranks, vocab, ignore)] for text in TEXTS]
        kinds[kind] = {"ignore_merges": ignore, "ids": ids}
    # Each kind must tokenize the texts its own way, or the test could not tell them apart.
    seen = {}
    for kind, k in kinds.items():
        key = json.dumps(k["ids"])
        assert key not in seen, (kind, seen.get(key))
        seen[key] = kind
    out = {"tokens": tokens, "merges": ["%s %s" % m for m in merges], "texts": TEXTS, "kinds": kinds, "names": NAMES}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(OUT, len(tokens), "tokens,", len(merges), "merges")


if __name__ == "__main__":
    main()
