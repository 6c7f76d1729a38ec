"""``tsp.solve``: one entry point for every exact TSP version, with the time guards.

The versions are the functions named in :data:`VARIANTS` (``serial.py`` and ``gpu.py``);
each prepares the instance the same way (:func:`gpualgo.tsp.serial.prepare`) and builds its
:class:`~gpualgo.tsp.result.TSPResult` itself. ``solve`` validates the input, refuses a run
whose estimated time is too long (:func:`gpualgo.guards.time`, from the measured
:data:`RATES` and :data:`HK_RATES`), and hands over to :func:`gpualgo.variants.call`. The two
Held-Karp versions refuse a table that does not fit (:func:`gpualgo.guards.memory`: host
memory for ``held_karp``, GPU memory for ``gpu_held_karp``) where they allocate it.
"""

from __future__ import annotations

import math
import time

import numpy as np

from .. import guards, textfile, variants
from ..variants import Variant
from . import enumeration, serial
from .instances import TSPInstance, as_instance
from .result import TSPResult

__all__ = ["solve", "check", "VARIANTS", "TSPResult", "estimate_work", "estimate_seconds", "RATES", "HK_RATES",
           "MAX_SECONDS"]

_BRUTE = {"symmetric", "max_free"}
_LAUNCH = "gpualgo.tsp.gpu:check_options"

#: every version, in the order they are taught (see :mod:`gpualgo.variants`)
VARIANTS = variants.table(
    Variant("serial_bruteforce", "gpualgo.tsp.serial:solve_bruteforce", _BRUTE),
    Variant("cpu_prange", "gpualgo.tsp.serial:solve_prange", _BRUTE),
    Variant("held_karp", "gpualgo.tsp.serial:solve_held_karp", {"force"}),
    Variant("gpu_host_chunks", "gpualgo.tsp.gpu:host_chunks",
            _BRUTE | {"block", "batch", "index", "host_buffer", "matrix", "layout", "reduce"}, gpu=True, checks=_LAUNCH),
    Variant("gpu_unrank", "gpualgo.tsp.gpu:unrank", _BRUTE | {"block", "matrix"}, gpu=True, checks=_LAUNCH),
    Variant("gpu_shared_incremental", "gpualgo.tsp.gpu:shared_incremental", _BRUTE | {"block", "matrix", "incremental", "suffix"},
            gpu=True, checks=_LAUNCH),
    Variant("gpu_held_karp", "gpualgo.tsp.gpu:held_karp", {"block", "force"}, gpu=True, checks=_LAUNCH),
)
BRUTE_FORCE = ("serial_bruteforce", "cpu_prange", "gpu_host_chunks", "gpu_unrank", "gpu_shared_incremental")

#: orders per second each brute-force version sustains at n = 13..15 (version (c): n = 14 to 17,
#: where it scores the last four cities from registers), rounded down from measurements on an H100
#: (gpu_*) and one x86 core (serial; cpu_prange is given one core's rate, as it may run on one);
#: used only for the refusal estimates below
RATES = {"serial_bruteforce": 7.0e7, "cpu_prange": 7.0e7, "gpu_host_chunks": 4.0e7, "gpu_unrank": 2.0e10,
         "gpu_shared_incremental": 1.0e12}
#: Held-Karp inner steps (set, last, previous: :func:`~gpualgo.tsp.serial.held_karp_steps`) per
#: second, serial and GPU, rounded down from the same measurements at n = 20..25
HK_RATES = {"held_karp": 2.0e8, "gpu_held_karp": 5.0e10}
#: refuse runs estimated above this many seconds, unless force=True
MAX_SECONDS = 180.0


def estimate_work(n: int, variant: str, symmetric: bool = True) -> float:
    """The work of ``variant`` on n cities, as a float: the orders a brute force evaluates
    (:func:`~gpualgo.tsp.enumeration.count_tours`) or the inner steps of Held-Karp
    ((n-1)(n-2) 2^(n-3): :func:`~gpualgo.tsp.serial.held_karp_steps`); ``math.inf`` beyond the range of a float, so that any n
    gets an estimate. ValueError for an unknown variant, or an n that is not a number of
    cities (an integer >= 1: an instance has at least one city)."""
    if not isinstance(variant, str) or (variant not in RATES and variant not in HK_RATES):
        raise ValueError(f"unknown variant {textfile.quote(variant)}; known: {list(VARIANTS)}")
    n = guards.integer(n, "n (the number of cities)", lo=1)
    if n > 2000:        # far beyond a float either way: never build the integer
        return math.inf
    work = enumeration.count_tours(n, symmetric) if variant in RATES else serial.held_karp_steps(n)
    try:
        return float(work)
    except OverflowError:
        return math.inf


def estimate_seconds(n: int, variant: str, symmetric: bool = True) -> float:
    """Rough run time of ``variant`` on n cities, from the rates above (seconds; ``math.inf``
    when even the work does not fit in a float). ValueError as :func:`estimate_work` says."""
    return estimate_work(n, variant, symmetric) / {**RATES, **HK_RATES}[variant]


def solve(instance_or_matrix, variant: str = "gpu_held_karp", force: bool = False,
          **options) -> TSPResult:
    """Solve a TSP instance exactly with one of :data:`VARIANTS`.

    Args:
        instance_or_matrix: a :class:`TSPInstance` or an (n, n) distance matrix of integers
            (missing edges as ``np.inf`` or ``NO_EDGE``; see :func:`validate_matrix`).
        variant: one of :data:`VARIANTS`.
        force: run even when the estimated time (every version) or the Held-Karp table's
            memory (host or GPU) is above the limits.
        options: ``symmetric`` (brute force: enumerate each tour once; default: when the
            distances are symmetric; False enumerates all (n-1)! orders, as the source
            report counts them), ``max_free`` (brute force: most free cities per chunk,
            <= 20), ``block`` (GPU threads per block, a multiple of 32 up to 1024),
            ``batch`` (gpu_host_chunks: orders per host batch); the report's tuning steps
            (:data:`gpualgo.tsp.gpu.TUNING`): ``index``, ``host_buffer``, ``layout``,
            ``reduce`` (gpu_host_chunks), ``matrix`` (the three GPU brute forces),
            ``incremental`` and ``suffix`` (gpu_shared_incremental).

    Returns:
        a :class:`TSPResult`. An instance with no feasible tour (every tour uses a missing
        edge) is not an error: the result has ``feasible=False``, ``tour=None`` and
        ``length=math.inf``.

    Raises:
        ValueError: unknown variant or option, invalid matrix, a size refused with its
            estimate of time or memory (pass ``force=True``).
        GPUUnavailableError: a GPU variant without CuPy or a GPU.
    """
    started = time.perf_counter()           # the input's check counts in the solve's time
    variants.check(variant, VARIANTS, options)
    given = instance_or_matrix
    shape = None if isinstance(given, TSPInstance) else np.shape(given) if hasattr(given, "shape") else None
    if shape is not None and len(shape) == 2 and shape[0] == shape[1] and shape[0] > 1:
        # a matrix's size alone can be refused before its pass over every entry (the smaller,
        # symmetric, estimate of brute force: what the matrix holds cannot make it shorter)
        _time_guard(int(shape[0]), variant, True, force)
    inst = as_instance(given)                # a matrix is validated here, a given instance below
    symmetric = serial.choose_symmetric(inst, options.get("symmetric"))
    _time_guard(inst.n, variant, symmetric, force)
    if isinstance(given, TSPInstance):
        inst = as_instance(inst, check=True)   # its matrix may have changed since it was made
    if "force" in VARIANTS[variant].options:
        options["force"] = force
    return variants.call(VARIANTS, variant, inst, started=started, **options)


def check(n: int, variant: str = "gpu_held_karp", force: bool = False, symmetric: bool = True,
          dtype=np.int32, **options) -> None:
    """The refusals of :func:`solve` that the number of cities decides, without an instance
    (a sweep checks its cases with it before the first one runs): the variant and its options
    (names and values), the estimated time (unless ``force``), the most cities a GPU version
    handles, and serial Held-Karp's table in host memory (unless ``force``; ``dtype``: the
    weights', int32 unless the distances need int64, so the table is at least this large).
    ``symmetric``: whether brute force enumerates each tour once (what ``solve`` chooses for
    symmetric distances unless told ``symmetric=False``). The GPU Held-Karp's table is refused
    in GPU memory, which only a run can know.

    >>> check(12, "serial_bruteforce")
    >>> check(17, "serial_bruteforce")
    Traceback (most recent call last):
    ...
    ValueError: brute force on n=17 cities evaluates 1.05e+13 orders, ... (limit 3 min); use a Held-Karp variant, ...
    >>> check(40, "gpu_unrank", force=True)      # insisting on the time does not lift the GPU's limit
    Traceback (most recent call last):
    ...
    ValueError: GPU brute force handles at most 32 cities, got n=40
    """
    variants.check(variant, VARIANTS, options)
    VARIANTS[variant].check_values(options)
    _time_guard(n, variant, symmetric, force)
    if VARIANTS[variant].gpu:
        from .gpu import check_cities
        check_cities(n, held_karp=variant == "gpu_held_karp")
    elif variant == "held_karp" and n > 1:
        serial.check_table(n, dtype, force)


def _time_guard(n: int, variant: str, symmetric: bool, force: bool) -> None:
    work = estimate_work(n, variant, symmetric)
    cities = textfile.quote(n)       # a size of 300 digits is named, cut short
    work = f"{work:.3g}" if math.isfinite(work) else "more than 1e308"
    if variant in BRUTE_FORCE:
        what = (f"brute force on n={cities} cities evaluates {work} orders, with {variant} at "
                f"~{RATES[variant]:.1g} orders/s")
        hint = "use a Held-Karp variant"
    else:
        what = f"{variant} on n={cities} cities takes {work} steps at ~{HK_RATES[variant]:.1g} steps/s"
        hint = "use gpu_held_karp" if variant == "held_karp" else ""
    guards.time(estimate_seconds(n, variant, symmetric), what, MAX_SECONDS, force, hint=hint)
