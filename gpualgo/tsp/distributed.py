"""Brute force across the workers of a Dask cluster: :func:`solve_on_cluster`.

The enumeration (:mod:`gpualgo.tsp.enumeration`) is a list of chunks in lexicographic order,
each the ``k!`` orders of its free cities, and a global rank ``chunk * k! + local`` names every
order. Fixing one more leading city splits each chunk into smaller ones without changing the
order of the enumeration, so the plan is first refined (``max_free`` lowered) until it has at
least as many chunks as tasks; then its chunks are cut into ``tasks`` contiguous ranges, each
range one task on any worker: the numba version (:func:`gpualgo.tsp.serial.search_range`) on a
CPU worker, a GPU version (:func:`gpualgo.tsp.gpu.search_range`) on a GPU worker. A task
returns the best weighted length of its range and the global rank of the first order that
reaches it; the answer is the least (length, rank) pair over the tasks: the first best order
of the whole enumeration, the very tour a sequential brute force returns, whatever the
number of tasks and whichever worker ran each one. Nothing but those two numbers comes back
from a task, so the search scales until the tasks are too few to keep every worker busy
(or too short for their start-up: the plan's upload and, on a first call, the compilation).

A worker lost mid-task costs that task only: the scheduler runs it again elsewhere
(:func:`gpualgo.cluster.run_tasks`), and the answer is still exact.
"""
from __future__ import annotations

import time

from .. import cluster, guards, variants
from .enumeration import MAX_FREE
from .instances import as_instance
from .result import TSPResult, make_result
from .serial import choose_symmetric, prepare, single_city
from .solve import MAX_SECONDS, estimate_seconds

__all__ = ["solve_on_cluster", "warm", "VARIANTS", "TASKS_PER_WORKER", "chunk_count", "refine", "split"]

#: the versions a range of chunks can be searched with
VARIANTS = ("serial_bruteforce", "gpu_unrank", "gpu_shared_incremental")
#: tasks per worker by default: enough for the fast workers to take over from the slow
TASKS_PER_WORKER = 4


def chunk_count(n: int, symmetric: bool, max_free: int) -> int:
    """The chunks :func:`~gpualgo.tsp.enumeration.make_plan` makes, counted without making them.

    >>> from gpualgo.tsp.enumeration import make_plan
    >>> chunk_count(9, True, 4) == make_plan(9, True, 4).n_chunks
    True
    """
    m = n - 1
    symmetric = bool(symmetric) and m >= 3
    chunks, k = (m * (m - 1) // 2, m - 2) if symmetric else (1, m)
    while k > max_free:
        chunks *= k
        k -= 1
    return chunks


def refine(n: int, symmetric: bool, tasks: int, max_free: int = MAX_FREE) -> int:
    """The largest ``max_free`` (at most the one given) whose plan has at least ``tasks``
    chunks (or 1, the finest plan)."""
    mf = max_free
    while mf > 1 and chunk_count(n, symmetric, mf) < tasks:
        mf -= 1
    return mf


def split(n_chunks: int, tasks: int) -> list[tuple[int, int]]:
    """``tasks`` contiguous ranges ``(first, end)`` covering chunks 0..n_chunks-1, sizes
    differing by one at most (fewer ranges when there are fewer chunks).

    >>> split(10, 3)
    [(0, 4), (4, 7), (7, 10)]
    """
    tasks = max(1, min(int(tasks), n_chunks))
    q, r = divmod(n_chunks, tasks)
    out, at = [], 0
    for i in range(tasks):
        size = q + (i < r)
        out.append((at, at + size))
        at += size
    return out


def _search(item) -> dict:
    """One task: the best of a range of chunks, and where it was found."""
    prep, c_lo, c_hi, variant, block = item
    t0 = time.perf_counter()
    if variant == "serial_bruteforce":
        from .serial import search_range
        best, rank = search_range(prep, c_lo, c_hi)
        device = None
    else:
        from .. import gpu as gpu_layer
        from .gpu import search_range
        best, rank = search_range(prep, variant, c_lo, c_hi, block)
        device = gpu_layer.device_name()
    if device is None:
        from ..gpu import cpu_label
        device = cpu_label()
    return dict(best=best, rank=rank, ms=(time.perf_counter() - t0) * 1e3, device=device,
                chunks=(c_lo, c_hi), worker=cluster.worker_address(), **cluster.where())


def _warm_here(variant: str, block: int) -> None:
    """A tiny search with ``variant`` in the calling process: compiles (numba or NVRTC) and
    loads what a task needs, and, on a GPU worker, creates its CUDA context."""
    from .instances import random_euclidean
    prep = prepare(random_euclidean(8, seed=0), True, refine(8, True, 2))
    _search((prep, 0, prep.plan.n_chunks, variant, block))


def warm(client, variant: str = "serial_bruteforce", block: int = 256) -> int:
    """Ready every worker of ``client`` for :func:`solve_on_cluster` with ``variant``: a tiny
    search run on each worker itself (not as a task, which the scheduler might give to one
    worker only), so a timed solve pays no worker's first-call costs. Returns the number of
    workers warmed."""
    variants.check(variant, VARIANTS)
    return len(client.run(_warm_here, variant, guards.threads(block)))


def solve_on_cluster(instance, client="local", variant: str = "serial_bruteforce", tasks: int | None = None,
                     symmetric=None, max_free: int = MAX_FREE, block: int = 256, force: bool = False) -> TSPResult:
    """Brute force on the workers of a Dask cluster; the same tour as :func:`gpualgo.tsp.solve`
    with the same ``variant`` (the first best order of the enumeration).

    Args:
        instance: a :class:`~gpualgo.tsp.TSPInstance` or a distance matrix.
        client: a ``distributed.Client``, ``"local"`` or a scheduler's address
            (:func:`gpualgo.cluster.client`; a cluster started here is stopped at the end).
        variant: one of :data:`VARIANTS`: ``serial_bruteforce`` (numba, on CPU workers) or a
            GPU version (on GPU workers: one task on one GPU at a time).
        tasks: how many ranges of chunks (default :data:`TASKS_PER_WORKER` per worker).
        symmetric, max_free, block: as for :func:`gpualgo.tsp.solve` (``max_free`` is lowered
            until the plan has ``tasks`` chunks; it does not change the enumeration's order).
        force: run even when the estimated time (the version's rate times the workers) is
            above :data:`gpualgo.tsp.solve.MAX_SECONDS`.

    Returns:
        a :class:`~gpualgo.tsp.TSPResult` whose stats add ``tasks``, ``workers`` (how many
        ran a task), ``task_ms`` (the tasks' own times, summed) and ``where`` (each task's
        chunks, worker address, host, GPU and time).
    """
    variants.check(variant, VARIANTS)
    if tasks is not None and (isinstance(tasks, bool) or not isinstance(tasks, int) or tasks < 1):
        raise ValueError(f"tasks must be a positive integer, got {tasks!r}")
    t0 = time.perf_counter()
    inst = as_instance(instance)
    sym = choose_symmetric(inst, symmetric)
    if variant != "serial_bruteforce":
        from .gpu import check_cities
        guards.threads(block)
        check_cities(inst.n)
    if inst.n == 1:          # nothing to split: no task, the cluster's statistics empty
        r = single_city(prepare(inst, sym, max_free), variant, t0)
        r.stats.update(where=[], tasks=0, task_ms=0.0, workers=0)
        return r
    with cluster.session(client) as c:
        n_workers = max(1, len(c.scheduler_info()["workers"]))
        seconds = estimate_seconds(inst.n, variant, sym) / n_workers
        guards.time(seconds, f"brute force on n={inst.n} cities with {variant} on {n_workers} worker(s)",
                    MAX_SECONDS, force, hint="use a Held-Karp variant")
        want = tasks or TASKS_PER_WORKER * n_workers
        prep = prepare(inst, sym, refine(inst.n, sym, want, max_free))
        ranges = split(prep.plan.n_chunks, want)
        shared = c.scatter(prep, broadcast=True, hash=False)
        t1 = time.perf_counter()
        outs = cluster.run_tasks(c, _search, [(shared, lo, hi, variant, block) for lo, hi in ranges], name="tsp")
        t2 = time.perf_counter()
    best, rank = min((o["best"], o["rank"]) for o in outs)
    tour = prep.plan.tour_of_rank(rank)
    places = {o["worker"]: o["device"] for o in outs}
    devices = sorted(set(places.values()))
    stats = dict(prepare_ms=(t1 - t0) * 1e3, exec_ms=(t2 - t1) * 1e3, tasks=len(ranges), workers=len(places),
                 task_ms=float(sum(o["ms"] for o in outs)),
                 device=f"{len(places)} x {devices[0]}" if len(devices) == 1 else "; ".join(devices),
                 where=[dict(chunks=o["chunks"], worker=o["worker"], worker_host=o["worker_host"],
                             worker_gpu=o["worker_gpu"], ms=o["ms"]) for o in outs])
    return make_result(prep, variant, best, tour, stats, t0)
