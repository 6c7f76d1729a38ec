"""Maximum flow and minimum cut by push-relabel: a numba serial version and three GPU
versions (adjacency matrix, BCSR thread-centric, BCSR vertex-centric with the global
relabel on the GPU), as in the source report.

>>> from gpualgo import maxflow
>>> net = maxflow.from_edges(4, [0, 0, 1, 2], [1, 2, 3, 3], [3, 2, 2, 3])
>>> r = maxflow.solve(net, variant="serial")
>>> r.flow_value, maxflow.check_cut(net, r.source_side, r.flow_value)
(4, 4)
>>> r.summary().split(";")[0]
'serial: flow value 4'
"""

from .checks import (certify, check_cut, check_flow, check_result, cut_capacity, reference_value,
                     residual_source_side, scipy_matrix)
from .dimacs import (parse_dimacs, parse_text, read, read_dimacs, read_text, write_dimacs,
                     write_text)
from .instances import genrmf, random_gnp, report_density, vision_grid, washington_rlg
from .network import INT32_MAX, MAX_CAPACITY, FlowNetwork, from_edges, from_networkx
from .result import MaxFlowResult, make_result
from .solve import VARIANTS, solve

__all__ = [
    "solve", "VARIANTS", "MaxFlowResult", "make_result",
    "FlowNetwork", "from_edges", "from_networkx", "MAX_CAPACITY", "INT32_MAX",
    "read_dimacs", "write_dimacs", "parse_dimacs", "read_text", "write_text", "parse_text", "read",
    "random_gnp", "report_density", "genrmf", "washington_rlg", "vision_grid",
    "check_flow", "check_cut", "cut_capacity", "certify", "check_result", "reference_value",
    "residual_source_side", "scipy_matrix",
]
