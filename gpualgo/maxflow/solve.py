"""``maxflow.solve``: one entry point for every push-relabel version."""
from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field

import numpy as np

from .. import variants
from .network import FlowNetwork

#: every version, in the order they are taught
VARIANTS = ("serial", "gpu_matrix", "gpu_bcsr", "gpu_vertex_centric")

_OPTIONS = {
    "serial": {"freq"},
    "gpu_matrix": {"cycle", "block", "force"},
    "gpu_bcsr": {"cycle", "block"},
    "gpu_vertex_centric": {"tile", "block", "gr_alpha", "gr_max_iters", "ops", "incremental",
                           "blocks_per_sm", "early_stop", "gr_balance", "async_bfs"},
}


@dataclass
class MaxFlowResult:
    """The answer of :func:`solve`.

    Attributes:
        flow_value: value of a maximum flow (= capacity of a minimum cut).
        source_side: bool (n,), the source side of a minimum cut: the vertices that cannot
            reach the sink in the final residual graph.
        residual: (m,), residual capacity of every stored arc at the end.
        network: the network solved.
        flow: (property) int64 (m,), net flow on every stored arc, ``capacity - residual``;
            a flow for ``serial``, a maximum preflow (excess may stay at vertices cut off
            from the sink) for the GPU versions: see ``is_preflow``.
        is_preflow: True when ``flow`` may leave excess at inner vertices.
        variant: the version that ran.
        stats: ``phases`` (global-relabel rounds), ``pushes``, ``relabels``,
            ``global_relabels``, ``init_ms`` (data structures and uploads), ``exec_ms``
            (the algorithm), ``total_ms``, ``gr_ms`` (time in global relabels where
            measured), ``cap_dtype``, ``device``.
    """

    flow_value: int
    source_side: np.ndarray
    residual: np.ndarray = field(repr=False)
    network: FlowNetwork = field(repr=False)
    is_preflow: bool
    variant: str
    stats: dict = field(default_factory=dict)

    @property
    def flow(self) -> np.ndarray:
        """Net flow on every stored arc (computed on demand: the solvers return residuals)."""
        return self.network.capacity - self.residual.astype(np.int64)

    @property
    def cut_vertices(self) -> np.ndarray:
        """Ids of the vertices on the source side."""
        return np.flatnonzero(self.source_side)


def solve(network: FlowNetwork, variant: str = "gpu_vertex_centric", **options) -> MaxFlowResult:
    """Maximum flow and minimum cut of ``network`` with one of :data:`VARIANTS`.

    Options: ``serial``: ``freq`` (global relabel after freq * (n + m) work, default 1);
    ``gpu_matrix``: ``cycle`` (push-relabel sweeps per kernel launch, default n as in the
    report), ``block``, ``force`` (run above the memory limit); ``gpu_bcsr``: ``cycle``,
    ``block``; ``gpu_vertex_centric``: ``tile`` (threads per active vertex, a power of two
    <= 32, default from the mean degree), ``block`` (256, 512 or 1024 threads), ``gr_alpha``
    (a global relabel after gr_alpha * n relabels, default 0.1), ``gr_max_iters`` (and at
    least every this many sweeps, default 150), ``gr_balance`` (and, when > 0, once the sweeps
    since the last global relabel took gr_balance times as long as it did; default 0: off),
    ``async_bfs`` (True: the global relabel is a label-correcting BFS on a shared work list,
    without a grid barrier per level; False: a BFS by levels), ``ops``
    (push/relabel rounds per active vertex per sweep, default 32: a bounded discharge; 1 is the
    report's),
    ``incremental`` (True: each sweep queues the vertices it gave excess to, instead of the
    report's scan of all vertices before every sweep), ``blocks_per_sm`` (cap on the
    cooperative grid, default 1: fewer blocks make each grid barrier cheaper), ``early_stop``
    (True: a BFS by levels stops once it has reached every vertex with excess that may still
    reach the sink; the asynchronous BFS always runs to the end). Defaults from the
    ``tuning`` preset on genrmf.

    A sink that cannot be reached is not an error: the flow is 0 and the cut valid.

    Raises:
        ValueError: unknown variant or option, not a FlowNetwork, a network too large for
            the matrix version (with the memory estimate; ``force=True`` overrides), or for
            the GPU memory free now (any GPU version, with the estimate).
        GPUUnavailableError: a GPU variant without CuPy or a GPU.
    """
    variants.check(variant, VARIANTS, options, _OPTIONS)
    if not isinstance(network, FlowNetwork):
        raise ValueError(f"expected a FlowNetwork (see maxflow.from_edges), got {type(network).__name__}")
    if variant == "serial":
        return _serial(network, **options)
    from . import maxflow_gpu
    return maxflow_gpu.run(network, variant, **options)


def _serial(net: FlowNetwork, freq: float = 1.0) -> MaxFlowResult:
    from . import serial
    t0 = time.perf_counter()
    args = (net.n, net.source, net.sink, net.offsets, net.heads.astype(np.int64), net.rev.astype(np.int64),
            net.capacity)
    t1 = time.perf_counter()
    res, value, st, side = serial.push_relabel(*args, float(freq))
    t2 = time.perf_counter()
    stats = dict(pushes=int(st[0]), relabels=int(st[1]), global_relabels=int(st[2]), gaps=int(st[3]),
                 phases=int(st[2]), init_ms=(t1 - t0) * 1e3, exec_ms=(t2 - t1) * 1e3,
                 total_ms=(t2 - t0) * 1e3, cap_dtype="int64",
                 device=f"CPU {platform.processor() or platform.machine()} (1 core, numba)")
    return MaxFlowResult(flow_value=int(value), source_side=np.asarray(side), residual=res, network=net,
                         is_preflow=False, variant="serial", stats=stats)
