"""formal/SExp.v: exp at rationals by reflection, and the row checkers the exported rank_eps files apply.

* ``qexp``'s enclosures, computed by Coq (``vm_compute``, over Z and over Bignums' BigZ), are exactly those of
  the exporter's replica (``theorems.formal.softmax._box``), and contain ``exp(x)``: checked in fractions
  against ``math.exp`` with a margin of a few ulps, and narrow;
* the checkers accept a small instance just inside each bound and refuse it just outside, in Coq and in the
  replica alike (the exporter's choice of precision reads the replica);
* ``Print Assumptions``: the soundness theorems rest on the standard reals' two axioms and functional
  extensionality (no ``classic``); the BigZ instance adds the axioms of Coq's primitive 63-bit integers.

Tests that need ``coqc`` skip without it, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import math
from fractions import Fraction

from theorems.formal import softmax

from .conftest import compile_v

T = 50
P = 2 * T + 10  # frac_bits 50
POINTS = [Fraction(0), Fraction(-1, 3), Fraction(-1), Fraction(-5, 2), Fraction(-16),
          Fraction(-1065326576112, 70856042465), Fraction(-32), Fraction(-100)]

REALS = {"ClassicalDedekindReals.sig_not_dec", "ClassicalDedekindReals.sig_forall_dec",
         "FunctionalExtensionality.functional_extensionality_dep"}

# a 2 x 2 instance: row i puts e^2 on column i and 1 on the other
L = [[Fraction(2), Fraction(0)], [Fraction(0), Fraction(2)]]
TANH1 = math.tanh(1)  # the lower bound's margin: 2 e^2 - (e^2 + 1) - eps (e^2 + 1) > 0 iff eps < tanh 1
UPPER = 2 / (math.e ** 2 + 1)  # B = I: the row error is 2 / (e^2 + 1)


def _q(x: Fraction) -> str:
    return f"({x.numerator} # {x.denominator})%Q"


def _axioms(stdout: str) -> list[str]:
    return [line.split(" :")[0].strip() for line in stdout.splitlines()
            if line and not line[0].isspace() and line.strip() not in ("Axioms:", "Closed under the global context")]


def test_the_replica_encloses_exp():
    for x in POINTS:
        lo, hi = softmax._box(T, x)
        e = math.exp(x)
        assert Fraction(lo, 1 << P) <= Fraction(e) * (1 + Fraction(4, 10**16)), x
        assert Fraction(hi, 1 << P) >= Fraction(e) * (1 - Fraction(4, 10**16)), x
        assert Fraction(hi - lo, 1 << P) <= Fraction(1, 1 << 45), x  # ~2^-50 absolute at t = 50


def test_coq_computes_the_same_enclosures(formal_built, tmp_path):
    lines = ["From Coq Require Import QArith ZArith.", "From Bignums Require Import BigZ.",
             "From AttnProof Require Import SExp.", ""]
    for x in POINTS:
        lo, hi = softmax._box(T, x)
        lines.append(f"Goal qexp {P} {T} {_q(x)} = ({lo}%Z, {hi}%Z). Proof. vm_compute. reflexivity. Qed.")
        lines.append(f"Goal (let e := iexp BigZints {P} {T} (BigZ.of_Z ({x.numerator})) (BigZ.of_Z {x.denominator}) in "
                     f"(BigZ.to_Z (fst e), BigZ.to_Z (snd e))) = ({lo}%Z, {hi}%Z). Proof. vm_compute. reflexivity. Qed.")
    lo, hi = softmax._box(T, Fraction(-1))
    lines.append(f"Goal qexp {P} {T} (-1)%Q = ({lo + 1}%Z, {hi}%Z). Proof. vm_compute. reflexivity. Qed.")
    ran = compile_v(formal_built, tmp_path, "enclosures", "\n".join(lines[:-1]) + "\n")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    wrong = compile_v(formal_built, tmp_path, "wrong", "\n".join(lines[:4] + lines[-1:]) + "\n")
    assert wrong.returncode != 0  # another lower end is not what Coq computes


def _cases():
    """(Coq boolean term, expected value, the replica's value) for the 2 x 2 instance."""
    Lq = "[[(2 # 1); (0 # 1)]; [(0 # 1); (2 # 1)]]%Q"
    I = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    Iq = "[[(1 # 1); (0 # 1)]; [(0 # 1); (1 # 1)]]%Q"
    Sh = [[Fraction(0), Fraction(2)], [Fraction(0), Fraction(2)]]
    Shq = "[[(0 # 1); (2 # 1)]; [(0 # 1); (2 # 1)]]%Q"
    out = []
    for eps in (Fraction(3, 4), Fraction(77, 100)):
        want = eps < TANH1
        mine = all(softmax._lower_ok(T, [1, 1], L[r], [r], [0, 1], eps) for r in (0, 1))
        for K in ("BigZints", "Zints"):
            out.append((f"lower_rows_check {K} {T} [1; 1]%nat {Lq} [0; 1]%nat [[0]; [1]]%nat {_q(eps)}", want, mine))
    for eps in (Fraction(1, 4), Fraction(23, 100)):
        want = eps > UPPER
        mine = all(softmax._upper_ok(T, [1, 1], L[i], I[i], eps) for i in (0, 1))
        out.append((f"upper_rows_check BigZints {T} [1; 1]%nat {Lq} {Iq} {_q(eps)}", want, mine))
    out.append((f"upper_rows_check BigZints {T} [1; 1]%nat {Lq} [[(1 # 1); (0 # 1)]]%Q {_q(Fraction(1, 4))}", False, False))
    sign = softmax._differs_sign(T, L[0], Sh[0], 0)
    out.append((f"differs_pos_check BigZints {T} {Lq} {Shq} 0 0", True, sign == 1))
    out.append((f"differs_neg_check BigZints {T} {Lq} {Shq} 0 0", False, sign == -1))
    out.append((f"differs_check BigZints {T} {Lq} {Lq} 0 0", False, softmax._differs_sign(T, L[0], L[0], 0) != 0))
    return out


def test_the_checkers_decide_a_small_instance_as_the_replica_does(formal_built, tmp_path):
    lines = ["From Coq Require Import QArith List.", "Import ListNotations.", "From AttnProof Require Import SExp.", ""]
    for term, want, mine in _cases():
        assert mine == want, term
        lines.append(f"Goal {term} = {'true' if want else 'false'}. Proof. vm_compute. reflexivity. Qed.")
    ran = compile_v(formal_built, tmp_path, "checkers", "\n".join(lines) + "\n")
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_print_assumptions(formal_built, tmp_path):
    theorems = ("qexp_sound", "lower_rows_sound", "upper_rows_sound", "differs_pos_sound", "differs_neg_sound",
                "differs_check_sound")
    source = "From AttnProof Require Import SExp.\n" + "".join(f"Print Assumptions {t}.\n" for t in theorems)
    ran = compile_v(formal_built, tmp_path, "assumptions", source)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count("Axioms:") == len(theorems)
    assert set(_axioms(ran.stdout)) == REALS  # no classic: exp's two first-order bounds come from its series
    ran = compile_v(formal_built, tmp_path, "bigz", "From AttnProof Require Import SExp.\nPrint Assumptions BigZints.\n")
    assert ran.returncode == 0, ran.stderr
    names = set(_axioms(ran.stdout))
    assert names and all(n.startswith(("Uint63.", "PrimInt63.")) for n in names), names  # primitive integers only

