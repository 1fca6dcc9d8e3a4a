"""The trusted checker: re-checks certificates from their data alone and
discharges each outcome's obligations.

Run it as its own process (``python -I -S -m solvers.trusted PATH ...``,
as ``attnproof verify`` does): it imports the standard library,
python-flint and this package only.  Read :mod:`.parse`, :mod:`.core` and
:mod:`.verdicts`, then the one family module of the kinds a verdict uses.
"""

from solvers.trusted import families  # noqa: F401  (registers every kind)
from solvers.trusted.core import KINDS, Accepted, CertificateError, Refused, check, discharges

__all__ = ["KINDS", "Accepted", "CertificateError", "Refused", "check", "discharges"]
