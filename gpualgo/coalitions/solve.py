"""``coalitions.solve``: one entry point for every version, with the size guards."""
from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field

import numpy as np

from .. import variants
from ..timing import human_seconds
from . import checks, serial
from .values import host_memory_bytes, table_bytes, validate_values

__all__ = ["VARIANTS", "CoalitionResult", "solve", "estimate_seconds", "total_splits"]

#: every version, in the order they are taught
VARIANTS = ("serial", "serial_odp", "gpu_report", "gpu_shared_splits", "gpu_odp")

#: splits per second (serial_odp: subsets enumerated, IDP's splits), rounded down from the
#: recorded ``report`` preset (serial: one x86 core at n = 18..22, 4.4e8 to 5.1e8 for DP and
#: 3.8e8 to 7.5e8 for ODP; gpu_*: an H100 at n = 22..29); used only for the refusal estimates
RATES = {"serial": 4.0e8, "serial_odp": 3.5e8, "gpu_report": 1.0e11, "gpu_shared_splits": 1.0e11,
         "gpu_odp": 5.0e11}
#: refuse runs estimated above this many seconds, unless force=True
MAX_SECONDS = 600.0

_OPTIONS = {
    "serial": {"rule"},
    "serial_odp": set(),
    "gpu_report": {"block", "per_thread"},
    "gpu_shared_splits": {"block", "per_thread", "share"},
    "gpu_odp": {"rule", "block", "low_bits", "tiles_per_block"},
}


@dataclass
class CoalitionResult:
    """The answer of :func:`solve`.

    Attributes:
        partition: the optimal coalition structure, a sorted list of bitmasks (agent i is
            bit i) that covers every agent exactly once.
        value: the partition's value, ``sum(values[c] for c in partition)`` in float64.
        variant: the version that ran.
        stats: ``splits`` (splits evaluated), ``ms_per_level`` ({coalition size: ms}),
            ``bytes_moved`` (bytes of the f table read and written by the kernels, or by
            the serial loop), ``total_ms`` (wall time, transfers included), ``kernel_ms``
            (GPU), ``table_value`` (f of all agents, in the table's precision), ``dtype``,
            ``device``, ``n``, ``rule``.
    """

    partition: list
    value: float
    variant: str
    stats: dict = field(default_factory=dict)


def total_splits(n: int, rule: str = "dp") -> int:
    """Splits a rule evaluates on n agents (DP: about 3**n / 2)."""
    return int(sum(serial.level_splits(n, rule).values()))


def estimate_seconds(n: int, variant: str, rule: str | None = None) -> float:
    """Rough run time of ``variant`` on n agents, from :data:`RATES` (seconds)."""
    variants.check(variant, VARIANTS)
    rule = rule or {"serial_odp": "odp", "gpu_odp": "odp"}.get(variant, "dp")
    work = total_splits(n, rule) if variant != "serial_odp" else total_splits(n, "idp")
    return work / RATES[variant]


def solve(values, variant: str = "gpu_odp", force: bool = False, **options) -> CoalitionResult:
    """The optimal coalition structure of a value function, by one of :data:`VARIANTS`.

    Args:
        values: array of length ``2**n``, ``values[mask]`` the value of the coalition
            ``mask`` (float32 or float64; integers become float64), ``values[0] == 0``.
            The DP table has the same dtype: float32 halves the memory and is faster on
            the GPU; the partition's ``value`` is always summed in float64.
        variant: one of :data:`VARIANTS`.
        force: run even when the estimated time or memory is above the limits.
        options: ``rule`` (serial, gpu_odp: ``"dp"``, ``"idp"`` or ``"odp"``, see
            :mod:`~gpualgo.coalitions.serial`), ``block`` (GPU threads per block, a multiple
            of 32 up to 1024), ``per_thread`` (gpu_report, gpu_shared_splits: splits per
            thread), ``share`` (gpu_shared_splits: coalitions evaluated together, 2..8),
            ``low_bits`` (gpu_odp: agents per shared-memory tile, 1..12),
            ``tiles_per_block`` (gpu_odp).

    Returns:
        a :class:`CoalitionResult`.

    Raises:
        ValueError: invalid values (see :func:`validate_values`), unknown variant or option,
            a size refused with its estimate (pass ``force=True``).
        GPUUnavailableError: a GPU variant without CuPy or a GPU.
    """
    variants.check(variant, VARIANTS, options, _OPTIONS)
    v, n = validate_values(values)
    rule = options.pop("rule", "odp" if variant in ("serial_odp", "gpu_odp") else "dp")
    if rule not in serial.RULES:
        raise ValueError(f"rule must be one of {serial.RULES}, got {rule!r}")
    on_gpu = variant.startswith("gpu_")
    if on_gpu:
        from .. import gpu
        gpu.require()
    if not force:
        _guard(n, v.dtype, variant, rule, on_gpu)

    t0 = time.perf_counter()
    if on_gpu:
        from . import gpu as dp_gpu
        partition, table_value, stats = dp_gpu.run(variant, v, n, rule=rule, **options)
    else:
        f, stats = serial.dp(v, n, rule)
        partition = serial.rebuild(v, f, n)
        table_value = f[-1]
        stats["bytes_moved"] = int(stats["splits"]) * 2 * v.itemsize + (1 << n) * v.itemsize
        stats["device"] = f"CPU {platform.processor() or platform.machine()} (1 core, numba)"
    stats["total_ms"] = (time.perf_counter() - t0) * 1e3
    stats.update(n=n, rule=rule, dtype=v.dtype.name, table_value=float(table_value))
    value = checks.partition_value(v, partition)
    tol = 1e-4 if v.dtype == np.float32 else 1e-9
    if abs(value - float(table_value)) > tol * max(1.0, abs(value)) * n:  # an internal error
        raise RuntimeError(f"{variant}: the DP value {float(table_value)} differs from the value "
                           f"{value} of the rebuilt partition {partition}")
    return CoalitionResult(partition=partition, value=value, variant=variant, stats=stats)


def _guard(n, dtype, variant, rule, on_gpu):
    secs = estimate_seconds(n, variant, rule)
    if secs > MAX_SECONDS:
        raise ValueError(f"{variant} on n={n} agents evaluates {total_splits(n, rule):.3g} splits: "
                         f"about {human_seconds(secs)}; use gpu_odp, or pass force=True")
    if on_gpu:
        from .. import gpu
        free = gpu.require().cuda.runtime.memGetInfo()[0]
        need = table_bytes(n, dtype, tables=2 if variant != "gpu_odp" else 1)
        where, have = "GPU", free
    else:
        need, where, have = table_bytes(n, dtype, tables=2), "host", host_memory_bytes()
    if need > 0.9 * have:
        raise ValueError(f"n={n} agents needs about {need / 2**30:.1f} GiB of {where} memory as "
                         f"{np.dtype(dtype).name} and {have / 2**30:.1f} GiB are free (float32 "
                         "halves it); pass force=True to try anyway")

