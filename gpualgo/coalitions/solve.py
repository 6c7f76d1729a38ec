"""``coalitions.solve``: one entry point for every version, with the size guards."""
from __future__ import annotations

import time

import numpy as np

from .. import guards, variants
from ..variants import Variant
from . import serial
from .result import CoalitionResult
from .values import table_bytes, table_shape, validate_values

__all__ = ["VARIANTS", "CoalitionResult", "solve", "check", "estimate_seconds", "total_splits", "RATES", "MAX_SECONDS"]

_LAUNCH = "gpualgo.coalitions.gpu:check_options"

#: every version, in the order they are taught, with the options each takes
VARIANTS = variants.table(
    Variant("serial", "gpualgo.coalitions.serial:solve_dp", {"rule"}),
    Variant("serial_odp", "gpualgo.coalitions.serial:solve_odp"),
    Variant("gpu_report", "gpualgo.coalitions.gpu:report", {"block", "per_thread", "coalitions_per_thread"},
            gpu=True, checks=_LAUNCH),
    Variant("gpu_shared_splits", "gpualgo.coalitions.gpu:shared_splits",
            {"block", "per_thread", "share", "coalitions_per_thread"}, gpu=True, checks=_LAUNCH),
    Variant("gpu_odp", "gpualgo.coalitions.gpu:odp", {"rule", "block", "low_bits", "tiles_per_block", "bound"},
            gpu=True, checks=_LAUNCH),
    Variant("gpu_odp_multi", "gpualgo.coalitions.gpu:odp_multi",
            {"devices", "rule", "block", "low_bits", "tiles_per_block"}, gpu=True, checks=_LAUNCH),
)

#: splits per second (serial_odp: subsets enumerated, IDP's splits), rounded down from the
#: recorded ``report`` preset (serial: one x86 core at n = 18..22, 4.4e8 to 5.1e8 for DP and
#: 3.8e8 to 7.5e8 for ODP; gpu_*: an H100 at n = 22..29); used only for the refusal estimates
RATES = {"serial": 4.0e8, "serial_odp": 3.5e8, "gpu_report": 6.0e10, "gpu_shared_splits": 1.0e11,
         "gpu_odp": 5.0e11, "gpu_odp_multi": 5.0e11}   # gpu_odp_multi: one GPU's rate (not yet measured on two)
#: refuse runs estimated above this many seconds, unless force=True
MAX_SECONDS = 600.0

#: the rule each version uses when none is given (the versions' own defaults)
_DEFAULT_RULE = {"serial_odp": "odp", "gpu_odp": "odp", "gpu_odp_multi": "odp"}


def total_splits(n: int, rule: str = "dp") -> int:
    """Splits a rule evaluates on n agents (DP: about 3**n / 2); ValueError for n outside
    ``1..MAX_AGENTS`` or an unknown rule, at once."""
    return int(sum(serial.level_splits(n, rule).values()))


def estimate_seconds(n: int, variant: str, rule: str | None = None) -> float:
    """Rough run time of ``variant`` on n agents, from :data:`RATES` (seconds); ValueError
    for an unknown variant or rule, or n outside ``1..MAX_AGENTS``, at once."""
    variants.check(variant, VARIANTS)
    rule = serial.check_rule(rule or _DEFAULT_RULE.get(variant, "dp"))
    work = total_splits(n, rule) if variant != "serial_odp" else total_splits(n, "idp")
    return work / RATES[variant]


def table_need(n: int, dtype, variant: str) -> tuple[int, str]:
    """``(bytes, where)``: the tables ``variant`` keeps on n agents, and where (``"GPU"`` or
    ``"host"``): the serial versions hold v and f on the host; on the GPU, gpu_odp holds f
    alone, the report's versions f and room for as much again (the lists of coalitions),
    gpu_odp_multi f on each GPU and the buffer it merges the other GPUs' tables through."""
    if variant == "gpu_odp_multi":
        from .gpu import EXCHANGE_BYTES
        table = table_bytes(n, dtype, tables=1)
        return table + min(table, EXCHANGE_BYTES), "GPU"
    if VARIANTS[variant].gpu:
        return table_bytes(n, dtype, tables=2 if variant != "gpu_odp" else 1), "GPU"
    return table_bytes(n, dtype, tables=2), "host"


def solve(values, variant: str = "gpu_odp", force: bool = False, **options) -> CoalitionResult:
    """The optimal coalition structure of a value function, by one of :data:`VARIANTS`.

    Args:
        values: array of length ``2**n``, ``values[mask]`` the value of the coalition
            ``mask`` (float32 or float64; integers become float64, and are refused where a
            partition's total could pass 2**53, beyond which float64 rounds them), ``values[0] == 0``.
            The DP table has the same dtype: float32 halves the memory and is faster on
            the GPU; the partition's ``value`` is always summed in float64.
        variant: one of :data:`VARIANTS`.
        force: run even when the estimated time or memory is above the limits.
        options: ``rule`` (serial, gpu_odp: ``"dp"``, ``"idp"`` or ``"odp"``, see
            :mod:`~gpualgo.coalitions.serial`), ``block`` (GPU threads per block, a multiple
            of 32 up to 1024), ``per_thread`` (gpu_report, gpu_shared_splits: splits per
            thread), ``share`` (gpu_shared_splits: coalitions evaluated together, 2..8),
            ``coalitions_per_thread`` (gpu_report, gpu_shared_splits: coalitions a thread
            visits in turn, ``share`` at a time; the report's 32),
            ``low_bits`` (gpu_odp: agents per shared-memory tile, 1..12),
            ``tiles_per_block`` (gpu_odp), ``bound`` (gpu_odp with the ODP rule: skip the top
            levels' coalitions that no optimal partition needs, :func:`~gpualgo.coalitions.gpu.odp`;
            default True), ``devices`` (gpu_odp_multi: how many GPUs, or their ids; default
            every visible GPU).

    Returns:
        a :class:`CoalitionResult`.

    Raises:
        ValueError: invalid values (see :func:`validate_values`), unknown variant or option,
            a size refused with its estimate (pass ``force=True``).
        GPUUnavailableError: a GPU variant without CuPy or a GPU.
    """
    started = time.perf_counter()           # the input's check counts in the solve's time
    variants.check(variant, VARIANTS, options)
    VARIANTS[variant].check_values(options)     # refused alike with and without a GPU
    table, n, dtype = table_shape(values)
    if VARIANTS[variant].gpu:
        from .. import gpu
        gpu.require()   # no GPU: say so before any pass over the values or any estimate
    else:
        check(n, variant, dtype, force, **options)   # the size alone: before any pass over the values
    v, n = validate_values(table)
    if VARIANTS[variant].gpu:
        check(n, variant, v.dtype, force, gpu_memory=True, **options)
    return variants.call(VARIANTS, variant, v, started=started, **options)


def check(n: int, variant: str = "gpu_odp", dtype=np.float64, force: bool = False, gpu_memory: bool = False,
          **options) -> None:
    """The refusals of :func:`solve` that the number of agents decides, without the values (a
    sweep checks its cases with it before the first one runs): the variant and its options, the
    estimated time and the tables' memory (:func:`table_need`, ``dtype``: the values'), both
    unless ``force``. The memory is checked where it is held: on the host for the serial
    versions; on the GPU only with ``gpu_memory=True`` (what :func:`solve` does), as knowing the
    GPU's free memory takes a GPU.

    >>> check(20, "serial")
    >>> check(25, "serial")
    Traceback (most recent call last):
    ...
    ValueError: serial on n=25 agents evaluates 4.24e+11 splits: about ... (limit 10 min); use gpu_odp, ...
    >>> check(25, "serial", force=True)      # insisted
    """
    variants.check(variant, VARIANTS, options)
    VARIANTS[variant].check_values(options)
    rule = serial.check_rule(options["rule"]) if "rule" in options else _DEFAULT_RULE.get(variant, "dp")
    guards.time(estimate_seconds(n, variant, rule), f"{variant} on n={n} agents evaluates "
                f"{total_splits(n, rule):.3g} splits", MAX_SECONDS, force,
                hint="use gpu_odp" if variant not in ("gpu_odp", "gpu_odp_multi") else "")
    need, where = table_need(n, dtype, variant)
    if where == "host" or gpu_memory:
        dtype = np.dtype(dtype)
        guards.memory(need, f"n={n} agents as {dtype.name}", force, where=where,
                      hint="float32 halves it" if dtype == np.float64 else "")
