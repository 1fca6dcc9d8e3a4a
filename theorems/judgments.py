"""A judgment of the trusted checker in words, made from its fields alone.

An obligation carries two things: the judgment the checker must discharge
(data, in :mod:`solvers.trusted`'s vocabulary) and ``words`` a claim wrote
beside it.  The words are free text: nothing checks that they say what the
judgment says.  :func:`words` renders the judgment itself, so what the
terminal shows about a discharged obligation follows the data the checker
discharged — change a length in the judgment and the words change with it::

    >>> words({"judgment": "solves", "model": "kernel", "head": "any", "rank": 1, "alphabet": "all",
    ...        "m": [1, 1], "lengths": [3], "target": "min-ip", "tolerance": "1/2"})
    'a head of feature rank <= 1 solves every sequence of length 3 over {0,1}^1 with error < 1/2'

Every judgment name the checker emits has a rendering here (docs/certificates.md,
"Judgments and obligations"); each reads exactly the fields the checker
writes.  A judgment this module does not know — another name, a field more
or less, a value of an unexpected type — is rendered generically, every
field shown (``name{field value, ...}``), never dropped: :func:`known` tells
the two apart.  Digests are shortened to ``sha256:`` and their first 12 hex
digits.  Pure: no import beyond the standard library.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction

__all__ = ["words", "known"]

TARGET = "min-ip"  # the task of every Min-IP judgment: T(X) = min_j <x_j, q>; another target is said


class _Unknown(Exception):
    """A judgment (or one of its fields) this module has no rendering for: render it generically."""


# ------------------------------------------------------------------ values


def _number(value) -> str:
    """An exact number as the checker writes it (an int, ``"p/q"``, a Fraction), else unknown."""
    if isinstance(value, bool):
        raise _Unknown
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, str):
        try:
            Fraction(value)
        except (ValueError, ZeroDivisionError):
            raise _Unknown from None
        if "/" in value or value.lstrip("-").isdigit():
            return value
    raise _Unknown


def _int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Unknown
    return value


def _digest(value) -> str:
    if not (isinstance(value, str) and value.startswith("sha256:") and len(value) > 19):
        raise _Unknown
    return value[:19]


def _data_digest(value) -> str:
    """The checker's ``digest`` of data already in its canonical form (ints, ``"p/q"``), shortened: how
    words name data too long to say (the cases of ``kernel-row-infeasible``)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _ints(value) -> list[int]:
    if not isinstance(value, list) or not value:
        raise _Unknown
    return [_int(v) for v in value]


def _lengths(value) -> str:
    """"length 3", "length 1 or 2", "every length 1..7"."""
    lengths = _ints(value)
    if len(lengths) == 1:
        return f"length {lengths[0]}"
    if len(lengths) >= 3 and lengths == list(range(lengths[0], lengths[-1] + 1)):
        return f"every length {lengths[0]}..{lengths[-1]}"
    return "length " + ", ".join(map(str, lengths[:-1])) + f" or {lengths[-1]}"


def _m_range(value) -> tuple[int, int | None]:
    if not (isinstance(value, list) and len(value) == 2):
        raise _Unknown
    low = _int(value[0])
    high = None if value[1] is None else _int(value[1])
    return low, high


def _over(m, alphabet="all") -> str:
    """The sequences' tokens: "over {0,1}^4", "over {0,1}^m for every m <= 200", "... every m >= 4"."""
    if isinstance(m, int) and not isinstance(m, bool):
        space, where = f"{{0,1}}^{m}", ""
    else:
        low, high = _m_range(m)
        if high == low:
            space, where = f"{{0,1}}^{low}", ""
        elif high is None:
            space, where = "{0,1}^m", f" for every m >= {low}"
        elif low == 1:
            space, where = "{0,1}^m", f" for every m <= {high}"
        else:
            space, where = "{0,1}^m", f" for every m in {low}..{high}"
    if alphabet != "all":
        space = f"the tokens {_digest(alphabet)} of {space}"
    return f"over {space}{where}"


def _error(tolerance) -> str:
    text = _number(tolerance)
    return "with error exactly 0" if Fraction(text) == 0 else f"with error < {text}"


def _target(judgment: dict) -> str:
    """Nothing for Min-IP (the task every such judgment is about), else the target named."""
    target = judgment["target"]
    if not isinstance(target, str):
        raise _Unknown
    return "" if target == TARGET else f" (target {target})"


def _eps(value) -> str:
    return f"eps = {_number(value)}"


# ------------------------------------------------------------------- heads


def _head(model, rank, head) -> tuple[str, bool]:
    """(the head or heads a judgment is about, whether they are several) for the models the checker names.

    ``head`` "any" (an existence: "a head of feature rank <= 1"), a digest (one head: "the head
    sha256:... (feature rank <= 1)") or None (after "no": "head of feature rank <= 1").
    """
    if not isinstance(model, str):
        raise _Unknown
    ranked = "" if rank == "any" else f"feature rank <= {_int(rank)}"
    several = False
    if model == "kernel":
        noun, quality, tail = "head", f"of {ranked or 'any feature rank'}", ""
    elif model in ("kernel-positional", "kernel-causal"):
        noun = "causal head" if model == "kernel-causal" else "head"
        quality, tail = f"of {ranked or 'any feature rank'}", " with position-dependent maps"
    elif model == "score-statistic":
        noun, quality, tail = "head", "whose weight and readout depend on (|q|, <q,x>) only", f", of {ranked}" if ranked else ""
    elif model == "threshold-polynomial":
        noun, quality, tail = "head", f"of {ranked or 'any feature rank'}", " with a threshold-polynomial readout"
    elif model.startswith("polynomial-readout-") and model[len("polynomial-readout-"):].isdigit():
        degree = int(model[len("polynomial-readout-"):])
        noun, quality, tail = "head", f"of {ranked or 'any feature rank'}", f" with a polynomial readout of degree <= {degree}"
    elif model.startswith("kernel-heads-") and model[len("kernel-heads-"):].isdigit():
        count = int(model[len("kernel-heads-"):])
        several = count != 1
        noun = f"{count} heads" if several else "single head"
        quality, tail = f"of {ranked or 'any feature rank'}", ", mixed affinely,"
    else:
        raise _Unknown
    if head is None:
        return f"{noun} {quality}{tail}", several
    if head == "any":
        article = "" if several else "an " if noun[0] in "aeiou" else "a "
        return f"{article}{noun} {quality}{tail}", several
    if model == "score-statistic":
        quality = "weight and readout depending on (|q|, <q,x>) only"
    named = f"{quality.removeprefix('of ')}{tail}".strip(" ,")
    return f"the {noun} {_digest(head)} ({named})", several


def _solves(j: dict) -> str:
    subject, several = _head(j["model"], j["rank"], j["head"])
    verb = "solve" if several else "solves"
    return (f"{subject} {verb} every sequence of {_lengths(j['lengths'])} {_over(j['m'], j['alphabet'])} "
            f"{_error(j['tolerance'])}{_target(j)}")


def _unsolvable(j: dict) -> str:
    subject, several = _head(j["model"], j["rank"], None)
    low, high = _m_range(j["m"])
    at = f"at any m >= {low}" if high is None else f"at m = {low}" if high == low else f"at any m in {low}..{high}"
    verb = "have" if several else "has"
    return (f"no {subject} {verb} error < {_number(j['tolerance'])} on every sequence of exact length "
            f"{_int(j['length'])} over {{0,1}}^m, {at}{_target(j)}")


def _fails(j: dict) -> str:
    subject, _ = _head(j["model"], "any", j["head"])
    m = j["m"]
    if isinstance(m, int) and not isinstance(m, bool):
        where = f"over {{0,1}}^{m}"
    else:
        low, high = _m_range(m)
        where = (f"over {{0,1}}^{low}" if high == low else f"over {{0,1}}^m at some m >= {low}" if high is None
                 else f"over {{0,1}}^m at some m <= {high}" if low == 1 else f"over {{0,1}}^m at some m in {low}..{high}")
    return (f"{subject} errs by >= {_number(j['tolerance'])} on a sequence of length {_int(j['length'])} "
            f"{where}{_target(j)}")


def _no_readout(j: dict) -> str:
    return (f"for the fixed kernel row {_digest(j['row'])} at m = {_int(j['m'])}, no readout has error < "
            f"{_number(j['tolerance'])} on every listed sequence of {_lengths(j['lengths'])}{_target(j)}")


def _kernel_row_infeasible(j: dict) -> str:
    family, cases = j["family"], j["cases"]
    if not isinstance(family, str) or not isinstance(cases, list) or not cases or not all(isinstance(c, dict) for c in cases):
        raise _Unknown
    if all(set(c) == {"weight", "inner", "order"} for c in cases):
        weights = sorted({_int(c["weight"]) for c in cases})
        ordered = sum(1 for c in cases if c["order"])
        span = f"|q| = {weights[0]}" if len(weights) == 1 else f"|q| = {weights[0]}..{weights[-1]}"
        where = f"for every m, in {len(cases)} case(s) of query weight and inner products ({span})"
    elif all(set(c) == {"m", "query", "tokens", "order"} for c in cases):
        ms = sorted({_int(c["m"]) for c in cases})
        ordered = sum(1 for c in cases if c["order"])
        queries = ", ".join(str(c["query"]) for c in cases[:3]) + (", ..." if len(cases) > 3 else "")
        where = f"in {len(cases)} case(s) at m = {', '.join(map(str, ms))} (queries {queries})"
    else:
        raise _Unknown
    order = f"; in {ordered} of them only with K[q,z] > K[q,q] for the case's order token(s) z" if ordered else ""
    return (f"no kernel row K[q,.] of the {family} family, with any readout row, has error < 1/2 on every sequence of "
            f"exact length {_int(j['length'])} over the case's tokens and q, {where}{order} (cases {_data_digest(cases)})")


# ---------------------------------------------------------------- matrices


def _matrix(j: dict, relation: str) -> str:
    return f"the {_int(j['rows'])} x {_int(j['cols'])} matrix {_digest(j['matrix'])} has rank {relation} {_int(j['bound'])}"


def _instance(j: dict) -> str:
    extra = ""
    if "sphere" in j:
        d = j["sphere"]
        extra = ", points not all on the unit sphere" if d is False else f", points on the unit sphere S^{_int(d) - 1}"
    elif "ball" in j:
        d = j["ball"]
        extra = ", points not all in the unit ball" if d is False else f", points in the unit ball B^{_int(d)}"
    return f"the attention instance {_digest(j['instance'])} (n = {_int(j['n'])}{extra})"


def _approx(j: dict, relation: str) -> str:
    return f"rank_eps(A) {relation} {_int(j['bound'])} at {_eps(j['epsilon'])} for {_instance(j)}"


def _approx_every(j: dict) -> str:
    family = j["family"]
    if family == "circle" and "beta_up_to" in j:
        every = (f"for every beta <= {_number(j['beta_up_to'])}, every n and every X on the unit circle S^1 "
                 "(any multiplicities)")
    elif family == "rank-one-interaction" and "spread_up_to" in j:
        every = f"for every logits a 1^T + 1 b^T + q k^T of spread <= {_number(j['spread_up_to'])} (any n, N, biases)"
    else:
        raise _Unknown
    return f"{every}: rank_eps(rowsoftmax) <= {_int(j['bound'])} at {_eps(j['epsilon'])}"


def _visible(j: dict) -> str:
    tau, count = _number(j["tau"]), _int(j["count"])
    logits = _digest(j["logits"])
    if Fraction(tau) == 0:
        return f"the logits {logits} have rank(L P) = {count} (P = I - 11^T/N: the visible dimension)"
    return f"exactly {count} singular value(s) of L P exceed tau = {tau}, for the logits {logits} (P = I - 11^T/N)"


# ---------------------------------------------------------------- residuals

_BOUNDS = {"2tanh(delta/2)": "2 tanh(delta/2)", "tanh(delta)": "tanh(delta)"}


def _two_point(j: dict) -> str:
    bound, relation = j["bound"], j["relation"]
    if bound not in _BOUNDS or relation not in ("exceeds", "attains"):
        raise _Unknown
    by = "more than" if relation == "exceeds" else "exactly"
    return (f"at e^delta = {_number(j['t'])} a perturbation of row range <= 2 delta moves a softmax row by {by} "
            f"{_BOUNDS[bound]} in l1")


# ---------------------------------------------------------------- counting


def _values(values) -> str:
    if isinstance(values, dict) and set(values) == {"power"}:
        return f"values {_int(values['power'])}^x"
    if isinstance(values, dict) and set(values) == {"sqrt"}:
        return f"values sqrt(p_x), p = {_ints(values['sqrt'])}"
    raise _Unknown


def _behaviour_counts(j: dict) -> str:
    counts, bits = _ints(j["counts"]), _ints(j["bits"])
    last = len(counts) + 1
    return (f"at m = {_int(j['m'])}, exactly N(n) = {counts} functions q -> T(P, q) for n = 2..{last}: at least "
            f"{bits} bits into position n{_target(j)}")


def _behaviours_power(j: dict) -> str:
    lengths = _ints(j["lengths"])
    if len(lengths) != 2 or lengths[0] != 2:
        raise _Unknown
    m = _int(j["m"])
    return f"N(n) >= {m}^(n-1) at m = {m} for every n in 2..{lengths[1]}: at least (n-1) log2 {m} bits{_target(j)}"


def _bits(j: dict) -> str:
    if j["channel"] != "two-way-cut":
        raise _Unknown
    return (f"every two-way protocol across the cut (prefix | query) at m = {_int(j['m'])}, n = {_int(j['n'])} "
            f"exchanges at least {_int(j['bits'])} bits{_target(j)}")


def _decodes(j: dict) -> str:
    return (f"with {_values(j['values'])}, one function of (q, h) returns T on every sequence over "
            f"{{0,1}}^{_int(j['m'])} of {_lengths(j['lengths'])}{_target(j)}")


def _no_decoder(j: dict) -> str:
    longest = _int(j["max_length"])
    return (f"with {_values(j['values'])}, no function of (q, h) returns T on every sequence over {{0,1}}^{_int(j['m'])} "
            f"of length <= {longest}: two of them share q and h but not T{_target(j)}")


# ------------------------------------------------------------------ table

# name -> (the fields it reads, optional fields, renderer); a judgment with other fields is rendered generically
_RENDER = {
    "solves": (("model", "head", "rank", "alphabet", "m", "lengths", "target", "tolerance"), (), _solves),
    "unsolvable": (("model", "rank", "m", "length", "target", "tolerance"), (), _unsolvable),
    "fails": (("model", "head", "m", "length", "target", "tolerance"), (), _fails),
    "no-readout": (("m", "row", "lengths", "target", "tolerance"), (), _no_readout),
    "kernel-row-infeasible": (("family", "length", "cases"), (), _kernel_row_infeasible),
    "rank-at-least": (("matrix", "rows", "cols", "bound"), (), lambda j: _matrix(j, ">=")),
    "rank-at-most": (("matrix", "rows", "cols", "bound"), (), lambda j: _matrix(j, "<=")),
    "approx-rank-at-least": (("instance", "n", "epsilon", "bound"), ("sphere", "ball"), lambda j: _approx(j, ">=")),
    "approx-rank-at-most": (("instance", "n", "epsilon", "bound"), ("sphere", "ball"), lambda j: _approx(j, "<=")),
    "approx-rank-at-most-every": (("family", "epsilon", "bound"), ("beta_up_to", "spread_up_to"), _approx_every),
    "singular-values-above": (("logits", "tau", "count"), (), _visible),
    "same-attention": (("logits", "other"), (),
                       lambda j: f"rowsoftmax(L) = rowsoftmax(L') for L = {_digest(j['logits'])}, L' = {_digest(j['other'])}"),
    "attention-differs": (("logits", "other"), (),
                          lambda j: f"rowsoftmax(L) != rowsoftmax(L') for L = {_digest(j['logits'])}, L' = {_digest(j['other'])}"),
    "residual-within": (("logits", "approximation"), (),
                        lambda j: f"every row of rowsoftmax(L) is within 2 tanh(osc_i/4) in l1 of rowsoftmax(L') "
                                  f"(L = {_digest(j['logits'])}, L' = {_digest(j['approximation'])}; osc_i the range "
                                  "of row i of L - L')"),
    "residual-two-point": (("t", "bound", "relation"), (), _two_point),
    "duality": (("matrix",), (),
                lambda j: f"max_i ||M_i||_1 = max over v in [-1,1]^N of max_i |(M v)_i| for M = {_digest(j['matrix'])}"),
    "behaviour-counts": (("target", "m", "counts", "bits"), (), _behaviour_counts),
    "behaviours-at-least-power": (("target", "m", "lengths"), (), _behaviours_power),
    "bits-at-least": (("channel", "target", "m", "n", "bits"), (), _bits),
    "decodes": (("target", "values", "m", "lengths"), (), _decodes),
    "no-decoder": (("target", "values", "m", "max_length"), (), _no_decoder),
}
NAMES = tuple(_RENDER)  # every judgment name the checker emits (a test compares with solvers/trusted)


def _specific(judgment) -> str:
    if not isinstance(judgment, dict):
        raise _Unknown
    entry = _RENDER.get(judgment.get("judgment"))
    if entry is None:
        raise _Unknown
    required, optional, render = entry
    fields = set(judgment) - {"judgment"}
    extra = fields - set(required)
    if not set(required) <= fields or len(extra) > 1 or not extra <= set(optional):
        raise _Unknown
    try:
        return render(judgment)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError):
        raise _Unknown from None


def _generic(judgment) -> str:
    """Every field shown: ``name{field value, ...}`` (values as compact JSON, digests shortened)."""
    if not isinstance(judgment, dict):
        return f"judgment {str(judgment)[:200]!r}"

    def value(v) -> str:
        if isinstance(v, str) and v.startswith("sha256:") and len(v) > 19:
            return v[:19]
        text = json.dumps(v, sort_keys=True, separators=(",", ":"), default=str)
        return text if len(text) <= 120 else text[:117] + "..."

    name = judgment.get("judgment", "?")
    fields = ", ".join(f"{k} {value(v)}" for k, v in sorted(judgment.items()) if k != "judgment")
    return f"{name if isinstance(name, str) else value(name)}{{{fields}}}"


def known(judgment) -> bool:
    """True when :func:`words` has a rendering of its own for ``judgment`` (not the generic one)."""
    try:
        _specific(judgment)
    except _Unknown:
        return False
    return True


def words(judgment) -> str:
    """``judgment`` (a dict as the checker writes it: ``{"judgment": name, ...fields}``) in words, from its fields.

    Never raises: a judgment without a rendering of its own is shown generically, every field listed.
    """
    try:
        return _specific(judgment)
    except _Unknown:
        return _generic(judgment)
