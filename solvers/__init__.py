"""Exact decision engines: rationals and ranks, linear feasibility, SMT,
intervals, symmetry, certificates and their trusted checker.  Nothing here
knows about attention except the small trusted checker's certificate kinds.
"""

import os

# One BLAS thread per process unless the user asked otherwise: the float searches here
# multiply small matrices (tens to a few hundred rows), where OpenBLAS's worker threads
# spin rather than help (the calibration forward pass took 0.3 to 1 s of CPU with them,
# 0.03 s without), and `attnproof check --jobs N` already runs a process per core.
# OpenBLAS reads this when numpy first loads; every numpy import here comes after this package's.
for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
