"""Every family of certificate kinds; importing this registers them all."""

from solvers.trusted import cones, counting, evaluation, geometry, intervals, linear, ranks  # noqa: F401
