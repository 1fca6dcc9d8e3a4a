"""The trusted checker: re-checks certificates from their data alone and
discharges each outcome's obligations.

Run it as its own process (``python -I -S -m solvers.trusted PATH ...``,
as ``attnproof verify`` does): it imports the standard library,
python-flint and this package only.  Read :mod:`.parse`, :mod:`.core` and
:mod:`.verdicts` (the core), then the family modules of the kinds a verdict
uses and the shared modules they import (:mod:`.motzkin`, :mod:`.matrices`,
:mod:`.minip`);
:mod:`.runner` (the process, its workers) and :mod:`.limits` (what is refused)
decide nothing.  A family is imported when a certificate of one of its kinds
is first read.
"""

from solvers.trusted.core import KINDS, Accepted, CertificateError, Refused, check, discharges

__all__ = ["KINDS", "Accepted", "CertificateError", "Refused", "check", "discharges"]
