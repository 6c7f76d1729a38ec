"""What every coalition version returns: the optimal partition, its value and the statistics.

>>> import numpy as np
>>> from gpualgo.coalitions.result import make_result
>>> v = np.array([0.0, 1.0, 1.0, 3.0])          # two agents: together they earn 3
>>> r = make_result(v, [3], 3.0, "serial", {"splits": 1})
>>> r.objective, r.objective_name, r.stats["n"]
(3.0, 'value', 2)
>>> make_result(v, [1, 2], 3.0, "serial", {})    # the DP says 3, the partition is worth 2
Traceback (most recent call last):
...
RuntimeError: serial: the DP value 3.0 differs from the value 2.0 of the rebuilt partition [1, 2]
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..result import Result
from . import checks

__all__ = ["CoalitionResult", "make_result"]


@dataclass
class CoalitionResult(Result):
    """The answer of :func:`~gpualgo.coalitions.solve`.

    Attributes:
        partition: the optimal coalition structure, a sorted list of bitmasks (agent i is
            bit i) that covers every agent exactly once.
        value: the partition's value, ``sum(values[c] for c in partition)`` in float64
            (also :attr:`objective`).
        variant: the version that ran.
        stats: the times of :data:`gpualgo.result.TIMES` (``total_ms``, ``prepare_ms``: the
            upload, ``exec_ms``: the DP and the rebuild, ``kernel_ms``: GPU kernels),
            ``device``, then ``splits`` (splits evaluated), ``ms_per_level`` ({coalition
            size: ms}), ``bytes_moved`` (bytes of the f table read and written by the
            kernels, or by the serial loop), ``table_value`` (f of all agents, in the
            table's precision), ``dtype``, ``n``, ``rule``, and each version's own counters.
    """

    partition: list
    value: float
    variant: str
    stats: dict = field(default_factory=dict)

    objective_name = "value"

    @property
    def objective(self) -> float:
        """The partition's value (the number the problem maximises)."""
        return self.value


def make_result(values, partition, table_value, variant: str, stats: dict, rule: str = "dp",
                t0: float | None = None) -> CoalitionResult:
    """The result of a version that found ``partition`` and the DP value ``table_value``.

    ``values`` is the validated value function the version solved. Adds ``n``, ``rule``,
    ``dtype`` and ``table_value`` to ``stats`` (and ``total_ms``, from ``t0``, a
    ``time.perf_counter()`` reading at the start of the call, to now, when given), sums the
    partition's value in float64 after :func:`~gpualgo.coalitions.checks.check_partition`,
    and raises RuntimeError when that value and the DP's differ by more than the table's
    precision allows over n additions of the partition's values (relative to the sum of their
    magnitudes, :func:`~gpualgo.coalitions.checks.tolerance`): an internal error of the
    version, never a property of the input.
    """
    if t0 is not None:   # before the check below, which reads the whole table again
        stats["total_ms"] = (time.perf_counter() - t0) * 1e3
    n = len(values).bit_length() - 1
    stats.update(n=n, rule=rule, dtype=values.dtype.name, table_value=float(table_value))
    value = checks.partition_value(values, partition)
    # the DP added these values in some order: its rounding grows with their magnitudes, which
    # may be far above their sum's when positive and negative values cancel
    scale = max(1.0, sum(abs(float(values[c])) for c in partition))
    stats["magnitude"] = scale       # what check_against_serial scales its tolerance by
    if abs(value - float(table_value)) > checks.tolerance(values.dtype) * scale * n:
        raise RuntimeError(f"{variant}: the DP value {float(table_value)} differs from the value "
                           f"{value} of the rebuilt partition {partition}")
    return CoalitionResult(partition=partition, value=value, variant=variant, stats=stats)
