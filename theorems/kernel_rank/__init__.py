"""Paper 2608.11427, *Three Tokens Force Exponential Feature Rank in Nonnegative
Kernel Attention*: one module per claim (Min-IP, feature rank).

The abstract's sentences, verbatim; each claim (and each lemma, with the
sentence it serves) names the one it reads.
"""

LENGTH_TWO = "On Min-IP over $m$-bit tokens, rank one solves every sequence of length at most two exactly."
THREE_TOKENS = (
    "At length three, the minimum feature rank of one normalized nonnegative kernel-attention head is "
    "$2^{\\Theta(m)}$ for error strictly below $1/2$ on every input, even with arbitrary finite-dimensional "
    "tokenwise values and query-dependent affine readouts."
)
SOFTMAX = "Dense softmax solves this three-token task with $m$-dimensional scores and temperature constant in $m$."
HEADS = (
    "For every fixed number of heads $H$, the minimum total feature rank is $2^{\\Theta_H(m)}$ for the same "
    "error guarantee at exact length $H+2$ in one attention layer with affine mixing."
)
POSITIONS = "These bounds also hold with position-dependent maps and a final causal query."
POLYNOMIAL = (
    "For one head with polynomial readout of fixed degree at most $D$, rank one suffices at exact length "
    "$D+1$, while exact length $D+2$ requires exponential feature rank."
)
EXACT_REAL = "With unrestricted exact-real decoding, a scalar rank-one construction solves the task at every finite length."
COMMUNICATION = (
    "In this setting, correctness up to length $n$ requires $\\Omega(n\\log m)$ bits over a range of lengths "
    "that grows exponentially with $m$."
)
