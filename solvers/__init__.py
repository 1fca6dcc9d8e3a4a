"""Exact decision engines: rationals and ranks, linear feasibility, SMT,
intervals, symmetry, certificates and their trusted checker.  Nothing here
knows about attention except the small trusted checker's certificate kinds.
"""
