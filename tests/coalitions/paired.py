"""Value functions whose optimum has parts of x, y and y agents (x < y): ODP reaches such a
partition only through a split whose larger part holds as many agents as the rest (y = n - s),
the edge of its rule (gpualgo.coalitions.serial.split_range)."""
import numpy as np

from gpualgo import coalitions as co


def paired_classes(n):
    """The sizes ``(x, y)`` with ``0 < x < y`` and ``x + 2y = n``."""
    return [(n - 2 * y, y) for y in range(1, n) if 0 < n - 2 * y < y]


def paired_values(n, x, y, seed, dtype=np.float64):
    """Coalitions of ``y`` agents are worth about 11 an agent, those of ``x`` agents about 10 an
    agent, every other coalition 0 (noise below 0.01 each). For ``n = x + 2y`` with ``0 < x < y``
    the partition into parts of ``x``, ``y`` and ``y`` agents is the optimum, by at least 1.8:
    two parts of ``y`` agents and the rest alone lose ``10x``, one part of ``y`` agents and parts
    of ``x`` lose at least ``y``, and fewer parts of ``y`` lose more."""
    rng = np.random.default_rng(seed)
    pop = co.popcounts(n)
    v = np.zeros(1 << n, dtype=dtype)
    for size, per_agent in ((x, 10), (y, 11)):
        keep = pop == size
        v[keep] = per_agent * size + 0.01 * rng.random(int(keep.sum()))
    return v
