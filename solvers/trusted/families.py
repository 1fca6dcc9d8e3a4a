"""Every family of certificate kinds, imported at once: for tests and benchmarks that walk every kind.

The checker itself never imports this module: :func:`solvers.trusted.core.check` imports a family
the first time it reads a certificate of one of its kinds (``core.FAMILIES``).
"""

from solvers.trusted import cones, counting, evaluation, extrapolation, geometry, intervals, linear, ranks, scores  # noqa: F401
