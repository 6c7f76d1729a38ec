"""``maxflow.solve``: one entry point for every push-relabel version (:data:`VARIANTS`)."""
from __future__ import annotations

import time

from .. import guards, variants
from ..variants import Variant
from .network import FlowNetwork, check_network
from .result import MaxFlowResult

__all__ = ["solve", "check", "VARIANTS"]

_HOST_RELABEL = {"cycle", "block", "upload", "force"}

#: every version, in the order they are taught, with the options each takes
VARIANTS = variants.table(
    Variant("serial", "gpualgo.maxflow.serial:solve_serial", {"freq", "global_relabel", "gap", "force"},
            checks="gpualgo.maxflow.serial:check_options"),
    Variant("gpu_matrix", "gpualgo.maxflow.gpu:gpu_matrix", _HOST_RELABEL, gpu=True,
            checks="gpualgo.maxflow.gpu:check_host_relabel"),
    Variant("gpu_bcsr", "gpualgo.maxflow.gpu:gpu_bcsr", _HOST_RELABEL | {"rev_search", "relabel", "tile"}, gpu=True,
            checks="gpualgo.maxflow.gpu:check_host_relabel"),
    Variant("gpu_vertex_centric", "gpualgo.maxflow.gpu:gpu_vertex_centric",
            {"tile", "block", "gr_alpha", "gr_max_iters", "ops", "incremental", "blocks_per_sm", "early_stop",
             "gr_balance", "async_bfs", "block_bfs", "local_levels", "time_levels", "force"}, gpu=True, checks="gpualgo.maxflow.gpu:check_vertex_centric"),
)


def check(variant: str = "gpu_vertex_centric", n: int | None = None, arcs: int | None = None, **options) -> None:
    """The refusals of :func:`solve` known without the network (a sweep checks its cases with it
    before the first one runs): the variant, its options' names and values, and, given the size
    of the network to come (``n`` vertices, ``arcs`` input arcs: about a lower bound on the
    stored ones), the serial version's estimated time without the global relabel
    (:func:`gpualgo.maxflow.serial.check_plain`, unless ``force``). The GPU versions refuse GPU
    memory, which only a run can know.

    >>> check("serial", n=10_000, arcs=10**6, global_relabel=False)
    Traceback (most recent call last):
    ...
    ValueError: push-relabel without the global relabel on n=10,000, m=1,000,000: about ... (limit 60 s); keep global_relabel=True, ...
    """
    variants.check(variant, VARIANTS, options)
    VARIANTS[variant].check_values(options)
    for value, name in ((n, "n"), (arcs, "arcs")):
        if value is not None:
            guards.integer(value, f"{name} (the size of the network to come)", lo=0)
    if variant == "serial" and n is not None and not options.get("global_relabel", True):
        from .serial import check_plain
        check_plain(n, arcs, options.get("force", False))


def solve(network: FlowNetwork, variant: str = "gpu_vertex_centric", **options) -> MaxFlowResult:
    """Maximum flow and minimum cut of ``network`` with one of :data:`VARIANTS`.

    Options: ``serial``: ``freq`` (global relabel after freq * (n + m) work, default 1),
    ``global_relabel`` and ``gap`` (default True: False turns the heuristic off; with both off
    it is the textbook's plain push-relabel, refused with its estimate when it would run for
    more than a minute: ``force=True`` insists);
    ``gpu_matrix`` and ``gpu_bcsr``: ``cycle`` (push-relabel sweeps per kernel launch,
    default n as in the report), ``block``, ``upload`` (where the host keeps the network for
    its transfer: "auto", the default, "pageable", "pinned" or "mapped": zero-copy, the
    kernels read it in host memory); ``gpu_bcsr`` also ``rev_search`` (the reverse arc of a
    push: "index", the stored one, by default, or the report's "linear" or "binary" search) and
    ``relabel`` ("host", the default, or "gpu": the global relabel as a BFS kernel, ``tile``
    threads per frontier vertex); ``gpu_vertex_centric``: ``tile`` (threads per
    active vertex, a power of two <= 32, default from the mean degree), ``block`` (256, 512
    or 1024 threads, default 512), ``gr_alpha`` (a global relabel after gr_alpha * n relabels, default
    0.1), ``gr_max_iters`` (and at least every this many sweeps, default 150), ``gr_balance``
    (and, when > 0, once the sweeps since the last global relabel took gr_balance times as
    long as it did; default 0: off), ``async_bfs`` (True: the global relabel is a
    label-correcting BFS on a shared work list, without a grid barrier per level; False: a
    BFS by levels), ``ops`` (push/relabel rounds per active vertex per sweep, default 32: a
    bounded discharge; 1 is the report's), ``incremental`` (True: each sweep queues the
    vertices it gave excess to, instead of the report's scan of all vertices before every
    sweep), ``blocks_per_sm`` (cap on the cooperative grid, default 1: fewer blocks make each
    grid barrier cheaper), ``early_stop`` (True: a BFS by levels stops once it has reached
    every vertex with excess that may still reach the sink; the asynchronous BFS always runs
    to the end), ``local_levels`` (default :data:`gpualgo.maxflow.gpu.LOCAL_LEVELS`, 6, from the
    ``local_levels`` preset: a BFS step runs up to this many levels, the first
    on the grid and the rest in each block alone from what it labelled, with block barriers,
    and one grid barrier at its end; labels lowered with atomicMin, exact when the BFS runs to
    its end; 1: the BFS by levels, a grid barrier every level), ``block_bfs`` (with
    ``local_levels=1``; default 0: off; else the BFS levels whose frontier holds at most
    this many vertices, up to 1024, are run by the first block alone, with block barriers, while
    the other blocks wait at one grid barrier: a measurement of what the barriers cost, slower
    or no faster on genrmf), ``time_levels`` (True: the stats add each BFS step's frontier and
    time, barrier to barrier: ``level_frontier``, ``level_us``; a step is a level with
    ``local_levels=1``). The other defaults are from the ``tuning``
    preset on genrmf. Every GPU version takes ``force`` (True: run even when its arrays would
    not fit in the GPU memory free now).

    A sink that cannot be reached is not an error: the flow is 0 and the cut valid.

    Raises:
        ValueError: unknown variant or option, not a FlowNetwork (or one whose arrays are
            inconsistent: :func:`~gpualgo.maxflow.network.check_network`), a network too large for
            the GPU memory that can be had now (with the estimate; ``force=True`` insists),
            a bad option value.
        GPUUnavailableError: a GPU variant without CuPy or a GPU.
    """
    started = time.perf_counter()           # the input's check counts in the solve's time
    variants.check(variant, VARIANTS, options)
    check_network(network)      # also a hand-made FlowNetwork: arrays a solver can trust
    return variants.call(VARIANTS, variant, network, started=started, **options)
