"""What every max-flow version returns: :class:`MaxFlowResult`, built by :func:`make_result`.

>>> from gpualgo import maxflow
>>> net = maxflow.from_edges(3, [0, 1], [1, 2], [5, 3])
>>> r = maxflow.solve(net, variant="serial")
>>> r.objective, r.objective_name, r.cut_vertices.tolist()
(3, 'flow value', [0, 1])
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..result import Result
from .network import FlowNetwork

__all__ = ["MaxFlowResult", "make_result"]


@dataclass
class MaxFlowResult(Result):
    """The answer of :func:`gpualgo.maxflow.solve`.

    Attributes:
        flow_value: value of a maximum flow (= capacity of a minimum cut); also ``objective``.
        source_side: bool (n,), the source side of a minimum cut: the vertices that cannot
            reach the sink in the final residual graph.
        residual: (m,), residual capacity of every stored arc at the end.
        network: the network solved.
        flow: (property) int64 (m,), net flow on every stored arc, ``capacity - residual``;
            a flow for ``serial``, a maximum preflow (excess may stay at vertices cut off
            from the sink) for the GPU versions: see ``is_preflow``.
        is_preflow: True when ``flow`` may leave excess at inner vertices.
        variant: the version that ran.
        stats: the times of :data:`gpualgo.result.TIMES` (``prepare_ms``: data structures
            and uploads; ``exec_ms``: the algorithm; ``kernel_ms``: the vertex-centric
            kernel's CUDA-event time; ``total_ms``), ``device``, then the counters:
            ``phases`` (global-relabel rounds), ``pushes``, ``relabels``,
            ``global_relabels``, ``gr_ms`` and ``pr_ms`` (time in global relabels and in
            push/relabel sweeps, where measured), ``cap_dtype`` and the GPU versions' options.
    """

    flow_value: int
    source_side: np.ndarray
    residual: np.ndarray = field(repr=False)
    network: FlowNetwork = field(repr=False)
    is_preflow: bool
    variant: str
    stats: dict = field(default_factory=dict)

    objective_name = "flow value"

    @property
    def objective(self) -> int:
        """The flow value (the number every problem's result calls ``objective``)."""
        return self.flow_value

    @property
    def flow(self) -> np.ndarray:
        """Net flow on every stored arc (computed on demand: the solvers return residuals)."""
        return self.network.capacity.astype(np.int64) - self.residual.astype(np.int64)

    @property
    def cut_vertices(self) -> np.ndarray:
        """Ids of the vertices on the source side."""
        return np.flatnonzero(self.source_side)


def make_result(net: FlowNetwork, variant: str, flow_value, source_side, residual, is_preflow: bool,
                stats: dict) -> MaxFlowResult:
    """The result of one version: the flow value as a Python int, the cut as a bool array,
    the residuals as the solver left them, and its ``stats``."""
    return MaxFlowResult(flow_value=int(flow_value), source_side=np.asarray(source_side, dtype=bool),
                         residual=np.asarray(residual), network=net, is_preflow=bool(is_preflow),
                         variant=variant, stats=stats)
