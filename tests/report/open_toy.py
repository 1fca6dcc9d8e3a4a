"""An open conjecture for the report's tests: ``report_test.unipotent_rank`` declared open.

Its check discharges its one verify obligation, so the outcome is ``unknown``
("open", partial) — the one status weaker than what its discharges earn that
``verify`` lets stand.  Registered only by the tests that use it (and named in
``$ATTNPROOF_CLAIMS`` for the binding process of ``verify``).
"""

from __future__ import annotations

from tests.report.toy import UnipotentRank


class OpenUnipotentRank(UnipotentRank):
    id = "report_test.open_unipotent_rank"
    title = "A unipotent 2 x 2 matrix has rank 2, as an open conjecture (a test claim)"
    established = "open"
    expected = "unknown"
    uses = ()


CLAIM = OpenUnipotentRank()
