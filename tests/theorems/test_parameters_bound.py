"""Every size parameter is bound by the obligations, and nothing else is shown as covered.

``attnproof verify`` binds an outcome to its point by recomputing
``claim.obligations(point)`` (stage 2).  A parameter that the table's
"covered" column lists (``Parameter.is_size``) must therefore enter the
obligations: at another value the claim states other judgments, so an
outcome relabelled to that value does not bind.  A parameter whose work no
obligation can state (a sympy step, an unchecked computation, a statistic,
a certified judgment another obligation already implies) is a setting
(``size=False``): part of the point, never covered.

The walk below computes obligations only, no check.  For each size of each
built-in claim it takes the nearest allowed value on each side of the default
(allowed: ``claim.point`` accepts it, cross-parameter checks included) and
compares the obligations:

* on at least one side they change (a size bound to nothing fails here);
* on a side where they do not change, the value must name the same work as
  the default: the claim's cost model gives the same estimate (the betas of
  a law are the powers of ``step`` up to ``beta_max``, so 257 names the betas
  of 256; a size whose work grows while its obligations stay fails here).
"""

from __future__ import annotations

import importlib
import pkgutil
from fractions import Fraction

import pytest

from theorems.core import BUILTIN_PACKAGES, ParameterError, registry

SCAN = 64  # how far from the default an allowed neighbour is looked for (ball_law's beta: 0, then 16)

# bases where stating the obligations at a neighbour would be slow (seconds): the same walk from a smaller point
CHEAP_BASE = {
    ("softmax_rank.ball_law", "d"): {"beta_max": 16},  # d = 3 to beta 256: 2.9 s; to 16: 0.01 s
    ("softmax_rank.spherical_law", "d"): {"beta_max": 4},  # d = 3 to beta 256: 31 s
    ("softmax_rank.visible_law", "r_max"): {"beta_max": 64},  # r = 3 to beta 256: 4.8 s
}

# the parameters a review found bound to nothing while shown as covered: each is now a setting
SETTINGS = {
    "kernel_rank.communication_bound": ("m_range", "m_injective"),
    "kernel_rank.polynomial_readout_upper": ("D_exact",),
    "kernel_rank.multi_head": ("H_identity",),
    "kernel_rank.feature_rank_table": ("m_degree2",),
    "kernel_rank.position_and_causal": ("m_positions_full", "m_reduced", "m_reduced_positions", "m_reduced_4",
                                        "m_reduced_4_positions"),
    "kernel_rank.three_token_lower_bound": ("m_refuted",),
    "softmax_rank.calibration": ("resamples",),
    "softmax_rank.duality": ("n_large",),
}


def builtin_claims() -> dict:
    return {cid: c for cid, c in registry().items() if type(c).__module__.startswith(BUILTIN_PACKAGES)}


SIZES = [(cid, p.name) for cid, c in builtin_claims().items() for p in c.parameters if p.is_size]


def neighbour(claim, base: dict, name: str, sign: int):
    """The point with ``name`` at the nearest value on one side of ``base[name]`` that the claim accepts, or None."""
    [p] = [p for p in claim.parameters if p.name == name]
    unit = 1 if p.kind is int else Fraction(1, 8)
    for k in range(1, SCAN + 1):
        value = base[name] + sign * k * unit
        if not p.low <= value <= p.high:
            return None
        try:
            return claim.point({**base, name: value})
        except ParameterError:
            continue
    return None


_OBLIGATIONS: dict = {}


def obligations(claim, point: dict) -> dict:
    key = (claim.id, tuple(sorted((k, str(v)) for k, v in point.items())))
    if key not in _OBLIGATIONS:
        _OBLIGATIONS[key] = claim.obligations(point).to_json()
    return _OBLIGATIONS[key]


def test_the_walk_sees_every_built_in_claim_module():
    """One claim per public module of the built-in packages, each walked (none hidden by a plugin)."""
    modules = {f"{package}.{m.name}" for package in BUILTIN_PACKAGES
               for m in pkgutil.iter_modules(importlib.import_module(package).__path__) if not m.name.startswith("_")}
    assert {type(c).__module__ for c in builtin_claims().values()} == modules
    assert {c for c, _ in SIZES} >= {cid for cid in SETTINGS}  # each claim with a setting still has its sizes walked


@pytest.mark.parametrize("claim_id, name", SIZES, ids=[f"{c}:{n}" for c, n in SIZES])
def test_a_size_changes_the_obligations(claim_id, name):
    claim = builtin_claims()[claim_id]
    base = claim.point(CHEAP_BASE.get((claim_id, name), {}))
    here = obligations(claim, base)
    sides = [(sign, point) for sign in (-1, 1) if (point := neighbour(claim, base, name, sign)) is not None]
    assert sides, f"{name} of {claim_id} has no allowed value beside {base[name]}"
    changed = []
    for sign, point in sides:
        if obligations(claim, point) != here:
            changed.append(point[name])
        else:  # the same judgments: then the same work, or the value claims work no obligation states
            assert claim.cost(point) == claim.cost(base), (
                f"{name} of {claim_id}: {point[name]} states the obligations of {base[name]} but sizes other work: "
                "bind it in obligations() or make it a setting (size=False)")
    assert changed, f"{name} of {claim_id} enters no obligation (tried {[p[name] for _, p in sides]}): not a size"


@pytest.mark.parametrize("claim_id", sorted(SETTINGS))
def test_work_no_obligation_states_is_a_setting_never_covered(claim_id):
    claim = builtin_claims()[claim_id]
    point = claim.point()
    covered = claim.sizes(point)
    for name in SETTINGS[claim_id]:
        assert name in point and name not in covered
        [p] = [p for p in claim.parameters if p.name == name]
        assert p.bounds()["size"] is False  # `list --json` says so too
    assert covered  # the claim still shows its bound sizes
