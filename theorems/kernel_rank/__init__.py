"""Paper 2608.11427, *Three Tokens Force Exponential Feature Rank in Nonnegative
Kernel Attention*: one module per claim (Min-IP, feature rank)."""
