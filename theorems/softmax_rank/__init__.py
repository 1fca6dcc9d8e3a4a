"""Paper 2608.28150, *The Approximation Rank of Softmax Attention*: one module
per claim (max-row-l1 approximation rank).

The abstract's sentences, verbatim; each claim names the one it reads.
"""

APPROXIMATION_RANK = (
    "We study maximum-row-$\\ell_1$ approximation rank, exactly the least unrestricted rank preserving every "
    "bounded vector-valued output."
)
VISIBLE_DIMENSION = (
    "For a fixed head, row-softmax quotients out row-scalar logit directions: the remaining visible "
    "query--key interaction dimension $r$ yields an $r/2$ per-instance upper law, and bounded constructions "
    "show this exponent is minimax sharp."
)
RESIDUAL = "Approximate interaction subspaces incur an explicit residual output error and yield a tolerance-indexed SVD dimension."
