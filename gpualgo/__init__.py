"""gpualgo: GPU algorithms for combinatorial optimisation, taught and measured.

Subpackages, one per problem (each with ``solve(...)`` and an ordered ``VARIANTS``):
``gpualgo.assignment`` (auction, Deep Greedy Switching), ``gpualgo.maxflow``,
``gpualgo.tsp``, ``gpualgo.coalitions``.  Shared plumbing: ``gpu`` (CuPy, kernels,
timers), ``results``, ``bench``, ``plots``, ``nbtools``.  Importing needs no GPU.
"""
__version__ = "0.1.0"
