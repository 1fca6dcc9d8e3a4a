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
SUPPORT_GEOMETRY = (
    "Two sharp worst-case laws isolate support geometry: for fixed $d$ and error $\\varepsilon$, spherical "
    "self-attention has rank $\\Theta_{d,\\varepsilon}(\\min\\{n,(1+\\beta)^{(d-1)/2}\\})$, while full-ball geometry "
    "adds one radial degree and, for $\\beta\\ge\\beta_0(d,\\varepsilon)$ and $n\\ge C_d e^{\\beta/8}$, gives "
    "$\\Theta_{d,\\varepsilon}(\\beta^{d/2})$."
)
CALIBRATION = (
    "On an 84-head BERT-base calibration set, we observe modest effective-dimension reductions across many "
    "head--temperature settings, together with positive associations with finite constructive rank upper certificates."
)
