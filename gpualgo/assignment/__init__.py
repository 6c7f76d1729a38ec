"""The assignment problem: instances, file formats, checks, the auction algorithm and Deep Greedy Switching.

>>> from gpualgo import assignment
>>> B = assignment.report_instance(50, density=0.5, seed=1)
>>> r = assignment.solve(B, variant="serial")          # eps=None: the exact optimum
>>> r.objective == assignment.reference_objective(B)
True
>>> assignment.check_result(B, r)
"valid; exact: scipy's optimum 474,915"

``solve`` dispatches to one variant of one algorithm; :data:`VARIANTS` lists them in
the order they are taught. Each algorithm has its folder (``auction/``, ``dgs/``: serial,
gpu, bench) over the shared instances, checks and result.
"""
from __future__ import annotations

from . import checks, instances, problem
from .result import AssignmentResult
from .solve import VARIANTS, solve
from .checks import (certify, check_assignment, check_feasible, check_result, dual_bound, is_valid_assignment,
                     max_matching_size, objective, reference, reference_objective)
from .instances import (generate_batch, geom_instance, read_batch_config, read_instance, report_instance,
                        uniform_instance, write_instance)

__all__ = [
    "solve", "VARIANTS", "AssignmentResult",
    "report_instance", "uniform_instance", "geom_instance", "read_instance", "write_instance",
    "read_batch_config", "generate_batch",
    "check_assignment", "is_valid_assignment", "objective", "reference", "reference_objective",
    "check_feasible", "max_matching_size", "check_result", "dual_bound", "certify",
]
