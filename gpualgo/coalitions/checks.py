"""Independent checks: a partition covers every agent once, its value, brute force, and
the comparison of a version's answer with a reference's.

Nothing here shares code with the solvers: the brute force enumerates every set partition
as a restricted growth string (agent i goes to block a[i], a[i] <= 1 + max of the earlier
ones), which is a different search from the dynamic programme over subsets.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .values import validate_values

__all__ = ["check_partition", "partition_value", "brute_force", "BRUTE_FORCE_MAX", "bell", "tolerance",
           "check_against_serial"]

#: brute force is offered up to this many agents (Bell(11) = 678570 partitions)
BRUTE_FORCE_MAX = 11


def tolerance(dtype) -> float:
    """Relative rounding allowed in one value of a table of ``dtype``: 1e-4 for float32,
    1e-9 for float64 (the DP adds up to n values in the table's precision)."""
    return 1e-4 if np.dtype(dtype) == np.float32 else 1e-9


def check_against_serial(result, reference) -> str:
    """Check a version's answer against the serial DP's on the same value function.

    ``result`` and ``reference`` are results of :func:`~gpualgo.coalitions.solve` (the
    reference usually ``variant="serial"``). Raises ValueError unless the result's
    partition covers every agent exactly once (:func:`check_partition`), and AssertionError
    unless its value equals the reference's within :func:`tolerance` of the table's dtype,
    relative to the larger of the two partitions' sums of magnitudes (``stats["magnitude"]``,
    at least 1 and at least the reference's value): values that cancel round like their
    magnitudes, not like their small sum. Returns a sentence saying what was verified.
    """
    n = reference.stats["n"]
    masks = check_partition(result.partition, n)
    dtype = result.stats.get("dtype", reference.stats.get("dtype", "float64"))
    scale = max(1.0, abs(reference.value), result.stats.get("magnitude", 0.0), reference.stats.get("magnitude", 0.0))
    tol = tolerance(dtype) * scale
    if abs(result.value - reference.value) > tol:
        raise AssertionError(f"{result.variant}: value {result.value!r}, the {reference.variant} DP "
                             f"found {reference.value!r} (tolerance {tol:.2g})")
    return (f"value equal to the {reference.variant} DP's within {tol:.1g}; its {len(masks)} "
            f"coalitions hold each of the {n} agents once")


def bell(n: int) -> int:
    """Number of set partitions of n agents (the Bell number)."""
    row = [1]
    for _ in range(n):
        nxt = [row[-1]]
        for x in row:
            nxt.append(nxt[-1] + x)
        row = nxt
    return row[0]


def check_partition(partition, n: int) -> list[int]:
    """Raise ValueError unless ``partition`` (bitmasks: integers) splits agents 0..n-1 into
    non-empty, disjoint coalitions that together hold every agent. Returns the masks as ints."""
    masks = []
    for m in partition:   # int(1.5) would be 1: a mask that is no integer is a wrong answer
        if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)):
            raise ValueError(f"a coalition is an integer bitmask, got {m!r}")
        masks.append(int(m))
    full = (1 << n) - 1
    seen = 0
    for m in masks:
        if m <= 0 or m > full:
            raise ValueError(f"coalition {m:#b} is empty or names agents beyond n={n}")
        if seen & m:
            raise ValueError(f"agents {seen & m:#b} are in two coalitions")
        seen |= m
    if seen != full:
        raise ValueError(f"agents {full & ~seen:#b} are in no coalition")
    return masks


def partition_value(values, partition) -> float:
    """Sum of the coalitions' values, in float64, after :func:`check_partition`."""
    v, n = validate_values(values)
    masks = check_partition(partition, n)
    return float(sum(float(v[m]) for m in masks))


@njit(cache=True)
def _brute(v, n):
    a = np.zeros(n, dtype=np.int64)       # block of each agent
    top = np.zeros(n, dtype=np.int64)     # top[i] = max(a[0..i])
    blocks = np.zeros(n, dtype=np.int64)
    best = -np.inf
    best_a = a.copy()
    count = 0
    while True:
        for k in range(n):
            blocks[k] = 0
        for i in range(n):
            blocks[a[i]] |= 1 << i
        total = 0.0
        for k in range(top[n - 1] + 1):
            total += v[blocks[k]]
        count += 1
        if total > best:
            best = total
            best_a[:] = a
        # next restricted growth string: bump the last position that may grow
        i = n - 1
        while i > 0 and a[i] == top[i - 1] + 1:
            i -= 1
        if i == 0:
            break
        a[i] += 1
        top[i] = max(top[i - 1], a[i])
        for j in range(i + 1, n):
            a[j] = 0
            top[j] = top[i]
    return best, best_a, count


def brute_force(values) -> tuple[float, list[int], int]:
    """The best partition by trying every set partition (n <= 11).

    Returns ``(value, partition as bitmasks, partitions tried)``; value summed in float64.
    """
    v, n = validate_values(values)
    if n > BRUTE_FORCE_MAX:
        raise ValueError(f"brute force over the {bell(n):.3g} partitions of n={n} agents is "
                         f"refused (at most n={BRUTE_FORCE_MAX})")
    best, a, count = _brute(v.astype(np.float64), n)
    parts = [0] * (int(a.max()) + 1)
    for i, k in enumerate(a):
        parts[int(k)] |= 1 << i
    return float(best), sorted(parts), int(count)
