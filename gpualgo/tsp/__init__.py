"""Exact travelling salesman: brute force over the orders (serial and three GPU versions,
as in the source report) and Held-Karp dynamic programming (serial and GPU).

>>> from gpualgo import tsp
>>> inst = tsp.random_euclidean(9, seed=1)
>>> r = tsp.solve(inst, variant="held_karp")
>>> int(r.tour[0]), r.length == tsp.tour_length(inst, r.tour)
(0, True)

Missing edges are ``NO_EDGE`` (-1) in :attr:`TSPInstance.dist` (``np.inf`` in a float input
matrix). An instance without any feasible tour gives a result with ``feasible=False``,
``tour=None`` and ``length=math.inf`` (not an exception).
"""

from .checks import check_tour, is_feasible, tour_length
from .enumeration import count_tours, make_plan
from .instances import (MAX_DISTANCE, NO_EDGE, TSPInstance, as_instance, planted_optimum, random_asymmetric,
                        random_euclidean, random_graph, validate_matrix)
from .result import TSPResult, make_result
from .distributed import solve_on_cluster
from .solve import VARIANTS, estimate_seconds, estimate_work, solve
from .tsplib import TSPLIBError, coord_distances, read_tsplib, write_tsplib

__all__ = [
    "solve", "solve_on_cluster", "VARIANTS", "TSPResult", "make_result", "estimate_seconds", "estimate_work",
    "TSPInstance", "NO_EDGE", "MAX_DISTANCE", "as_instance", "validate_matrix",
    "random_euclidean", "random_graph", "random_asymmetric", "planted_optimum",
    "read_tsplib", "write_tsplib", "TSPLIBError", "coord_distances",
    "check_tour", "tour_length", "is_feasible", "count_tours", "make_plan",
]
