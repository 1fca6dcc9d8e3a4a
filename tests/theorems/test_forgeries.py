"""Forgery suite: real outcome folders, forged as a hostile reader would, must not verify.

One module-scoped ``attnproof check`` of the quick claims at small parameters
writes real outcomes and certificates; each test copies the folders it needs,
forges them (an edited envelope, a moved or swapped certificate, a raised
tolerance, another head, a dropped certificate, an edited outcome, a vacuous
certificate, points off the sphere, duplicate keys, hostile files, a plugin)
and asserts that ``verify`` refuses it *with the reason that names the
forgery* — and that the untouched copy does verify, so no refusal here is
vacuous.

The last tests reproduce holes found by a forgery review (something ``verify``
accepted, crashed on or hung on); each is fixed, and stays here as a test.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from fractions import Fraction

import pytest

from solvers.trusted.core import MAX_WORK
from theorems import cli, verification
from theorems.core import get

T3 = "kernel_rank.three_token_lower_bound"
R1 = "kernel_rank.rank_one_short"
ROW = "kernel_rank.row_lemma"
RDC = "kernel_rank.rational_decoding_collision"
DU = "softmax_rank.duality"
TANH = "softmax_rank.residual_error_tanh"
CRB = "softmax_rank.certified_rank_bounds"
SPH = "softmax_rank.spherical_law"
MH = "conjectures.multi_head_length"
CLAIMS = (T3, R1, ROW, RDC, DU, TANH, CRB, SPH, MH)
PARAMS = ("rank_one_short:m=3", "m_statistic=20", "w_max=4", "n_vertices=3", "samples=2", "n_large=4",
          "certified_rank_bounds:n=8", "beta_max=4", "density=4", "copies=10", "multi_head_length:m_max=2")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A guard against hangs only, not a speed test: each bounded-time test below asserts *why* it ended (the
# binding's refusal by the claim's cost estimate or by its parameters, the checker's by its work estimate).
# Measured on a loaded 2-core machine: 3.7-4.6 s for a whole verify of these folders, 0.6 s for the checker.
BOUND = 120.0


# ------------------------------------------------------------------ fixtures and helpers


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """One real check of the quick claims at small parameters (a few seconds)."""
    out = tmp_path_factory.mktemp("forgeries") / "outcomes"
    argv = ["check", *CLAIMS, "--jobs", "1", "--out", str(out)]
    for item in PARAMS:
        argv += ["--param", item]
    assert cli.main(argv) == 0  # every quick claim came out as expected
    return out


def copy(outcomes, tmp_path, *claims) -> tuple[str, list[str]]:
    """A fresh outcome folder holding only ``claims``; returns it and each claim's point folder."""
    root = tmp_path / "run"
    points = []
    for claim in claims:
        [src] = glob.glob(str(outcomes / claim / "*"))
        dst = root / claim / os.path.basename(src)
        shutil.copytree(src, dst)
        points.append(str(dst))
    return str(root), points


def read(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def write(path, value):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(value if isinstance(value, str) else json.dumps(value, indent=1))


def cert(point, prefix):
    [path] = glob.glob(os.path.join(point, prefix + "*.cert.json"))
    return path


def outcome_of(result, claim):
    [found] = [o for o in result.outcomes if o.claim == claim]
    return found


def line_of(result, where):
    """The checker's line about one file: ``where`` is its path, or its name when that is unique."""
    if os.sep in where:
        [found] = [c for c in result.certificates if os.path.realpath(c["path"]) == os.path.realpath(where)]
    else:
        [found] = [c for c in result.certificates if os.path.basename(c["path"]) == where]
    return found


def one_line(result):
    """Every reason ``verify`` gives is one line."""
    reasons = [c.get("reason", "") for c in result.certificates] + [o.reason for o in result.outcomes] + [o.binding for o in result.outcomes]
    assert all("\n" not in r for r in reasons)
    return True


def refused(root, claim, *, checker=None, binding=None):
    """``verify`` refuses the folder: the outcome of ``claim`` does not stand, for the reason given."""
    result = verification.verify([root])
    assert not result.error, result.error
    assert not result.ok
    out = outcome_of(result, claim)
    assert not out.ok
    if checker is not None:
        assert not out.checked and checker in out.reason, out.reason
    if binding is not None:
        assert not out.bound and binding in out.binding, out.binding
    assert one_line(result)
    return result, out


def rational(q) -> str | int:
    q = Fraction(q)
    return q.numerator if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def envelope_like(path, kind, data):
    """A certificate of ``kind`` carrying the envelope (claim, statement, point) of the one at ``path``."""
    return read(path) | {"kind": kind, "data": data}


def bounded(function, seconds):
    """Run ``function()`` in a forked child; (finished in time, its JSON result or None).  Never hangs."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest teardown, ever
        os.close(reader)
        try:
            text = json.dumps(function())
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which asserts on it
            text = json.dumps({"exception": f"{type(exc).__name__}: {str(exc)[:200]}"})
        os.write(writer, text.encode())
        os._exit(0)
    os.close(writer)
    ready, _, _ = select.select([reader], [], [], seconds)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(reader)
        return False, None
    chunks = []
    while chunk := os.read(reader, 1 << 16):
        chunks.append(chunk)
    os.close(reader)
    os.waitpid(pid, 0)
    return True, json.loads(b"".join(chunks) or b"null")


def run_group(argv, seconds, **kwargs):
    """Run a command in its own process group; kill the whole group after ``seconds``.
    Returns (finished, exit code, stdout, stderr)."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, **kwargs)
    try:
        out, err = process.communicate(timeout=seconds)
        return True, process.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return False, None, out, err


def attnproof(args, cwd, env_extra=None, seconds=300):
    """The command in a process group of its own; ``seconds`` only catches a hang (a verify here takes 2-10 s)."""
    env = dict(os.environ, PYTHONPATH=ROOT, **(env_extra or {}))
    return run_group([sys.executable, "-m", "theorems.cli", *args], seconds, cwd=cwd, env=env)


# ------------------------------------------------------------------ the honest run


def test_the_untouched_outcomes_verify_so_every_refusal_below_is_meaningful(outcomes, tmp_path):
    root, _ = copy(outcomes, tmp_path, *CLAIMS)
    result = verification.verify([root])
    assert result.ok and not result.error
    assert len(result.outcomes) == len(CLAIMS) and all(o.ok for o in result.outcomes)
    assert all(c["status"] == "accepted" for c in result.certificates)
    verified = [o for o in result.outcomes if o.status == "verified"]
    assert verified and all(o.obligations and all(r["by"] for r in o.obligations if r["side"] == "verify") for o in verified)


# ------------------------------------------------------------------ envelopes and moved certificates


def test_edited_envelope_parameters_epsilon_1_10_to_11_10(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, SPH)
    path = cert(point, "00-approx-rank-lower-points")
    c = read(path)
    assert c["parameters"]["epsilon"] == "1/10"
    c["parameters"]["epsilon"] = "11/10"
    write(path, c)
    refused(root, SPH, checker="was made for another claim, statement or point")


def test_certificate_copied_to_another_claims_folder_and_listed_there(outcomes, tmp_path):
    root, [t3, r1] = copy(outcomes, tmp_path, T3, R1)
    moved = os.path.join(r1, "02-rank-one-infeasible.cert.json")
    shutil.copy(cert(t3, "03-rank-one-infeasible"), moved)
    record = read(os.path.join(r1, "outcome.json"))
    record["certificates"].append(moved)
    write(os.path.join(r1, "outcome.json"), record)
    refused(root, R1, checker="02-rank-one-infeasible.cert.json was made for another claim, statement or point")


def test_moved_certificate_with_its_envelope_rewritten_to_the_target_discharges_nothing(outcomes, tmp_path):
    root, [t3, r1] = copy(outcomes, tmp_path, T3, R1)
    target = cert(r1, "00-exhaustive")
    write(target, read(cert(t3, "02-exhaustive")) | {k: read(target)[k] for k in ("claim", "statement", "parameters")})
    result, _ = refused(root, R1, checker="1 obligation(s) not discharged, first: the witness head")
    assert line_of(result, target)["status"] == "accepted"  # a true certificate, about another head


def test_needed_certificate_replaced_by_one_of_another_kind(outcomes, tmp_path):
    root, [t3, du] = copy(outcomes, tmp_path, T3, DU)
    target = cert(t3, "03-rank-one-infeasible")
    write(target, read(cert(du, "00-duality")) | {k: read(target)[k] for k in ("claim", "statement", "parameters")})
    refused(root, T3, checker="not discharged, first: no rank-one head solves exact length 3")


# ------------------------------------------------------------------ data: tolerances, heads, matrices, instances


def test_tolerance_raised_in_data(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    path = cert(point, "02-exhaustive")
    c = read(path)
    assert c["data"]["tolerance"] == "1/2"
    c["data"]["tolerance"] = 1  # above 1/2: refused by the checker, never a "solves" line
    write(path, c)
    result, _ = refused(root, T3, checker="02-exhaustive.cert.json was not accepted")
    assert line_of(result, path)["status"] == "REJECTED" and "[0, 1/2]" in line_of(result, path)["reason"]
    c["data"]["tolerance"] = "1/4"  # a tolerance the checker reads: the witness errs by more than 1/4
    write(path, c)
    refused(root, T3, checker="02-exhaustive.cert.json was not accepted")


def test_epsilon_raised_on_an_upper_bound(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, SPH)
    path = cert(point, "01-approx-rank-upper-points")
    c = read(path)
    c["data"]["epsilon"] = "1/5"
    write(path, c)
    result, _ = refused(root, SPH, checker="not discharged, first: beta = 1, largest lower (3 points of S^1; beta = 1, eps = 1/10): rank_eps <= 3")
    assert line_of(result, path)["status"] == "accepted"


def test_epsilon_lowered_on_a_lower_bound(outcomes, tmp_path):
    """The issue's spherical_law variant: lower bounds certified at 1/20 while reporting 1/10."""
    root, [point] = copy(outcomes, tmp_path, SPH)
    path = cert(point, "00-approx-rank-lower-points")
    c = read(path)
    c["data"]["epsilon"] = "1/20"
    write(path, c)
    refused(root, SPH, checker="not discharged, first: beta = 1, largest lower (3 points of S^1; beta = 1, eps = 1/10): rank_eps >= 3")


def test_score_head_changed_so_it_still_passes_the_checker(outcomes, tmp_path):
    """kappa doubled: the same outputs, so the checker accepts it, but it is not the claim's head."""
    root, [point] = copy(outcomes, tmp_path, R1)
    path = cert(point, "01-score-statistic")
    c = read(path)
    c["data"]["kappa"] = [[rational(2 * Fraction(v)) for v in row] if isinstance(row, list) else rational(2 * Fraction(row))
                          for row in c["data"]["kappa"]]
    write(path, c)
    result, _ = refused(root, R1, checker="not discharged, first: the same head as a score head")
    assert line_of(result, path)["status"] == "accepted"


def test_score_head_readout_shifted_with_a_raised_tolerance(outcomes, tmp_path):
    """The issue's shifted readout: value + 1/10 with tolerance 1/2 passes, and is another head at another tolerance."""
    root, [point] = copy(outcomes, tmp_path, R1)
    path = cert(point, "01-score-statistic")
    c = read(path)
    c["data"]["value"] = [[rational(Fraction(v) + Fraction(1, 10)) for v in row] for row in c["data"]["value"]]
    c["data"]["tolerance"] = "1/2"
    write(path, c)
    result, _ = refused(root, R1, checker="not discharged, first: the same head as a score head")
    assert line_of(result, path)["status"] == "accepted"


def test_table_head_changed_so_it_still_passes_the_checker(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, R1)
    path = cert(point, "00-exhaustive")
    c = read(path)
    c["data"]["phi"] = [[rational(2 * Fraction(v)) for v in row] for row in c["data"]["phi"]]
    write(path, c)
    result, _ = refused(root, R1, checker="not discharged, first: the witness head")
    assert line_of(result, path)["status"] == "accepted"


def test_score_certificate_for_a_smaller_m(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, R1)
    path = cert(point, "01-score-statistic")
    c = read(path)
    m = c["data"]["m"]
    c["data"].update(m=m - 1, kappa=c["data"]["kappa"][:m], value=c["data"]["value"][:m])
    write(path, c)
    refused(root, R1, checker="for every m' <= 20")


def test_a_matrix_that_is_not_the_claims(outcomes, tmp_path):
    """duality: another matrix proves the identity for itself, not for the seeded one."""
    root, [point] = copy(outcomes, tmp_path, DU)
    path = cert(point, "00-duality")
    c = read(path)
    c["data"]["matrix"] = [[1], [2], [3]]
    write(path, c)
    result, _ = refused(root, DU, checker="not discharged, first: seeded matrix #0")
    assert line_of(result, path)["status"] == "accepted"


def test_another_instance_copies_of_points(outcomes, tmp_path):
    """certified_rank_bounds: the same points with other multiplicities name another instance."""
    root, [point] = copy(outcomes, tmp_path, CRB)
    path = cert(point, "00-approx-rank-lower-points")
    c = read(path)
    c["data"]["multiplicities"] = [8] * len(c["data"]["multiplicities"])
    write(path, c)
    refused(root, CRB, checker="not discharged, first: W on the distinct points")


def test_a_case_dropped_from_a_kernel_row_certificate(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, ROW)
    path = cert(point, "00-kernel-row-infeasible")
    c = read(path)
    c["data"]["cases"].pop()
    write(path, c)
    result, _ = refused(root, ROW, checker="1 obligation(s) not discharged")
    assert line_of(result, path)["status"] == "accepted"


def test_a_refutation_moved_to_another_delta(outcomes, tmp_path):
    """residual_error_tanh: the same perturbation still exceeds tanh(delta) at e^delta = 5/2, which is not the claim's point."""
    root, [point] = copy(outcomes, tmp_path, TANH)
    path = cert(point, "00-residual-two-point")
    c = read(path)
    assert c["data"]["t"] == 3
    # a genuine counterexample, but at e^delta = 5/2 (z3's model at t = 3 need not fit there: its
    # weights may exceed (5/2)^2, so the closed-form maximiser is filed instead)
    t = Fraction(5, 2)
    c["data"].update(t=rational(t), row=[rational(1 / (t + 1)), rational(t / (t + 1))], weights=[rational(t * t), 1])
    write(path, c)
    result, _ = refused(root, TANH, checker="no refutation obligation is discharged")
    assert line_of(result, path)["status"] == "accepted"


def test_points_off_the_sphere(outcomes, tmp_path):
    """Points scaled by 2 with beta / 4: the very same logits, but not on S^1 and another instance."""
    root, [point] = copy(outcomes, tmp_path, SPH)
    path = cert(point, "00-approx-rank-lower-points")
    c = read(path)
    c["data"]["points"] = [[rational(2 * Fraction(v)) for v in row] for row in c["data"]["points"]]
    c["data"]["beta"] = rational(Fraction(c["data"]["beta"]) / 4)
    write(path, c)
    result, _ = refused(root, SPH, checker="not discharged, first: beta = 1, largest lower")
    line = line_of(result, path)
    assert line["status"] == "accepted" and line["judgment"]["sphere"] is False


# ------------------------------------------------------------------ dropped certificates


def test_dropped_certificate_file(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    os.remove(cert(point, "03-rank-one-infeasible"))
    refused(root, T3, checker="certificate 03-rank-one-infeasible.cert.json is missing")


def test_dropped_certificate_and_its_listing(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    os.remove(cert(point, "03-rank-one-infeasible"))
    record = read(os.path.join(point, "outcome.json"))
    record["certificates"] = [p for p in record["certificates"] if "03-" not in os.path.basename(p)]
    write(os.path.join(point, "outcome.json"), record)
    refused(root, T3, checker="not discharged, first: no rank-one head solves exact length 3")


def test_dropped_refutation_of_a_refuted_outcome(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, RDC)
    os.remove(cert(point, "10-decoding-collision"))
    record = read(os.path.join(point, "outcome.json"))
    record["certificates"] = [p for p in record["certificates"] if "decoding-collision" not in p]
    write(os.path.join(point, "outcome.json"), record)
    refused(root, RDC, checker="no refutation obligation is discharged")


# ------------------------------------------------------------------ outcome.json edits


def edit_outcome(outcomes, tmp_path, claim, change):
    root, [point] = copy(outcomes, tmp_path, claim)
    path = os.path.join(point, "outcome.json")
    record = read(path)
    change(record, point)
    write(path, record)
    return root


def _tighten_m(record, _):
    record["obligations"]["verify"][-1]["judgment"]["m"] = [5, None]


def _drop_obligation(record, _):
    record["obligations"]["verify"].pop()


def _reach_all(record, _):
    assert record["obligations"]["reach"] != "all"  # rank_one_short reaches finite sizes only: claim every parameter
    record["obligations"]["reach"] = "all"


def _words(record, _):
    record["obligations"]["verify"][0]["words"] = "a rank-one head solves every sequence of every length for every m"


@pytest.mark.parametrize("claim, change", [(T3, _tighten_m), (T3, _drop_obligation), (R1, _reach_all), (T3, _words)],
                         ids=["judgment", "dropped", "reach", "words"])
def test_edited_obligations_in_the_outcome(outcomes, tmp_path, claim, change):
    root = edit_outcome(outcomes, tmp_path, claim, change)
    _, out = refused(root, claim, binding=f"the obligations recorded differ from those {claim} states")
    assert out.checked  # stage 1 discharges what the file says; only the binding to the installed claim catches it


def test_status_verified_edited_to_refuted(outcomes, tmp_path):
    root = edit_outcome(outcomes, tmp_path, T3, lambda r, _: r.update(status="refuted"))
    refused(root, T3, checker="no refutation obligation is discharged")


def test_status_refuted_weakened_to_unknown(outcomes, tmp_path):
    """A discharged refute obligation earns refuted: an outcome saying less (unknown, "budget") does not stand."""
    root = edit_outcome(outcomes, tmp_path, RDC, lambda r, _: r.update(status="unknown", unknown={"why": "budget", "partial": True}))
    refused(root, RDC, checker="a refute obligation is discharged by 10-decoding-collision.cert.json: the outcome must say refuted")


def test_status_verified_weakened_to_unknown(outcomes, tmp_path):
    """Every verify obligation discharged earns verified (the claim is no open conjecture): unknown does not stand."""
    root = edit_outcome(outcomes, tmp_path, T3, lambda r, _: r.update(status="unknown", unknown={"why": "undecided", "partial": True}))
    _, out = refused(root, T3, binding="every verify obligation is discharged and kernel_rank.three_token_lower_bound is no open conjecture: the outcome must say verified")
    assert out.checked  # stage 1 cannot know the claim is not open: the binding to the installed claim decides


def test_an_honest_partial_unknown_still_stands(outcomes, tmp_path):
    """An outcome whose discharges earn nothing more than unknown (a certificate short) stands as unknown."""
    def change(record, point):
        os.remove(cert(point, "03-rank-one-infeasible"))
        record["certificates"] = [p for p in record["certificates"] if "03-" not in os.path.basename(p)]
        record.update(status="unknown", unknown={"why": "budget", "partial": True})

    root = edit_outcome(outcomes, tmp_path, T3, change)
    result = verification.verify([root])
    assert result.ok and outcome_of(result, T3).ok


def test_an_open_conjecture_with_every_verify_obligation_discharged_stands_as_unknown(outcomes, tmp_path):
    root, _ = copy(outcomes, tmp_path, MH)
    result = verification.verify([root])
    out = outcome_of(result, MH)
    assert out.status == "unknown" and all(o["by"] for o in out.obligations if o["side"] == "verify")
    assert result.ok and out.ok


def test_verify_says_plainly_what_stands_and_what_does_not(outcomes, tmp_path):
    """Certificates accepted as data never read as an outcome accepted: a line that says DOES NOT STAND gives
    its reason first, and the last line says how many outcomes stand before what the checker accepted."""
    root, [t3, rdc] = copy(outcomes, tmp_path, T3, RDC)
    path = cert(t3, "00-exhaustive")
    write(path, read(path) | {"claim": R1})  # accepted as data, but made for another claim
    os.remove(cert(rdc, "10-decoding-collision"))
    record = read(os.path.join(rdc, "outcome.json"))
    record["certificates"] = [p for p in record["certificates"] if "decoding-collision" not in p]
    write(os.path.join(rdc, "outcome.json"), record)
    text = verification.lines(verification.verify([root]), [root])
    [bad_t3] = [line for line in text if line.startswith(T3)]
    [bad_rdc] = [line for line in text if line.startswith(RDC)]
    assert bad_t3.startswith(f"{T3} [{os.path.basename(t3)}]: verified DOES NOT STAND -- certificate 00-exhaustive.cert.json was made for another claim")
    assert bad_rdc.startswith(f"{RDC} [default]: refuted DOES NOT STAND -- no refutation obligation is discharged")
    for line in (bad_t3, bad_rdc):
        assert "certificate(s) accepted;" not in line  # no count of accepted data beside "does not stand"
    under = text[text.index(bad_rdc) + 1]
    refutes = len(record["obligations"]["refute"])
    assert "accepted by the checker as data" in under and f"0 of {refutes} refute obligation(s) discharged" in under
    assert text[-1].startswith("NOT VERIFIED: 0 of 2 outcome(s) stand (2 do not);")
    assert "certificate(s) accepted by the checker as data" in text[-1]


def test_status_edited_to_a_word_that_is_not_a_status(outcomes, tmp_path):
    root = edit_outcome(outcomes, tmp_path, T3, lambda r, _: r.update(status="proved"))
    refused(root, T3, checker="status must be one of")


def test_statement_edited_in_the_outcome_and_every_certificate(outcomes, tmp_path):
    def change(record, point):
        record["statement"] = "sha256:" + "0" * 64
        for path in glob.glob(os.path.join(point, "*.cert.json")):
            write(path, read(path) | {"statement": record["statement"]})

    root = edit_outcome(outcomes, tmp_path, T3, change)
    result, out = refused(root, T3, binding="statement hash differs")
    assert out.checked  # consistent files pass stage 1: only the binding to the installed claim catches it


def test_parameters_edited_in_the_outcome(outcomes, tmp_path):
    root = edit_outcome(outcomes, tmp_path, T3, lambda r, _: r["parameters"].update(m_feasible=2))
    refused(root, T3, checker="was made for another claim, statement or point", binding="obligations recorded differ")


def test_parameters_relabelled_everywhere_with_the_obligations_recomputed(outcomes, tmp_path):
    """epsilon 1/10 -> 1/20 in the outcome, its obligations (as the claim states them there) and every envelope."""

    def change(record, point):
        record["parameters"]["epsilon"] = "1/20"
        claim = get(SPH)
        record["obligations"] = claim.obligations(claim.point(record["parameters"])).to_json()
        for path in glob.glob(os.path.join(point, "*.cert.json")):
            write(path, read(path) | {"parameters": record["parameters"]})

    root = edit_outcome(outcomes, tmp_path, SPH, change)
    [point] = glob.glob(os.path.join(root, SPH, "*"))
    os.rename(point, point.replace("density", "epsilon=1_20,density"))  # the folder named as the point it now says
    result, out = refused(root, SPH, checker="obligation(s) not discharged")
    assert out.bound  # the relabelled outcome binds: the certificates, proved at 1/10, do not discharge 1/20


def test_verified_with_an_empty_obligation_list(outcomes, tmp_path):
    def change(record, _):
        record["obligations"] = {"verify": [], "refute": [], "reach": "all"}

    root = edit_outcome(outcomes, tmp_path, T3, change)
    refused(root, T3, checker="a verified outcome with no obligations proves nothing", binding="obligations recorded differ")


def test_duplicate_keys_in_an_outcome(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    path = os.path.join(point, "outcome.json")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    write(path, text.replace('"status":', '"status": "refuted", "status":', 1))
    result = verification.verify([root])
    assert not result.ok
    [out] = result.outcomes
    assert not out.ok and "REFUSED: duplicate key 'status'" in out.reason


def test_open_conjecture_edited_to_verified(outcomes, tmp_path):
    root = edit_outcome(outcomes, tmp_path, MH, lambda r, _: r.update(status="verified"))
    result = verification.verify([root])
    assert not result.ok and not outcome_of(result, MH).ok


# ------------------------------------------------------------------ vacuous certificates


def test_vacuous_certificates_are_rejected(outcomes, tmp_path):
    """lengths [] and readout-infeasible at tolerance <= 0 (where one sequence contradicts itself)."""
    root, [point] = copy(outcomes, tmp_path, T3)
    base = cert(point, "00-exhaustive")
    write(os.path.join(point, "90-exhaustive.cert.json"), read(base) | {"data": read(base)["data"] | {"lengths": []}})
    for k, tolerance in enumerate((0, -1, "-1/2")):
        data = {"m": 1, "query": "1", "weights": {"1": 1}, "sequences": [["1"]], "multipliers": [[1, 1]], "tolerance": tolerance}
        write(os.path.join(point, f"9{k + 1}-readout-infeasible.cert.json"), envelope_like(base, "readout-infeasible", data))
    result = verification.verify([root])
    assert not result.ok and one_line(result)
    assert "lengths has 0 entries" in line_of(result, "90-exhaustive.cert.json")["reason"]
    for k in range(3):
        line = line_of(result, f"9{k + 1}-readout-infeasible.cert.json")
        assert line["status"] == "REJECTED" and "tolerance must be > 0" in line["reason"]
    assert outcome_of(result, T3).ok  # the outcome itself still stands: the run went on


def test_vacuous_tolerance_in_place_of_a_needed_certificate(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    path = cert(point, "00-exhaustive")
    write(path, read(path) | {"data": read(path)["data"] | {"tolerance": 5}})
    refused(root, T3, checker="00-exhaustive.cert.json was not accepted")


def test_vacuous_tolerance_five_added_to_a_folder(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    base = read(cert(point, "02-exhaustive"))
    base["data"].update(tolerance=5, readout=[[0] * 8 for _ in range(8)])
    write(os.path.join(point, "99-exhaustive.cert.json"), base)
    result = verification.verify([root])
    assert not result.ok


# ------------------------------------------------------------------ hostile files


def hostile_corpus(folder, base):
    """Hostile files beside a real outcome; returns {name: (status, words in the reason)}."""
    os.makedirs(folder)

    def env(kind, data):
        return envelope_like(base, kind, data)

    expected = {}

    def put(name, content, status, words):
        path = os.path.join(folder, name)
        if isinstance(content, bytes):
            with open(path, "wb") as handle:
                handle.write(content)
        else:
            write(path, content)
        expected[name] = (status, words)

    put("huge-int.cert.json", '{"x": ' + "9" * 5000 + "}", "REFUSED", "an integer of 5000 digits")
    put("deep.cert.json", "[" * 100_000 + "]" * 100_000, "REFUSED", "nesting deeper than")
    put("latin1.cert.json", b'{"kind": "\xe9\xff"}', "REFUSED", "not UTF-8")
    put("nan.cert.json", '{"x": NaN}', "REFUSED", "non-JSON constant NaN")
    put("float.cert.json", env("exhaustive", read(base)["data"] | {"tolerance": 0.5}), "REFUSED", "a float")
    put("dup.cert.json", json.dumps(read(base)).replace('"kind":', '"kind": "duality", "kind":', 1), "REFUSED", "duplicate key 'kind'")
    put("version-true.cert.json", read(base) | {"version": True}, "REJECTED", "unsupported version")
    put("tolerance-exp.cert.json", env("exhaustive", read(base)["data"] | {"tolerance": "1e1000000000"}), "REJECTED",
        "tolerance must be an int or a string 'p/q'")
    rank = {"m": 2, "n": 2, "prefixes": [[1], [2]], "queries": [1, 2]}
    put("prime-4000.cert.json", json.dumps(env("behaviour-rank", rank | {"prime": 0})).replace('"prime": 0', '"prime": 1' + "0" * 3998 + "7"),
        "REFUSED", "an integer of 4000 digits")
    put("prime-1999.cert.json", env("behaviour-rank", rank | {"prime": int("1" + "0" * 1998 + "7")}), "REJECTED", "a prime must lie in [2, 2^62)")
    put("score-2000.cert.json", env("score-statistic", {"m": 2000, "lengths": [8], "kappa": [1] * 2001, "value": [0] * 2001,
                                                      "target": "min-ip", "tolerance": "1/2"}), "REFUSED", "asks for about")
    put("threshold-1000.cert.json", env("threshold-polynomial", {"m": 1000, "length": 6, "coefficients": [0, 1], "symmetry": "scores"}),
        "REFUSED", "asks for about")
    put("surd-12.cert.json", env("surd-decoding", {"m": 8, "primes": [2] * 256, "max_length": 12, "precision": 64}), "REFUSED", "asks for about")
    put("type-phi.cert.json", env("exhaustive", read(base)["data"] | {"phi": {"a": 1}}), "REJECTED", "phi_0 must be a list")
    put("type-rows.cert.json", env("rank-one-infeasible", {"m": 1, "positions": 1, "rows": "x", "nonnegative": None}), "REJECTED", "true or false")
    put("nonsense.cert.json", env("nonsense", {}), "REJECTED", "unknown certificate kind 'nonsense'")
    os.mkfifo(os.path.join(folder, "fifo.cert.json"))
    expected["fifo.cert.json"] = ("REFUSED", "not a regular file")
    os.symlink("/dev/zero", os.path.join(folder, "zero.cert.json"))
    expected["zero.cert.json"] = ("REFUSED", "not a regular file")
    return expected


def test_hostile_files_are_refused_in_bounded_time_and_the_run_goes_on(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    expected = hostile_corpus(os.path.join(root, "hostile"), cert(point, "00-exhaustive"))
    result = verification.verify([root])  # a FIFO read would block: the run ending at all is the test
    assert not result.error and not result.ok and one_line(result)
    for name, (status, words) in expected.items():
        line = line_of(result, name)
        assert line["status"] == status and words in line["reason"], (name, line)
    assert outcome_of(result, T3).ok  # the honest outcome beside them is still checked, and stands
    assert sum(c["status"] == "accepted" for c in result.certificates) == 4


def test_hostile_outcome_files_are_refused_and_the_run_goes_on(outcomes, tmp_path):
    root, [t3, r1] = copy(outcomes, tmp_path, T3, R1)
    bad = os.path.join(root, "bad")
    for name, make in (("fifo", os.mkfifo), ("zero", lambda p: os.symlink("/dev/zero", p))):
        os.makedirs(os.path.join(bad, name))
        make(os.path.join(bad, name, "outcome.json"))
    for name, text in (("deep", "[" * 100_000 + "]" * 100_000), ("huge", '{"claim": ' + "7" * 5000 + "}")):
        os.makedirs(os.path.join(bad, name))
        write(os.path.join(bad, name, "outcome.json"), text)
    result = verification.verify([root])
    assert not result.error and not result.ok and one_line(result)
    refusals = [o for o in result.outcomes if o.path.startswith(bad)]
    assert len(refusals) == 4 and all(not o.ok and o.reason.startswith("REFUSED:") for o in refusals)
    assert outcome_of(result, T3).ok and outcome_of(result, R1).ok


def test_nul_byte_in_an_outcomes_certificate_list(outcomes, tmp_path):
    root, [t3, r1] = copy(outcomes, tmp_path, T3, R1)
    path = os.path.join(r1, "outcome.json")  # kernel_rank.rank_one_short is judged first, then three_token
    record = read(path)
    record["certificates"].append("x\u0000y.cert.json")
    write(path, record)
    result = verification.verify([root])
    assert not result.error, result.error
    assert not outcome_of(result, R1).ok and outcome_of(result, T3).ok


def test_parameters_written_otherwise_than_the_claim_reads_them(outcomes, tmp_path):
    """epsilon "1/10" written "2/20" in the outcome and every envelope: the same point, the same folder name and
    obligations, so stage 1 accepts it and only the binding's check that parameters are written as the claim
    reads them (``encode(point) == parameters``) refuses it; the untouched copy stands."""
    root = relabel_everywhere(outcomes, tmp_path, SPH, epsilon="2/20")
    result, out = refused(root, SPH, binding="parameters are not written as the claim reads them")
    assert out.checked  # consistent files pass stage 1
    honest, _ = copy(outcomes, tmp_path / "honest", SPH)
    assert verification.verify([honest]).ok


def relabel_everywhere(outcomes, tmp_path, claim, **parameters):
    """Edit the outcome's parameters and every envelope alike, so stage 1 accepts the folder and stage 2 must judge it."""

    def change(record, point):
        record["parameters"].update(parameters)
        for path in glob.glob(os.path.join(point, "*.cert.json")):
            write(path, read(path) | {"parameters": record["parameters"]})

    return edit_outcome(outcomes, tmp_path, claim, change)


def verify_within(root, seconds):
    """``verify`` in a forked child, killed after ``seconds``: (finished, {ok, checked, bound, binding})."""

    def judge():
        result = verification.verify([root])
        [out] = result.outcomes
        return {"ok": result.ok, "checked": out.checked, "bound": out.bound, "binding": out.binding}

    return bounded(judge, seconds)


def test_parameter_with_a_huge_exponent_in_an_outcome(outcomes, tmp_path):
    root = relabel_everywhere(outcomes, tmp_path, SPH, epsilon="1e1000000000")
    [check] = verification.run_checker([root]).outcomes
    assert check.checked  # stage 1 compares parameters as text: the hang is in stage 2
    finished, got = verify_within(root, BOUND)
    assert finished and "exception" not in got and got["ok"] is False and got["bound"] is False
    assert got["binding"].startswith("parameters are not a point of softmax_rank.spherical_law"), got["binding"]


def test_expensive_in_range_parameters_in_an_outcome(outcomes, tmp_path):
    root = relabel_everywhere(outcomes, tmp_path, SPH, beta_max=4**7, density=256, step=2, copies=10**9)
    [check] = verification.run_checker([root]).outcomes
    assert check.checked  # the small run's obligations, still recorded, are discharged: only stage 2 can refuse it
    finished, got = verify_within(root, BOUND)
    assert finished and "exception" not in got and got["ok"] is False and got["bound"] is False
    # refused from the claim's own cost estimate, before any obligation is stated at that point
    assert got["binding"].startswith("refused: softmax_rank.spherical_law at this point is estimated at "), got["binding"]
    assert got["binding"].endswith(f" s, above {verification.BIND_BUDGET:.0f} s"), got["binding"]


def test_big_numbers_do_not_escape_the_work_estimate(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    rows = [["lo" if i % 2 else "hi", f"1/{10**1999 + 2 * i + 1}", ["01", "10", "11"]] for i in range(400)]
    path = os.path.join(point, "99-rank-one-infeasible.cert.json")
    write(path, envelope_like(cert(point, "00-exhaustive"), "rank-one-infeasible",
                              {"m": 2, "positions": False, "rows": rows, "nonnegative": []}))
    command = [sys.executable, "-I", "-S", "-c", verification.BOOT, os.pathsep.join(verification._search_path()),
               "--max-work", str(MAX_WORK), path]
    finished, code, out, err = run_group(command, BOUND)
    assert finished and code == 1 and "Traceback" not in err
    line = json.loads(out.splitlines()[0])
    assert line["status"] in ("REFUSED", "REJECTED"), line


# ------------------------------------------------------------------ plugins (ATTNPROOF_CLAIMS, cwd on the path)

FAKE_CHECK = '''
import solvers.trusted, solvers.trusted.core as core, theorems.core as tc
from solvers.trusted.core import Accepted
def fake(cert, max_work=None):
    return Accepted({"judgment": "anything"}, "forged by a plugin")
core.check = solvers.trusted.check = tc.trusted.check = fake
CLAIMS = []
'''

FLIP_REPORT = '''
import gc, theorems.verification as v
for obj in gc.get_objects():
    if isinstance(obj, v.Verification):
        for line in obj.certificates:
            line["status"], line["summary"] = "accepted", "forged by a plugin"
v.Verification.ok = property(lambda self: True)
v.OutcomeCheck.ok = property(lambda self: True)
CLAIMS = []
'''


def nonsense_folder(outcomes, tmp_path):
    root, [point] = copy(outcomes, tmp_path, T3)
    path = cert(point, "03-rank-one-infeasible")
    write(path, read(path) | {"kind": "nonsense", "statement": "sha256:wrong"})
    return root


def test_a_plugin_that_replaces_the_checker_at_import_changes_nothing_in_stage_1(outcomes, tmp_path):
    root = nonsense_folder(outcomes, tmp_path)
    write(tmp_path / "evil_check.py", FAKE_CHECK)
    finished, code, out, err = attnproof(["verify", root], cwd=tmp_path, env_extra={"ATTNPROOF_CLAIMS": "evil_check"})
    assert finished and code == 1 and "Traceback" not in err
    assert "REJECTED" in out and "unknown certificate kind 'nonsense'" in out and "forged by a plugin" not in out
    assert "NOT VERIFIED: 0 of 1 outcome(s) stand (1 does not); 3 of 4 certificate(s) accepted by the checker as data, 1 not" in out


def test_a_plugin_cannot_change_what_verify_reports_of_stage_1(outcomes, tmp_path):
    root = nonsense_folder(outcomes, tmp_path)
    write(tmp_path / "evil_report.py", FLIP_REPORT)
    finished, code, out, err = attnproof(["verify", root], cwd=tmp_path, env_extra={"ATTNPROOF_CLAIMS": "evil_report"})
    assert finished
    assert code != 0 and "forged by a plugin" not in out and "unknown certificate kind 'nonsense'" in out


def test_a_plugin_no_outcome_needs_is_never_imported_by_verify(outcomes, tmp_path):
    """Built-in claims are bound in a process that imports no plugin: a plugin that would break a
    certificate when imported never runs when every outcome is a built-in claim's."""
    root, [point] = copy(outcomes, tmp_path, T3)
    path = cert(point, "03-rank-one-infeasible")
    write(tmp_path / "late_tamper.py", f"open({path!r}, 'w').write('{{}}')\nCLAIMS = []\n")
    finished, code, out, err = attnproof(["verify", root], cwd=tmp_path, env_extra={"ATTNPROOF_CLAIMS": "late_tamper"})
    assert finished and code == 0 and "Traceback" not in err
    assert "4 of 4 certificate(s) accepted; 1 of 1 outcome(s) stand" in out
    assert read(path) != {}  # the plugin never ran


TOY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "toy_plugin.py")


def toy_project(tmp_path) -> str:
    """A project whose conjectures/ holds the toy plugin, and a check of its three claims in it; returns the outcome folder."""
    (tmp_path / "conjectures").mkdir()
    shutil.copy(TOY, tmp_path / "conjectures" / "toy_plugin.py")
    finished, code, out, err = attnproof(["check", "plugin_toy", "--out", "toy"], cwd=tmp_path)
    assert finished and code == 0, err
    return str(tmp_path / "toy")


@pytest.mark.parametrize("death", ["exit", "kill"])
def test_a_binding_worker_that_dies_fails_only_its_own_outcome(tmp_path, monkeypatch, death):
    """A plugin claim's binding ends its worker process: that outcome fails in one line, every other is
    still bound (a dead worker breaks the whole pool, failing what it had not answered)."""
    root = toy_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOY_BINDING_3", death)
    finished, result = bounded(lambda: [[o.claim, o.bound, o.binding] for o in verification.verify([root], jobs=2).outcomes], 60)
    assert finished and not isinstance(result, dict), result
    bindings = {claim: (bound, why) for claim, bound, why in result}
    assert bindings.pop("plugin_toy.diagonal_3") == (False, "the binding's process stopped early (killed, or out of memory)")
    assert all(bound for bound, _ in bindings.values()) and len(bindings) == 2, bindings


def _children(pid: int) -> set[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    found = set()
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue
        if fields[1] == str(pid) and fields[0] != "Z":
            found.add(int(name))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc") or not sys.platform.startswith("linux"), reason="reads /proc; the death signal is Linux's")
def test_the_binding_workers_end_with_the_binding_process(tmp_path, monkeypatch):
    """verify kills the binding process when it is interrupted (SIGINT to attnproof alone, an error):
    its forked workers, busy with a long binding, must not be left behind waiting for work forever."""
    root = toy_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOY_BINDING_3", "sleep")
    binding, workers = verification.start_binding(2, "file:toy_plugin.py"), set()
    try:
        checks = []
        for n in (2, 3):
            path = os.path.join(root, f"plugin_toy.diagonal_{n}", "default", "outcome.json")
            with open(path, "rb") as handle:
                sha = hashlib.sha256(handle.read()).hexdigest()
            checks.append([path, f"plugin_toy.diagonal_{n}", "verified", 1.0, sha])
        binding.process.stdin.write(json.dumps({"nonce": binding.nonce, "scope": binding.scope, "items": checks}))
        binding.process.stdin.close()
        for _ in range(600):  # its two workers forked (the claims imported): at most a minute
            workers = _children(binding.process.pid)
            if len(workers) == 2:
                break
            time.sleep(0.1)
        assert len(workers) == 2
        time.sleep(1)  # the slow binding under way
        binding.process.kill()
        binding.process.wait()
        for _ in range(100):
            if not any(_alive(pid) for pid in workers):
                break
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers)
    finally:
        binding.process.kill()
        binding.process.wait()
        os.close(binding.answers)
        for pid in workers:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.mark.parametrize("library", ["numpy", "sympy", "json"])
def test_a_module_in_the_working_directory_is_not_run_by_the_binding_while_stage_1_reads(outcomes, tmp_path, monkeypatch, library):
    """The binding process starts with stage 1 and loads its libraries meanwhile: a file in the working
    directory named like one of them (or like a standard module it imports) must not be run then, as a
    plugin is not (the working directory joins the path with the plugins, after stage 1, and last)."""
    root, [point] = copy(outcomes, tmp_path, T3)
    path = cert(point, "03-rank-one-infeasible")
    marker = tmp_path / "imported"
    write(tmp_path / f"{library}.py", f"open({path!r}, 'w').write('{{}}')\nopen({str(marker)!r}, 'a').write('x')\n")
    monkeypatch.chdir(tmp_path)
    finished, result = bounded(lambda: [verification.verify([root]).ok], 60)
    assert finished and result == [True], result
    assert not marker.exists() and read(path) != {}


@pytest.mark.parametrize("plugin", ["missing", "duplicate"])
def test_a_broken_plugin_environment_gives_a_reason_not_a_traceback(outcomes, tmp_path, plugin):
    root, _ = copy(outcomes, tmp_path, T3)
    module = "no_such_module_attnproof"
    if plugin == "duplicate":
        module = "dup_claim"
        write(tmp_path / "dup_claim.py", f"from theorems.core import Claim\nclass Dup(Claim):\n    id = {R1!r}\nCLAIM = Dup()\n")
    finished, code, out, err = attnproof(["verify", root], cwd=tmp_path, env_extra={"ATTNPROOF_CLAIMS": module})
    # the built-in outcome is bound without any plugin: a broken or lying one changes nothing of it
    assert finished and code == 0 and "1 of 1 outcome(s) stand" in out
    assert "Traceback" not in err


# ------------------------------------------------------------------ sizes are bound, settings never covered


MHK = "kernel_rank.multi_head"


@pytest.fixture(scope="module")
def multi_head_run(tmp_path_factory):
    """multi_head checked at its default point (about half a second): the claim whose H_identity a review relabelled."""
    out = tmp_path_factory.mktemp("multi_head") / "outcomes"
    assert cli.main(["check", MHK, "--jobs", "1", "--out", str(out)]) == 0
    return out


def relabelled_multi_head(run, tmp_path, recompute=False, **parameters) -> tuple[str, dict]:
    """A copy of the default multi_head folder relabelled as another point everywhere: the outcome's parameters,
    every envelope's and the folder's name (with ``recompute``, also the obligations the claim states there)."""
    claim = get(MHK)
    [src] = glob.glob(str(run / MHK / "*"))
    record = read(os.path.join(src, "outcome.json"))
    record["parameters"].update(parameters)
    point = claim.point(record["parameters"])
    folder = tmp_path / "run" / MHK / cli.slug(point, claim)
    shutil.copytree(src, folder)
    if recompute:
        record["obligations"] = claim.obligations(point).to_json()
    write(folder / "outcome.json", record)
    for path in glob.glob(str(folder / "*.cert.json")):
        write(path, read(path) | {"parameters": record["parameters"]})
    return str(tmp_path / "run"), record


@pytest.mark.parametrize("recompute", [False, True], ids=["obligations-as-run", "obligations-of-the-new-point"])
def test_multi_head_relabelled_to_a_size_it_never_ran_does_not_stand(multi_head_run, tmp_path, capsys, recompute):
    """m_types 4 -> 5 everywhere (a size: the obligations name one witness per pair type at m_types).  As run,
    the obligations recorded are not those the claim states at m_types = 5 (stage 2); with those written in,
    no certificate of the m = 4 run discharges the pair types of m = 5 (stage 1)."""
    root, _ = relabelled_multi_head(multi_head_run, tmp_path, recompute, m_types=5)
    capsys.readouterr()
    assert cli.main(["verify", root]) == 1
    out = capsys.readouterr().out
    assert f"{MHK} [m_types=5]: verified DOES NOT STAND" in out
    assert ("not discharged" if recompute else f"the obligations recorded differ from those {MHK} states") in out


def test_multi_head_relabelled_to_a_setting_it_never_ran_claims_nothing_of_it(multi_head_run, tmp_path, capsys):
    """The review's forgery: H_identity 3 -> 4 everywhere.  The box identity for H heads is a sympy step that
    no obligation states, so H_identity is a setting: the relabelled outcome binds because its obligations
    are the judgments of H_identity = 3 as well, and nothing it claims names H_identity — not the sizes the
    table shows as covered, not the rung (the reach is part of the obligations)."""
    root, record = relabelled_multi_head(multi_head_run, tmp_path, H_identity=4)
    claim = get(MHK)
    forged, honest = claim.point(record["parameters"]), claim.point()
    assert claim.obligations(forged).to_json() == claim.obligations(honest).to_json() == record["obligations"]
    assert "H_identity" not in cli.sizes(claim, forged) and cli.sizes(claim, forged) == cli.sizes(claim, honest)
    capsys.readouterr()
    assert cli.main(["verify", root]) == 0
    assert f"{MHK} [H_identity=4]: verified stands" in capsys.readouterr().out
