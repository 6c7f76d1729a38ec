"""``tsp.solve``: one entry point for every exact TSP version, with the size guards."""

from __future__ import annotations

import math
import platform
import time
from dataclasses import dataclass, field

import numpy as np

from .. import variants
from ..timing import human_seconds
from . import checks, enumeration, serial
from .instances import as_instance

#: every version, in the order they are taught
VARIANTS = ("serial_bruteforce", "held_karp", "gpu_host_chunks", "gpu_unrank",
            "gpu_shared_incremental", "gpu_held_karp")
BRUTE_FORCE = ("serial_bruteforce", "gpu_host_chunks", "gpu_unrank", "gpu_shared_incremental")

#: orders per second each brute-force version sustains at n = 13..15, rounded down from
#: measurements on an H100 (gpu_*) and one x86 core (serial); used only for the refusal
#: estimates below
RATES = {"serial_bruteforce": 7.0e7, "gpu_host_chunks": 4.0e7, "gpu_unrank": 2.0e10,
         "gpu_shared_incremental": 6.0e10}
#: Held-Karp inner steps (mask, last, previous) per second, serial and GPU
HK_RATES = {"held_karp": 4.0e8, "gpu_held_karp": 1.0e11}
#: refuse runs estimated above this, unless force=True
MAX_SECONDS = 180.0
#: the serial Held-Karp table is refused above this many bytes, unless force=True
MAX_HOST_BYTES = 8 * 2**30

_OPTIONS = {
    "serial_bruteforce": {"symmetric", "max_free"},
    "held_karp": set(),
    "gpu_host_chunks": {"symmetric", "max_free", "block", "batch"},
    "gpu_unrank": {"symmetric", "max_free", "block"},
    "gpu_shared_incremental": {"symmetric", "max_free", "block"},
    "gpu_held_karp": {"block"},
}


@dataclass
class TSPResult:
    """The answer of :func:`solve`.

    Attributes:
        tour: int64 array of the n cities in visiting order, starting at city 0 (the
            return to 0 is implied); None when no feasible tour exists.
        length: the tour's length (int); ``math.inf`` when no feasible tour exists.
        feasible: False when every tour uses a missing edge.
        variant: the version that ran.
        stats: timings in ms (``total_ms`` wall time including transfers, ``kernel_ms`` GPU
            time from CUDA events, ...), ``permutations`` (orders evaluated),
            ``perms_per_s``, ``device``, and version-specific counters.
    """

    tour: np.ndarray | None
    length: int | float
    feasible: bool
    variant: str
    stats: dict = field(default_factory=dict)


def estimate_seconds(n: int, variant: str, symmetric: bool = True) -> float:
    """Rough run time of ``variant`` on n cities, from the rates above (seconds)."""
    if variant in BRUTE_FORCE:
        return enumeration.count_tours(n, symmetric) / RATES[variant]
    if variant in HK_RATES:
        m = max(n - 1, 1)
        return (1 << m) * m * m / 2 / HK_RATES[variant]
    raise ValueError(f"unknown variant {variant!r}; known: {VARIANTS}")


def solve(instance_or_matrix, variant: str = "gpu_held_karp", force: bool = False,
          **options) -> TSPResult:
    """Solve a TSP instance exactly with one of :data:`VARIANTS`.

    Args:
        instance_or_matrix: a :class:`TSPInstance` or an (n, n) distance matrix of integers
            (missing edges as ``np.inf`` or ``NO_EDGE``; see :func:`validate_matrix`).
        variant: one of :data:`VARIANTS`.
        force: run even when the estimated time (brute force, serial Held-Karp) or host
            memory is above the limits.
        options: ``symmetric`` (brute force: enumerate each tour once; default: when the
            distances are symmetric; False enumerates all (n-1)! orders, as the source
            report counts them), ``max_free`` (brute force: most free cities per chunk,
            <= 20), ``block`` (GPU threads per block, a multiple of 32 up to 1024),
            ``batch`` (gpu_host_chunks: orders per host batch).

    Returns:
        a :class:`TSPResult`. An instance with no feasible tour (every tour uses a missing
        edge) is not an error: the result has ``feasible=False``, ``tour=None`` and
        ``length=math.inf``.

    Raises:
        ValueError: unknown variant or option, invalid matrix, a size refused with its
            estimate (pass ``force=True``), GPU memory too small for Held-Karp.
        GPUUnavailableError: a GPU variant without CuPy or a GPU.
    """
    variants.check(variant, VARIANTS, options, _OPTIONS)
    inst = as_instance(instance_or_matrix)
    n = inst.n
    if variant.startswith("gpu_"):
        from .. import gpu
        gpu.require()
    sym_opt = options.pop("symmetric", None)
    if sym_opt and not inst.symmetric:
        raise ValueError("symmetric=True needs symmetric distances (dist == dist.T)")
    symmetric = inst.symmetric if sym_opt is None else bool(sym_opt)
    max_free = options.pop("max_free", enumeration.MAX_FREE)

    if not force:
        _guard(n, variant, symmetric)

    W, big, _ = serial.weights(inst)
    t0 = time.perf_counter()
    stats: dict = {}
    if n == 1:
        best, tour = 0, np.zeros(1, dtype=np.int64)
        stats["permutations"] = 1
    elif variant in BRUTE_FORCE:
        plan = enumeration.make_plan(n, symmetric, max_free)
        if variant == "serial_bruteforce":
            best, tour = serial.bruteforce(W, plan)
        else:
            from . import gpu as tsp_gpu
            fn = {"gpu_host_chunks": tsp_gpu.host_chunks, "gpu_unrank": tsp_gpu.unrank,
                  "gpu_shared_incremental": tsp_gpu.shared_incremental}[variant]
            best, tour, stats = fn(W, plan, **options)
        stats.update(permutations=plan.total, chunks=plan.n_chunks, free_cities=plan.k,
                     symmetric=plan.symmetric)
    elif variant == "held_karp":
        best, tour = serial.held_karp(W)
    else:
        from . import gpu as tsp_gpu
        best, tour, stats = tsp_gpu.held_karp(W, **options)
    wall = (time.perf_counter() - t0) * 1e3
    stats.setdefault("total_ms", wall)
    stats.setdefault("device", _cpu_name() if not variant.startswith("gpu_") else None)
    stats["cost_dtype"] = np.dtype(W.dtype).name
    if "permutations" in stats:
        stats["perms_per_s"] = stats["permutations"] / max(stats["total_ms"], 1e-9) * 1e3
    if variant in ("held_karp", "gpu_held_karp") and n > 1:
        m = n - 1
        stats["states"] = (1 << m) * m

    if best >= big:
        return TSPResult(tour=None, length=math.inf, feasible=False, variant=variant, stats=stats)
    length = checks.tour_length(inst, tour)
    if length != best:     # an internal error, never an input error
        raise RuntimeError(f"{variant}: reported length {best} but the tour {tour.tolist()} "
                           f"has length {length}")
    return TSPResult(tour=np.asarray(tour, dtype=np.int64), length=int(length), feasible=True,
                     variant=variant, stats=stats)


def _guard(n: int, variant: str, symmetric: bool) -> None:
    secs = estimate_seconds(n, variant, symmetric)
    if variant in BRUTE_FORCE:
        if secs > MAX_SECONDS:
            count = enumeration.count_tours(n, symmetric)
            raise ValueError(
                f"brute force on n={n} cities evaluates {count:.3g} orders: about "
                f"{human_seconds(secs)} with {variant} at ~{RATES[variant]:.1g} orders/s; "
                "use a Held-Karp variant, or pass force=True to run it anyway")
    elif variant == "held_karp":
        need = serial.held_karp_bytes(n, np.int32)
        if secs > MAX_SECONDS or need > MAX_HOST_BYTES:
            raise ValueError(
                f"serial Held-Karp on n={n} cities needs at least {need / 2**30:.1f} GiB and "
                f"about {human_seconds(secs)}; use gpu_held_karp, or pass force=True")


def _cpu_name() -> str:
    return f"CPU {platform.processor() or platform.machine()} (1 core, numba)"
