"""Paper 2608.28150, *The Approximation Rank of Softmax Attention*: one module
per claim (max-row-l1 approximation rank)."""
