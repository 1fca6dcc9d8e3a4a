"""Exact arithmetic in the multiquadratic field ``Q(sqrt p_1, ..., sqrt p_k)``.

An element is a vector of rational coefficients on the basis
``sqrt(prod_{i in S} p_i)``, S a subset of ``{1..k}`` (stored as a bit mask), for
distinct primes ``p_1..p_k``.  Products use
``sqrt(P_A) sqrt(P_B) = (prod_{i in A ∩ B} p_i) sqrt(P_{A △ B})``.

**Premise (cited, not checked here).**  These 2^k square roots of distinct
squarefree products of distinct primes are linearly independent over Q
(Besicovitch 1940; for the degree-one part, the square roots of distinct
primes).  Only under it is the coefficient vector *the* element: two
elements are equal as real numbers iff their coefficient vectors are equal.
:meth:`Surd.enclosure` gives a rigorous real ball (python-flint ``arb``), so
that distinctness of finitely many elements can also be shown without the
premise: disjoint balls are distinct reals.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

import flint


class Multiquadratic:
    """The field ``Q(sqrt p : p in primes)`` for distinct primes, in the order given."""

    def __init__(self, primes: Iterable[int]):
        self.primes = tuple(int(p) for p in primes)
        if len(set(self.primes)) != len(self.primes):
            raise ValueError(f"the primes must be distinct: {self.primes}")
        bad = [p for p in self.primes if not flint.fmpz(p).is_prime()]
        if bad:
            raise ValueError(f"not prime: {bad}")

    def __eq__(self, other) -> bool:
        return isinstance(other, Multiquadratic) and self.primes == other.primes

    def __hash__(self) -> int:
        return hash(self.primes)

    def rational(self, value) -> "Surd":
        value = Fraction(value)
        return Surd(self, ((0, value),) if value else ())

    def sqrt(self, index: int) -> "Surd":
        """``sqrt p_index`` (0-based)."""
        if not 0 <= index < len(self.primes):
            raise IndexError(f"no prime number {index} in a field of {len(self.primes)}")
        return Surd(self, ((1 << index, Fraction(1)),))

    def combination(self, coefficients: dict[int, Fraction]) -> "Surd":
        """``sum_i c_i sqrt p_i`` from ``{i: c_i}``."""
        return Surd(self, tuple(sorted((1 << i, Fraction(c)) for i, c in coefficients.items() if c)))

    def radicand(self, mask: int) -> int:
        out = 1
        for i, p in enumerate(self.primes):
            if mask >> i & 1:
                out *= p
        return out


@dataclass(frozen=True)
class Surd:
    """An element of a :class:`Multiquadratic` field: sorted ``(mask, coefficient)`` pairs, coefficients nonzero."""

    field: Multiquadratic
    terms: tuple[tuple[int, Fraction], ...]

    @staticmethod
    def _build(field: Multiquadratic, acc: dict[int, Fraction]) -> "Surd":
        return Surd(field, tuple(sorted((k, v) for k, v in acc.items() if v)))

    def _same(self, other: "Surd") -> None:
        if self.field != other.field:
            raise ValueError("elements of different fields")

    def __add__(self, other: "Surd") -> "Surd":
        self._same(other)
        acc = dict(self.terms)
        for k, v in other.terms:
            acc[k] = acc.get(k, Fraction(0)) + v
        return self._build(self.field, acc)

    def __neg__(self) -> "Surd":
        return Surd(self.field, tuple((k, -v) for k, v in self.terms))

    def __sub__(self, other: "Surd") -> "Surd":
        return self + (-other)

    def scale(self, c) -> "Surd":
        c = Fraction(c)
        return Surd(self.field, tuple((k, v * c) for k, v in self.terms)) if c else Surd(self.field, ())

    def __mul__(self, other: "Surd") -> "Surd":
        self._same(other)
        acc: dict[int, Fraction] = {}
        for a, u in self.terms:
            for b, v in other.terms:
                k = a ^ b
                acc[k] = acc.get(k, Fraction(0)) + u * v * self.field.radicand(a & b)
        return self._build(self.field, acc)

    def coefficient(self, mask: int) -> Fraction:
        return dict(self.terms).get(mask, Fraction(0))

    def linear_coefficients(self) -> dict[int, Fraction]:
        """``{i: c_i}`` for the ``sqrt p_i`` part; raises if other basis elements occur."""
        out = {}
        for k, v in self.terms:
            if k & (k - 1) or k == 0:
                raise ValueError(f"not a combination of single square roots: basis element {k}")
            out[k.bit_length() - 1] = v
        return out

    def is_zero(self) -> bool:
        """Zero as a coefficient vector (zero as a real number under the premise)."""
        return not self.terms

    def enclosure(self, precision: int = 128) -> flint.arb:
        """A rigorous real ball containing the element (``precision`` bits)."""
        old = flint.ctx.prec
        flint.ctx.prec = precision
        try:
            total = flint.arb(0)
            for k, v in self.terms:
                total += flint.arb(flint.fmpq(v.numerator, v.denominator)) * flint.arb(self.field.radicand(k)).sqrt()
            return total
        finally:
            flint.ctx.prec = old


def first_primes(count: int) -> list[int]:
    """The first ``count`` primes, 2, 3, 5, ..."""
    out, candidate = [], 2
    while len(out) < count:
        if flint.fmpz(candidate).is_prime():
            out.append(candidate)
        candidate += 1
    return out
