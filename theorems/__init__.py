"""attnproof: claims of two papers on the rank of attention, checked exactly.

``theorems`` says WHAT is claimed (attention models, tasks, one module per
claim); ``solvers`` says HOW things are decided and knows nothing about
attention.
"""

__version__ = "0.1.0"
