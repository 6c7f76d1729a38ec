"""The low coalitions' tasks of ``odp_tile_kernel`` (``gpu.low_tasks``) and the kernel's walk over
them, emulated on the host: every coalition in exactly one task, and the best split of each, read
through the swizzled tiles, equal to a direct maximum over its splits."""
import re

import numpy as np
import pytest

from gpualgo import gpu
from gpualgo.coalitions import gpu as co_gpu

#: the core's agents a lane walks in unrolled Gray-code order (coalitions.cu's INNER)
INNER = int(re.search(r"#define INNER (\d+)", gpu.kernel_source("coalitions")).group(1))


def _swizzle(i, bits=4):
    """As coalitions.cu places the pair (A, B) of a tile's entry i (float32: 8-byte pairs)."""
    return i ^ (((i >> bits) ^ (i >> (bits + 2))) & ((1 << bits) - 1))


def _next_split(x, mask):
    return (x - mask) & mask


def test_the_swizzle_is_a_linear_bijection():
    for b in (3, 5, 8, 12):
        placed = [_swizzle(i) for i in range(1 << b)]
        assert sorted(placed) == list(range(1 << b))
    assert all(_swizzle(i ^ j) == _swizzle(i) ^ _swizzle(j) for i in range(0, 4096, 37) for j in range(0, 4096, 53))


@pytest.mark.parametrize("b", [1, 2, 3, 5, 8, 12])
def test_every_low_coalition_is_in_one_task(b):
    rows, off = co_gpu.low_tasks(b)
    e_max = co_gpu.EXTRAS
    assert rows.shape[1] == 2 + 2 * e_max and len(off) == b + 2 and off[0] == 0 and off[-1] == len(rows)
    for t in range(b + 1):
        cls = [int(c) for c in co_gpu.masks_of_size(b, t)]
        seen = []
        counts = [int(r[1]) for r in rows[off[t]:off[t + 1]]]
        assert counts == sorted(counts, reverse=True) and all(1 <= k <= e_max for k in counts)   # fullest first
        for r in rows[off[t]:off[t + 1]]:
            core, k = int(r[0]), int(r[1])
            assert bin(core).count("1") == max(t - 1, 0)
            for e in range(k):
                extra = int(r[2 + e])
                assert (t == 0 and extra == 0) or (bin(extra).count("1") == 1 and not extra & core)
                assert cls[int(r[2 + e_max + e])] == core | extra          # its place among the size t
                seen.append(core | extra)
        assert sorted(seen) == cls
    if b == 12:   # most coalitions of the busiest sizes share their task with three others
        for t in (5, 6, 7, 8):
            full = sum(int(r[1]) for r in rows[off[t]:off[t + 1]] if int(r[1]) == e_max)
            assert full >= 0.75 * len(co_gpu.masks_of_size(b, t)), t


def _walk(A, B, b, t, jlo, jhi, group):
    """What the kernel's lanes compute for one tile: the best split of each coalition of size t."""
    rows, off = co_gpu.low_tasks(b)
    e_max = co_gpu.EXTRAS
    As, Bs = np.empty_like(A), np.empty_like(B)
    As[[_swizzle(i) for i in range(len(A))]] = A         # the tiles as shared memory holds them
    Bs[[_swizzle(i) for i in range(len(B))]] = B
    best = {}
    per = (1 << (t - 1) if t else 1) // group
    every, span = jlo == 0 and jhi == t, jhi - jlo
    for r in rows[off[t]:off[t + 1]]:
        core, k = int(r[0]), int(r[1])
        c_s = _swizzle(core)
        a_s = [_swizzle(int(r[2 + e])) for e in range(k)]
        for rank in range(group):
            # the core's lowest log2(group) agents from the rank, the next INNER in Gray-code order,
            # the others from a counter on them
            xr = co_gpu._scatter(rank, core)
            rest = core
            for _ in range(group.bit_length() - 1):
                rest &= rest - 1
            inner = min(INNER, bin(rest).count("1"))
            o = []
            for _ in range(INNER):
                low = rest & -rest
                o.append(_swizzle(low))
                rest ^= low
            xo = 0
            for _ in range(per >> inner):
                xb = xr | xo
                xs = _swizzle(xb)
                for q in range(1 << inner):
                    if q:
                        xs ^= o[(q & -q).bit_length() - 1]
                    jx = bin(xb).count("1") + bin(q ^ (q >> 1)).count("1")
                    zs = c_s ^ xs                              # swizzle(core ^ x), by linearity
                    use_x = every or 0 <= jx - jlo <= span
                    use_y = every or 0 <= t - jx - jlo <= span
                    for e in range(k):
                        cl = core | int(r[2 + e])
                        ys = zs ^ a_s[e]
                        if use_x:
                            best[cl] = max(best.get(cl, -np.inf), As[xs] + Bs[ys])
                        if use_y:
                            best[cl] = max(best.get(cl, -np.inf), As[ys] + Bs[xs])
                xo = ((xo | (~rest & 0xFFFFFFFF)) + (rest & -rest)) & rest
    return best


@pytest.mark.parametrize("b", [3, 6, 10])
def test_the_walk_over_tasks_finds_every_best_split(b, rng):
    A, B = rng.random(1 << b), rng.random(1 << b)
    for t in range(b + 1):
        for jlo, jhi in {(0, t), (0, t // 2), (t // 2, t), (t // 3, (2 * t) // 3)}:
            for group in {1, min(4, 1 << max(t - 1, 0))}:
                got = _walk(A, B, b, t, jlo, jhi, group)
                for cl in (int(c) for c in co_gpu.masks_of_size(b, t)):
                    subs = [x for x in range(1 << b) if x & cl == x and jlo <= bin(x).count("1") <= jhi]
                    want = max((A[x] + B[cl ^ x] for x in subs), default=-np.inf)
                    assert got.get(cl, -np.inf) == want, (b, t, jlo, jhi, group, cl)


@pytest.mark.parametrize("n, b, r", [(6, 2, 0), (12, 5, 2), (16, 12, 2), (14, 12, 2), (20, 8, 1)])
def test_the_plan_covers_every_launch_once_and_the_first_part_first(n, b, r):
    """odp_plan: with the table in two parts, each launch of odp_launches covers its high masks
    exactly once over the two parts, the first part holds the masks without the top LEAD high
    agents and comes first; in one part, the plan is odp_launches level by level."""
    import math
    one = list(co_gpu.odp_plan(n, b, r, False))
    two = list(co_gpu.odp_plan(n, b, r, True))
    want = [(s, h, t, ok) for s in range(2, n + 1) if not (r == 1 and s < n and 3 * s > 2 * n)
            for h, t, ok, _ in co_gpu.odp_launches(n, b, s, r)]
    assert [(p[1], p[2], p[3], p[4]) for p in one] == want
    assert all(p[0] == 0 and p[5] == 0 and p[6] == math.comb(n - b, p[2]) for p in one)
    parts = [p[0] for p in two]
    assert parts == sorted(parts)
    for s, h, t, ok in want:
        slices = sorted((p[5], p[6], p[0]) for p in two if p[1:5] == (s, h, t, ok))
        covered = [i for lo, hi, _ in slices for i in range(lo, hi)]
        assert covered == list(range(math.comb(n - b, h))), (s, h)
        highs = co_gpu.masks_of_size(n - b, h)
        for lo, hi, part in slices:
            top = [int(m) >> (n - b - co_gpu.LEAD) != 0 for m in highs[lo:hi]] if n - b >= co_gpu.LEAD else []
            assert all(top) if part else not any(top), (s, h, part)
