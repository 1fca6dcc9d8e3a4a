"""The visible-dimension law (S5): rank_eps <= C(r, eps) (1 + S)^{r/2}, minimax sharp — certified sandwiches.

Setting.  Logits ``L = a 1^T + 1 b^T + Q K^T`` (n x N) whose interaction
``Q K^T`` has rank r — the rank of the double-centred logits ``P_n L P_N``
(row biases a are quotiented out by row-softmax; a key bias b is a per-key
term, kept in the weights) — and the **spread** ``S``: for r = 1 the largest
double-centred oscillation ``max |L_ij - L_ij' - L_i'j + L_i'j'| = D_Q D_K``
(computed exactly; docs/softmax_rank.visible_law.md gives the reading for r >= 2).

Checked, at eps in (0, 1):

* **r = 1, for every instance** (proved in docs/softmax_rank.spherical_law.md,
  "Worst-case upper bounds", with ``theta(t) = t``):
  ``rank_eps <= max(1, ceil(sqrt(S)/(2 eps)))`` (anchor rows),
  ``<= floor(sqrt(S/(2 eps))) + 2`` (interpolated anchors) and
  ``<= floor(sqrt(S/(4 log(1 + eps)))) + 2`` (tilted chords) and
  ``<= floor(sqrt(S (1 + eps)/(8 eps))) + 2`` (Jeffreys chords), independent of n,
  N and the biases.  The trusted checker confirms the inequality exactly
  (``visible-one-anchors-every``) and, on each r = 1 instance below, that its
  logits have that form and the spread it is charged with (``visible-one-anchors``,
  also on an instance with biases of size ``bias``).
* **the sharp instances**: keys ``k`` on the lattice ``h Z^r`` (``h = c/sqrt(beta)``,
  c the smallest of a grid at which every point is self-dominant in floats)
  inside the unit r-ball, queries ``beta k``, key bias ``-beta |k|^2/2``: row i is
  the Gaussian kernel ``e^{-beta |k_i - k_j|^2/2}`` normalised, the spread is
  ``S = 4 beta`` (diameters 2 beta and 2).  Certified lower bounds (grouped
  columns, arb) and upper bounds (r = 1: the lemma on the instance; r >= 2:
  a rounded truncated SVD, every row error in arb) — the instance sandwich.
* **random instances** for contrast: the same kernel on as many keys drawn
  uniformly from the unit r-ball (seeded); certified lower bounds.

Slopes of log(lower) against log(1 + S), fitted on beta >= 64 (at least two
points), are decimal strings for display beside the exponent r/2; they
decide nothing.  The law's constant C(r, eps) for r >= 2 is open (docs).
"""

from __future__ import annotations

import random
from fractions import Fraction
from functools import lru_cache
from math import ceil, floor, isqrt, log, sqrt

from flint import fmpz_mat

from solvers import softmax_enclosures as E
from solvers.lazy import numpy as np
from solvers.lazy import sympy as sp
from theorems.core import Claim, Obligations, Parameter, ParameterError, Plot, Statement, obligation
from theorems.softmax_rank import VISIBLE_DIMENSION
from theorems.softmax_rank import _definitions as D
from theorems.softmax_rank import _laws
from theorems.softmax_rank._laws import betas, lattice_betas, point_betas

SPACINGS = tuple(Fraction(c, 20) for c in range(20, 61))  # c = 1, 1.05, ..., 3: lattice spacing c / sqrt(beta)
RANDOM_DENOMINATOR = 1 << 16


def law_exponent(r: int) -> Fraction:
    return Fraction(r, 2)


def lattice(r: int, h: Fraction) -> list[tuple[int, ...]]:
    """The integer vectors z with ``|h z| <= 1`` (the lattice h Z^r inside the closed unit r-ball), sorted."""
    R = int(1 / h)
    p2, q2 = h.numerator ** 2, h.denominator ** 2  # |h z|^2 <= 1 decided on integers: p^2 |z|^2 <= q^2
    out = []

    def extend(prefix, left):
        if len(prefix) == r:
            out.append(tuple(prefix))
            return
        for v in range(-R, R + 1):
            if p2 * (left + v * v) <= q2:
                extend(prefix + [v], left + v * v)
    extend([], 0)
    return out


def kernel_logits(Z: list, scale: Fraction) -> "E.ScaledLogits":
    """``L_ij = scale (2 <z_i, z_j> - |z_j|^2)``: queries ``beta k_i``, keys ``k_j = h z_j`` with bias
    ``-beta |k_j|^2 / 2`` when ``scale = beta h^2 / 2`` (row i is the Gaussian kernel around k_i)."""
    M = fmpz_mat([list(z) for z in Z])
    G = M * M.transpose()
    n = len(Z)
    # 2 G - 1 (diag G)^T, as exact fmpz_mat products (no per-entry Python arithmetic)
    squares = fmpz_mat(1, n, [G[j, j] for j in range(n)])
    N = G * 2 - fmpz_mat(n, 1, [1] * n) * squares
    return E.ScaledLogits(N, scale, [1] * n, [1] * n)


def kernel_integers(Z: list) -> "np.ndarray | None":
    """The integers N of :func:`kernel_logits` (``N_ij = 2 <z_i, z_j> - |z_j|^2``) in int64 — exact, since None
    is returned when an entry could pass 2^62: the exact matrix is walked entry by entry, this is not."""
    big = max((abs(v) for z in Z for v in z), default=0)
    if not Z or 2 * big.bit_length() + len(Z[0]).bit_length() + 2 > 62:
        return None
    M = np.array(Z, dtype=np.int64)
    G = M @ M.T
    return 2 * G - np.diag(G)[None, :]


def kernel_floats(Z: list, scale: Fraction) -> "np.ndarray | None":
    """``kernel_logits(Z, scale).floats()``, the same float64 values, from :func:`kernel_integers` (or None)."""
    N = kernel_integers(Z)
    if N is None:
        return None
    ones = [1.0] * len(Z)  # row and column denominators 1, as ScaledLogits.floats divides by them
    return float(scale) * N.astype(float) / np.outer(ones, ones)


def self_dominant(Z, scale: Fraction, eps: Fraction) -> bool:
    """Floats: every row's own column carries a margin ``2 A_ii - 1 > eps`` (a proposal; arb decides later)."""
    X = np.array(Z, dtype=float)
    G = X @ X.T
    A = E.attention_floats(float(scale) * (2 * G - np.diag(G)[None, :]))
    return float((2 * np.diag(A) - 1).min()) > float(eps) + 1e-9


def random_keys(r: int, n: int, seed: int, scale_den: int) -> list[tuple[int, ...]]:
    """n integer vectors z, ``z / scale_den`` uniform in the unit r-ball (rejection sampling, seeded)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        z = tuple(rng.randint(-scale_den, scale_den) for _ in range(r))
        if sum(v * v for v in z) <= scale_den * scale_den:
            out.append(z)
    return out


class Sharp:
    """One instance and what was found on it."""

    def __init__(self, Z, scale: Fraction, spacing, rows, groups, upper):
        self.Z, self.scale, self.spacing = Z, scale, spacing
        self.rows, self.groups, self.upper = rows, groups, upper
        self._integers = None

    @property
    def integers(self) -> list[list[int]]:
        if self._integers is None:
            N = kernel_integers(self.Z)
            self._integers = N.tolist() if N is not None else [[int(v) for v in row] for row in kernel_logits(self.Z, self.scale).N.tolist()]
        return self._integers

    def data(self, eps: Fraction, **more) -> dict:
        """Certificate data naming this instance (integer-scaled logits, multiplicities 1)."""
        return {"scale": self.scale, "integers": self.integers, "multiplicities": [1] * len(self.Z), "epsilon": eps, **more}


@lru_cache(maxsize=64)
def _sharp(r: int, beta: int, eps: Fraction) -> Sharp:
    root = isqrt(beta)

    def at(c):
        h = c / root
        return lattice(r, h), beta * h * h / 2

    # the densest lattice whose every point is its own row (floats propose; sparser lattices dominate more)
    low, high = 0, len(SPACINGS) - 1
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if self_dominant(*at(SPACINGS[mid]), eps) else (mid + 1, high)
    c = SPACINGS[low]
    Z, scale = at(c)
    L = kernel_logits(Z, scale)
    rows, groups, upper = _laws.instance_bounds(L, None, eps, upper=r >= 2, floats=kernel_floats(Z, scale))
    if len(rows) == len(Z):
        upper = None  # rank_eps = n: the upper bound n is the number of rows, nothing to certify
    return Sharp(Z, scale, c, rows, groups, upper)


@lru_cache(maxsize=64)
def _dense(r: int, beta: int, eps: Fraction, spacing: Fraction) -> Sharp:
    """The lattice at spacing ``spacing / sqrt(beta)`` (denser than self-dominant): grouped lower bound and the
    least certified truncated SVD — an upper-bound construction on that instance."""
    h = spacing / isqrt(beta)
    Z, scale = lattice(r, h), beta * h * h / 2
    rows, groups, upper = _laws.instance_bounds(kernel_logits(Z, scale), None, eps, upper=True, floats=kernel_floats(Z, scale))
    return Sharp(Z, scale, spacing, rows, groups, upper)


@lru_cache(maxsize=64)
def _random(r: int, beta: int, eps: Fraction, n: int, seed: int) -> Sharp:
    Z = random_keys(r, n, seed, RANDOM_DENOMINATOR)
    scale = Fraction(beta, 2 * RANDOM_DENOMINATOR**2)
    rows, groups, _ = _laws.instance_bounds(kernel_logits(Z, scale), None, eps, upper=False, floats=kernel_floats(Z, scale))
    return Sharp(Z, scale, None, rows, groups, None)


def rank_one_bounds(spread: Fraction, eps: Fraction) -> dict:
    """The lemmas' bounds for r = 1 at spread S: the least integers passing each inequality (exact, the tilted chords' in arb)."""
    anchors = max(1, ceil(sqrt(spread) / (2 * float(eps))) - 1)
    while spread > 4 * eps * eps * anchors * anchors:
        anchors += 1
    interpolated = max(2, floor(sqrt(spread / (2 * float(eps)))))
    while not spread < 2 * eps * (interpolated - 1) ** 2:
        interpolated += 1
    return {"anchor-rows": anchors, "interpolated-anchors": interpolated,
            "tilted-chords": _least_by_checker("tilted-chords", spread, eps, floor(sqrt(float(spread) / (4 * log(1 + float(eps))))) + 2),
            "jeffreys-chords": _least_by_checker("jeffreys-chords", spread, eps, floor(sqrt(float(spread * (1 + eps) / (8 * eps)))) + 2)}


def _least_by_checker(construction: str, spread: Fraction, eps: Fraction, guess: int) -> int:
    """The least bound >= 2 a chord lemma accepts at spread S — tilted chords ``S < 4 log(1 + eps) (bound - 1)^2``
    (in arb), Jeffreys chords ``S (1 + eps) < 8 eps (bound - 1)^2`` (exact) — each candidate decided by the trusted
    checker's own test, walked from the float guess."""
    from solvers.trusted import geometry
    return _laws.least_accepted(lambda bound: geometry.visible_one_bound_holds(construction, spread, eps, bound), guess, least=2)


def spread(r: int, beta: int) -> Fraction:
    """The sharp instances' spread 4 beta (queries beta k and keys k in the unit r-ball: diameters 2 beta, 2)."""
    return Fraction(4 * beta)


BIASED_N = 12


def biased_instance(bias: int) -> tuple[Fraction, list[list[int]]]:
    """A rank-one instance with large biases, as (scale, N): ``L_ij = a_i + b_j + q_i k_j`` with
    ``q_i = 4i/n``, ``k_j = (-1)^j j/n`` and ``|a_i|, |b_j|`` up to ``bias``; ``L = N / n^2``."""
    n = BIASED_N
    return Fraction(1, n * n), [[n * n * bias * ((-1) ** i + (j % 3) - 1) + 4 * i * (-1) ** j * j for j in range(n)] for i in range(n)]


class VisibleLaw(Claim):
    id = "softmax_rank.visible_law"
    paper = "2608.28150"
    sentence = VISIBLE_DIMENSION
    title = "Visible-dimension law: rank_eps <= C (1+S)^{r/2} for every r = 1 head; sharp lattice instances certified against r/2"
    relation = "a finite step of an asymptotic"
    expected = "verified"
    established = "verified"
    uses = ("softmax_rank.row_scalar_quotient", "softmax_rank.spherical_law")
    parameters = (
        Parameter("r_max", 2, 1, 3, "interaction ranks r = 1 .. r_max"),
        Parameter("beta_min", 64, 16, 4**6, "smallest beta (a power of step; beta a perfect square)"),
        Parameter("beta_max", 256, 16, 4**6, "largest beta"),
        Parameter("step", 4, 4, 16, "the betas are the powers of step in [beta_min, beta_max] (step 4 or 16: squares)"),
        Parameter("beta", 0, 0, 4**6, "one beta instead of the range (0 = use beta_min, beta_max, step); a perfect square"),
        Parameter("epsilon", Fraction(1, 10), Fraction(1, 10**6), Fraction(1), "epsilon, in (0, 1)", kind=Fraction, high_open=True),
        Parameter("random", 1, 0, 1, "also certify lower bounds on random instances of the same size (contrast)"),
        Parameter("seed", 0, 0, 10**6, "seed of the random instances"),
        Parameter("bias", 300, 0, 10**6, "size of the biases of the r = 1 instance checked with large biases"),
        Parameter("dense", Fraction(0), Fraction(0), Fraction(4), "also a denser lattice (spacing over sqrt(beta), e.g. 1) with a certified SVD upper bound (0: none)", kind=Fraction),
    )

    def statement(self) -> Statement:
        r = sp.Symbol(r"\operatorname{rank}_\varepsilon(A)")
        S, eps = sp.Symbol("S", nonnegative=True), sp.Symbol("varepsilon", positive=True)
        return Statement(
            hypotheses=(
                (sp.Symbol(r"L=a\mathbf 1^\top+\mathbf 1b^\top+QK^\top,\ \operatorname{rank}(QK^\top)=r"), "logits with an interaction of rank r and any biases"),
                (sp.And(sp.Gt(eps, 0), sp.Lt(eps, 1)), "for the given epsilon in (0, 1)"),
            ),
            conclusion=(
                sp.Le(r, sp.Max(1, sp.ceiling(sp.sqrt(S) / (2 * eps)))),
                "for r = 1 and every n, N and biases (spread S); for r <= r_max certified sandwiches on the sharp "
                "lattice instances (S = 4 beta) whose lower bounds grow like S^{r/2}; C(r, eps) for r >= 2 is not checked",
            ),
        )

    def validate(self, point: dict) -> None:
        D.check_epsilon(point["epsilon"], f"epsilon of {self.id}")
        bs = lattice_betas(point, self.id)
        if point["r_max"] == 3 and max(bs) > 256:
            raise ParameterError(f"r = 3 is run up to beta = 256 (the lattice has ~(4/3) pi (sqrt(beta)/2)^3 points), got {max(bs)} in {self.id}")

    def cost(self, point: dict) -> float:
        # seconds on one core (bench/geometric_laws.py): per instance of n keys ~3.2e-6 n^2 (arb rows in
        # doubt, the checker's re-check, encoding), the lattice's float bisection ~6 float n^2 softmaxes;
        # refitted after the float-first margins (default 0.4-0.7 s, r_max=2 to beta 1024 5.8 s, r_max=3 10.8 s)
        total = 0.08
        for r in range(1, point["r_max"] + 1):
            for b in point_betas(point):
                n = {1: 1.4 * sqrt(b), 2: 0.9 * b, 3: 0.45 * b**1.5}[r]  # keys in the unit r-ball at spacing ~1.4, 1.9, 2.1 over sqrt(beta)
                total += 0.006 + (1 + point["random"]) * 1.4e-6 * n * n + 6 * 2e-8 * n * n
                if point["dense"]:
                    nd = n * (float({1: 1.4, 2: 1.9, 3: 2.1}[r]) / float(point["dense"])) ** r
                    total += 2 * 2 * 3e-6 * nd * nd + 1e-8 * nd**3  # dense=1 (default betas): 13.5 s
        return total

    # ----------------------------------------------------------- obligations

    def _points(self, point: dict):
        bs = point_betas(point)
        return [(r, b) for r in range(1, point["r_max"] + 1) for b in bs]

    def obligations(self, point: dict) -> Obligations:
        """For each r <= r_max and beta, at the point's epsilon:

        * the sharp lattice instance (logits named by digest): ``rank_eps >= lower`` and ``<= upper``
          (r = 1: the anchor lemma on the instance, its form and spread checked; r >= 2: an explicit B);
        * the random instance of the same size (with ``random``): ``rank_eps >= lower``;
        * r = 1: for every head ``a 1^T + 1 b^T + q k^T`` of spread <= 4 beta, ``rank_eps <=`` each lemma's bound;
        * once: the r = 1 lemma on an instance with biases of size ``bias``.
        """
        eps, verify = point["epsilon"], []
        for r, b in self._points(point):
            inst = _sharp(r, b, eps)
            where = f"r = {r}, beta = {b}, lattice instance ({len(inst.Z)} keys; S = {spread(r, b)}, eps = {eps})"
            verify += _instance_obligations(where, inst.scale, inst.integers, eps, len(inst.rows), self._upper(r, b, eps, inst))
            if point["dense"]:
                den = _dense(r, b, eps, Fraction(point["dense"]))
                verify += _instance_obligations(f"r = {r}, beta = {b}, dense lattice ({len(den.Z)} keys, spacing {point['dense']})",
                                                den.scale, den.integers, eps, len(den.rows), den.upper[0] if den.upper else len(den.Z))
            if point["random"]:
                rnd = _random(r, b, eps, len(inst.Z), point["seed"])
                verify += _instance_obligations(f"r = {r}, beta = {b}, random instance ({len(rnd.Z)} keys, seed {point['seed']})",
                                                rnd.scale, rnd.integers, eps, len(rnd.rows), None)
            if r == 1:
                for construction, bound in rank_one_bounds(spread(r, b), eps).items():
                    verify.append(obligation(f"r = 1, every head of spread <= {spread(r, b)} ({construction}; eps = {eps}): rank_eps <= {bound}",
                                             "approx-rank-at-most-every", family="rank-one-interaction", spread_up_to=spread(r, b), epsilon=eps, bound=bound))
        scale, N = biased_instance(point["bias"])
        S = _spread_of(scale, N)
        verify += _instance_obligations(f"r = 1, biases up to {point['bias']} (spread {S})", scale, N, eps, None, min(rank_one_bounds(S, eps).values()))
        pairs = ", ".join(f"(r={r}, beta={b})" for r, b in self._points(point))
        return Obligations(verify=tuple(verify), reach=f"{pairs} at eps = {eps}; r = 1: every head with spread <= {4 * max(point_betas(point))} "
                                                       "(the constant C(r, eps) for r >= 2 is not checked)")

    @staticmethod
    def _upper(r: int, b: int, eps: Fraction, inst: Sharp) -> int | None:
        """The certified upper bound: r = 1 the lemma on the instance; r >= 2 the explicit B's rank, or
        None when every key is a certified row (then rank_eps = n, the trivial bound, stated without a certificate)."""
        if r == 1:
            return min(rank_one_bounds(_spread_of(inst.scale, inst.integers), eps).values())
        if len(inst.rows) == len(inst.Z):
            return None
        return inst.upper[0] if inst.upper else len(inst.Z)

    # ------------------------------------------------------------------ run

    def run(self, point: dict, ev) -> None:
        eps, table = point["epsilon"], {}
        for r, b in self._points(point):
            inst = _sharp(r, b, eps)
            ev.poll()
            ev.certify("approx-rank-lower-scaled", inst.data(eps, rows=inst.rows, groups=inst.groups))
            if r == 1:
                upper = self._upper(r, b, eps, inst)
                construction = min(rank_one_bounds(_spread_of(inst.scale, inst.integers), eps).items(), key=lambda kv: kv[1])[0]
                ev.certify("visible-one-anchors", inst.data(eps, construction=construction, bound=upper))
                for name, bound in rank_one_bounds(spread(r, b), eps).items():
                    ev.certify("visible-one-anchors-every", {"construction": name, "spread": spread(r, b), "epsilon": eps, "bound": bound})
            elif len(inst.rows) == len(inst.Z):
                upper = len(inst.Z)  # every key a certified row: rank_eps = n exactly
            elif inst.upper is None:
                ev.fail("no upper certificate found (B = A itself should always be found)", {"r": r, "beta": b})
                return
            else:
                upper, F, G = inst.upper
                ev.certify("approx-rank-upper-scaled", inst.data(eps, left=F, right=G))
            if len(inst.rows) > upper:
                ev.fail("the certified lower bound exceeds the certified upper bound", {"r": r, "beta": b})
                return
            row = {"keys": len(inst.Z), "spacing c": str(inst.spacing), "S": spread(r, b), "lower": len(inst.rows), "upper": upper}
            if point["random"]:
                rnd = _random(r, b, eps, len(inst.Z), point["seed"])
                ev.certify("approx-rank-lower-scaled", rnd.data(eps, rows=rnd.rows, groups=rnd.groups))
                row["random lower"] = len(rnd.rows)
            if point["dense"]:
                den = _dense(r, b, eps, Fraction(point["dense"]))
                ev.certify("approx-rank-lower-scaled", den.data(eps, rows=den.rows, groups=den.groups))
                if den.upper is None:
                    ev.fail("no upper certificate found on the dense lattice", {"r": r, "beta": b})
                    return
                ev.certify("approx-rank-upper-scaled", den.data(eps, left=den.upper[1], right=den.upper[2]))
                row["dense keys"], row["dense lower"], row["dense upper"] = len(den.Z), len(den.rows), den.upper[0]
            table.setdefault(r, {})[b] = row
            ev.poll()
        scale, N = biased_instance(point["bias"])
        S = _spread_of(scale, N)
        construction, bound = min(rank_one_bounds(S, eps).items(), key=lambda kv: kv[1])
        ev.certify("visible-one-anchors", {"construction": construction, "scale": scale, "integers": N, "multiplicities": [1] * len(N),
                                           "epsilon": eps, "bound": bound})
        ev.fact("sandwiches (per r, beta: lattice instance, S = 4 beta)", table)
        ev.fact("rank_one_every_head (r = 1, S = 4 beta: the lemmas' bounds, valid for every n, N and biases)",
                {b: rank_one_bounds(spread(1, b), eps) for b in table.get(1, {})})
        ev.fact("large_biases", {"bias": point["bias"], "spread": S, "bound": bound, "construction": construction})
        slopes = {}
        for r, rows in table.items():
            xs = [1 + float(rows[b]["S"]) for b in rows]
            for key in ("lower", "upper", "random lower", "dense lower", "dense upper"):
                if all(key in rows[b] for b in rows):
                    slopes[f"r = {r}, {key}"] = _laws.fitted_slope(xs, [rows[b][key] for b in rows], x_min=1 + 4 * _laws.FIT_FROM,
                                                                   variable="1 + S")
            slopes[f"r = {r}, law exponent r/2"] = law_exponent(r)
        ev.fact("fitted_slopes_unchecked (display only: least squares of log(bound) on log(1+S), beta >= 64; they decide nothing)", slopes)
        ev.cover("r", list(table))
        ev.cover("betas", sorted({b for rows in table.values() for b in rows}))
        ev.cover("epsilon", eps)
        ev.note("; ".join(f"r = {r}: " + ", ".join(f"beta {b}: {v['lower']}..{v['upper']}" + (f" (random {v['random lower']})" if "random lower" in v else "")
                                                  for b, v in rows.items()) for r, rows in table.items())
                + f" (eps = {eps}); r = 1 bound holds for every head, checked with biases up to {point['bias']}")

    # ---------------------------------------------------------------- plots

    def plots(self, record: dict) -> list[Plot]:
        facts = record.get("facts", {})
        table = next((v for k, v in facts.items() if k.startswith("sandwiches")), {})
        eps = record.get("parameters", {}).get("epsilon", "1/10")
        out = []
        for r, rows in sorted(table.items(), key=lambda kv: int(kv[0])):
            bs = sorted(rows, key=int)
            xs = [1 + float(Fraction(str(rows[b]["S"]))) for b in bs]
            lowers = {"lattice instance: certified lower": [rows[b]["lower"] for b in bs]}
            if all("random lower" in rows[b] for b in bs):
                lowers["random instance: certified lower"] = [rows[b]["random lower"] for b in bs]
            uppers = {"lattice instance: certified upper": [rows[b]["upper"] for b in bs]}
            if all("dense upper" in rows[b] for b in bs):
                uppers["dense lattice: certified upper (SVD)"] = [rows[b]["dense upper"] for b in bs]
            out.append(_laws.law_plot(f"visible_law_r{r}", f"r = {r}: certified rank_eps against 1 + S, law exponent r/2 = {law_exponent(int(r))}",
                                      "1 + S", xs, lowers, uppers, law_exponent(int(r)), f"eps = {eps}; floats for display only"))
        return out


def _spread_of(scale: Fraction, N) -> Fraction:
    """The spread of ``scale N`` (exact; the same function the checker runs)."""
    from solvers.trusted.geometry import spread_of_integers
    return abs(Fraction(scale)) * spread_of_integers([[int(v) for v in row] for row in N])


def _instance_obligations(where: str, scale, N, eps, lower: int | None, upper: int | None):
    """``lower <= rank_eps <= upper`` (None: not stated) on the instance ``rowsoftmax(scale N)``, named as the checker names it."""
    fields = dict(instance=D.integers_digest({"scale": Fraction(scale), "integers": N, "multiplicities": [1] * len(N[0])}),
                  n=len(N), epsilon=Fraction(eps))
    out = []
    if lower is not None:
        out.append(obligation(f"{where}: rank_eps >= {lower}", "approx-rank-at-least", bound=lower, **fields))
    if upper is not None:
        out.append(obligation(f"{where}: rank_eps <= {upper}", "approx-rank-at-most", bound=upper, **fields))
    return out


CLAIM = VisibleLaw()
