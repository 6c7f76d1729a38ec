"""Serial dynamic programming for coalition structure generation (numba, one core).

:func:`dp` is the report's Algorithm 1: coalitions by increasing size, each one's best
value ``f(C) = max(v(C), max over splits {X, C \\ X} of f(X) + f(C \\ X))``; the optimal
partition is then rebuilt by Algorithm 2 (:func:`rebuild`) from ``v`` and ``f`` alone, with
no table of best splits. :func:`solve_dp` runs both and returns the result (the versions
``serial`` and, with the ODP rule, ``serial_odp`` of :data:`~gpualgo.coalitions.VARIANTS`).

Splits are enumerated once per unordered pair: ``X`` runs over the non-empty subsets of
``C`` without its highest agent, so ``C \\ X`` always holds that agent (``2**(|C|-1) - 1``
splits). Two pruning rules evaluate fewer splits and reach the same optimum:

- ``idp``: coalitions with ``2n/3 < |C| < n`` are not split at all. Any partition of the
  agents can be assembled by merges whose intermediate unions have at most ``2n/3``
  agents (a part larger than n/3 is merged last; otherwise parts are grouped into two
  halves of at most 2n/3 each), so the optimum is still found.
- ``odp``: a split of ``C`` (``|C| < n``) into sizes ``x <= y`` is evaluated only when
  ``y <= n - |C|``. Merging the parts of any partition smallest-two-first (Huffman's order)
  only ever merges blocks ``x <= y`` while the agents outside hold at least ``y``, so every
  partition is still reachable; it implies ``|C| <= 2n/3`` and evaluates about 38 % of
  DP's splits.
"""
from __future__ import annotations

import math
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .. import gpu
from .result import make_result

__all__ = ["RULES", "check_rule", "solve_dp", "solve_odp", "dp", "level", "rebuild", "rebuild_masks", "level_splits",
           "split_range", "popcount", "top_bit"]

#: pruning rules, in the order of the literature: all splits, IDP, ODP
RULES = ("dp", "idp", "odp")


def check_rule(rule) -> str:
    """``rule`` when it is one of :data:`RULES`; ValueError naming them otherwise."""
    if not isinstance(rule, str) or rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    return rule


@intrinsic
def _ctpop(typingctx, x):
    # LLVM's ctpop: one popcnt instruction on current CPUs (the check in the ODP loop)
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


@intrinsic
def _ctlz(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.int64(types.int64), codegen


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a non-negative integer."""
    return _ctpop(np.int64(x))


@njit(cache=True, inline="always")
def top_bit(x):
    """The highest set bit of x > 0, as a mask."""
    return np.int64(1) << (63 - _ctlz(np.int64(x)))


@njit(cache=True)
def split_range(n, s, rule):
    """Allowed sizes ``x = |X|`` of the split part without the top agent, ``(lo, hi)``;
    ``lo > hi`` when coalitions of size s are not split at all."""
    lo, hi = 1, s - 1
    if s < n:
        if rule == 1 and 3 * s > 2 * n:
            return 1, 0
        if rule == 2:
            lim = n - s
            lo = max(1, s - lim)
            hi = min(s - 1, lim)
    return lo, hi


@njit(cache=True)
def level(f, n, s, rule):
    """Evaluate every coalition of size s in place (``rule``: an index into :data:`RULES`);
    returns the splits evaluated."""
    lo, hi = split_range(n, s, rule)
    if lo > hi:
        return 0
    every = lo == 1 and hi == s - 1
    count = 0
    c = (1 << s) - 1
    end = 1 << n
    while c < end:
        cm = c ^ top_bit(c)
        best = f[c]
        x = cm
        while x:
            if every or lo <= popcount(x) <= hi:
                val = f[x] + f[c ^ x]
                count += 1
                if val > best:
                    best = val
            x = (x - 1) & cm
        f[c] = best
        # next coalition of the same size (Gosper's hack)
        low = c & -c
        r = c + low
        c = (((r ^ c) >> 2) // low) | r
    return count


def dp(values: np.ndarray, n: int, rule: str = "dp"):
    """Run the DP on a validated value function. Returns ``(f, stats)``.

    ``f`` has the dtype of ``values`` (its additions are made in that precision);
    ``stats``: ``splits`` evaluated, ``ms_per_level`` ({size: ms}).
    """
    r = RULES.index(rule)
    f = values.copy()
    per_level, splits = {}, 0
    for s in range(2, n + 1):
        t0 = time.perf_counter()
        splits += level(f, n, s, r)
        per_level[s] = (time.perf_counter() - t0) * 1e3
    return f, {"splits": int(splits), "ms_per_level": per_level}


@njit(cache=True)
def rebuild_masks(v, f, n):
    """Algorithm 2 in numba: the masks of the optimal partition from ``v`` and the DP table
    ``f`` (an empty array when some coalition has no split that adds up to its f value)."""
    parts = np.zeros(n, dtype=np.int64)
    stack = np.zeros(n, dtype=np.int64)
    stack[0] = (1 << n) - 1
    depth, k = 1, 0
    while depth:
        depth -= 1
        c = stack[depth]
        if f[c] == v[c] or popcount(c) == 1:
            parts[k] = c
            k += 1
            continue
        cm = c ^ top_bit(c)
        x = cm
        found = 0
        while x:   # Algorithm 2: the first split whose two values add up to f(C)
            if f[x] + f[c ^ x] == f[c]:
                found = x
                break
            x = (x - 1) & cm
        if found == 0:
            return parts[:0]
        stack[depth] = found
        stack[depth + 1] = c ^ found
        depth += 2
    return parts[:k]


def rebuild(v: np.ndarray, f: np.ndarray, n: int) -> list[int]:
    """Algorithm 2: the optimal partition from ``v`` and the DP table ``f`` (bitmasks).

    Raises RuntimeError if ``f`` is not a DP table of ``v`` (no split adds up).
    """
    parts = rebuild_masks(v, f, n)
    if len(parts) == 0:
        raise RuntimeError("no split of a coalition adds up to its DP value: f is not a DP table of v")
    return sorted(int(p) for p in parts)


def level_splits(n: int, rule: str = "dp") -> dict:
    """Splits the rule evaluates at each coalition size, ``{size: count}`` (exact counts).
    ValueError for an unknown rule or n outside ``1..MAX_AGENTS`` (no table of more agents
    can be held, so no count beyond is ever needed)."""
    from .values import _check_n
    n = _check_n(n)
    r = RULES.index(check_rule(rule))
    out = {}
    for s in range(2, n + 1):
        lo, hi = split_range(n, s, r)
        per = sum(math.comb(s - 1, x) for x in range(lo, hi + 1))
        out[s] = math.comb(n, s) * per
    return out


def solve_dp(values: np.ndarray, rule: str = "dp"):
    """The version ``serial``: the DP (:func:`dp`) with ``rule`` (one of :data:`RULES`), then
    the partition rebuilt by Algorithm 2 (:func:`rebuild`), on a validated value function
    (:func:`~gpualgo.coalitions.validate_values`). Returns a
    :class:`~gpualgo.coalitions.CoalitionResult`: ``stats["exec_ms"]`` is the DP and the
    rebuild, ``bytes_moved`` two table values read per split and one written per coalition."""
    return _solve(values, rule, "serial")


def solve_odp(values: np.ndarray):
    """The version ``serial_odp``: :func:`solve_dp` with the ODP rule."""
    return _solve(values, "odp", "serial_odp")


def _solve(values, rule, variant):
    t0 = time.perf_counter()
    check_rule(rule)
    n = len(values).bit_length() - 1
    f, stats = dp(values, n, rule)
    partition = rebuild(values, f, n)
    stats["exec_ms"] = (time.perf_counter() - t0) * 1e3
    stats["bytes_moved"] = int(stats["splits"]) * 2 * values.itemsize + (1 << n) * values.itemsize
    stats["device"] = gpu.cpu_label()
    return make_result(values, partition, f[-1], variant, stats, rule=rule, t0=t0)
