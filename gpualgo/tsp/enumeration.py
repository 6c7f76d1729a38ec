"""How the brute-force versions enumerate tours: chunks of permutations in lexicographic order.

City 0 is fixed as the start, so a tour is an order of the other m = n - 1 cities. The orders
are split into *chunks*: a chunk fixes the first ``f`` cities of the order (its prefix) and,
for symmetric instances, the last one; the remaining ``k`` free cities run through all their
``k!`` permutations in lexicographic order, numbered 0 .. k!-1 by the factorial number system.
A *global rank* ``g = chunk * k! + local`` then names every enumerated order.

- Symmetric instances: a tour and its reverse have the same length, so only orders whose
  first city is smaller than their last are enumerated: the chunks are the pairs
  (first, last) with first < last, ``m! / 2`` orders in all.
- Large n: a 64-bit rank cannot count past 20! (the limit of the source report). When k would
  exceed ``max_free`` (20), more leading cities are fixed, so that each chunk has at most
  20! orders and a kernel launch covers a range of chunks whose count fits in 63 bits.

Every brute-force version (serial and GPU) walks this same order and keeps the first best
order it meets, so they all return the same tour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import guards

#: 20! < 2^63 <= 21!: the largest chunk a signed 64-bit rank can count.
MAX_FREE = 20
#: the most chunks a plan lists (far more than any enumeration that could finish needs: n = 17,
#: symmetric, has 120; each costs a Python list of its prefix while the plan is built)
MAX_CHUNKS = 1 << 22


@dataclass(frozen=True)
class Plan:
    """The chunks of a brute-force enumeration (see the module docstring).

    Attributes:
        n: number of cities; m = n - 1 cities are permuted.
        symmetric: whether each tour is enumerated once (first < last) or twice.
        f: number of fixed leading cities per chunk.
        k: number of free cities per chunk.
        prefix: (n_chunks, max(f, 1)) uint8, the fixed leading cities of each chunk.
        last: (n_chunks,) int32, the fixed last city of each chunk, or -1.
    """

    n: int
    symmetric: bool
    f: int
    k: int
    prefix: np.ndarray
    last: np.ndarray

    @property
    def m(self) -> int:
        return self.n - 1

    @property
    def n_chunks(self) -> int:
        return int(self.last.shape[0])

    @property
    def kfact(self) -> int:
        """Orders per chunk, k!."""
        return math.factorial(self.k)

    @property
    def total(self) -> int:
        """Number of orders enumerated (a Python int: it may exceed 2^64)."""
        return self.n_chunks * self.kfact

    def free(self, chunk: int) -> list[int]:
        """The free cities of a chunk, ascending (the order of local rank 0)."""
        used = set(int(c) for c in self.prefix[chunk, :self.f])
        if self.last[chunk] >= 0:
            used.add(int(self.last[chunk]))
        return [c for c in range(1, self.n) if c not in used]

    def tour(self, chunk: int, local: int) -> np.ndarray:
        """The tour (starting at city 0) of order ``local`` of ``chunk``."""
        order = [0] + [int(c) for c in self.prefix[chunk, :self.f]]
        order += unrank(local, self.free(chunk))
        if self.last[chunk] >= 0:
            order.append(int(self.last[chunk]))
        return np.asarray(order, dtype=np.int64)

    def tour_of_rank(self, g: int) -> np.ndarray:
        """The tour of global rank ``g``."""
        chunk, local = divmod(int(g), self.kfact)
        return self.tour(chunk, local)


def make_plan(n: int, symmetric: bool, max_free: int = MAX_FREE) -> Plan:
    """Build the enumeration of the tours of n >= 2 cities (see the module docstring).

    Args:
        n: number of cities.
        symmetric: enumerate each tour once (valid only for symmetric distances).
        max_free: most free cities per chunk (<= 20); smaller values split into more chunks
            (tests use this to exercise the splitting on small n).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"enumeration needs an integer of at least 2 cities, got {n!r}")
    guards.integer(max_free, "max_free (free cities per chunk)", 1, MAX_FREE)
    m = n - 1
    # m <= 2: at most two orders; halving would leave nothing free, so enumerate all
    symmetric = bool(symmetric) and m >= 3
    count, k = (m * (m - 1) // 2, m - 2) if symmetric else (1, m)
    while k > max_free:                  # the chunks it would list, counted before listing them
        count, k = count * k, k - 1
    if count > MAX_CHUNKS:
        raise ValueError(f"the enumeration of n={n} cities in chunks of at most {max_free} free cities has {count:.3g} "
                         f"chunks, more than {MAX_CHUNKS} (MAX_CHUNKS): use fewer cities or a larger max_free")
    if symmetric:
        chunks = [([a], b) for a in range(1, n) for b in range(a + 1, n)]
        k = m - 2
    else:
        chunks = [([], -1)]
        k = m
    while k > max_free:
        new = []
        for pre, last in chunks:
            used = set(pre) | {last}
            new += [(pre + [c], last) for c in range(1, n) if c not in used]
        chunks = new
        k -= 1
    f = len(chunks[0][0])
    prefix = np.zeros((len(chunks), max(f, 1)), dtype=np.uint8)
    for i, (pre, _) in enumerate(chunks):
        prefix[i, :f] = pre
    last = np.array([b for _, b in chunks], dtype=np.int32)
    return Plan(n=n, symmetric=symmetric, f=f, k=k, prefix=prefix, last=last)


def unrank(r: int, items: list) -> list:
    """The permutation of ``items`` with lexicographic rank ``r`` (factorial number system).

    ``items`` must be sorted; rank 0 is ``items`` itself, rank len(items)!-1 its reverse.
    """
    items = list(items)
    k = len(items)
    if not 0 <= r < math.factorial(k):
        raise ValueError(f"rank {r} outside 0..{math.factorial(k) - 1}")
    out = []
    for i in range(k, 0, -1):
        d, r = divmod(r, math.factorial(i - 1))
        out.append(items.pop(d))
    return out


def rank(perm: list) -> int:
    """Lexicographic rank of a permutation among the permutations of its sorted items."""
    rest = sorted(perm)
    r = 0
    for i, x in enumerate(perm):
        d = rest.index(x)
        r += d * math.factorial(len(perm) - 1 - i)
        rest.pop(d)
    return r


def count_tours(n: int, symmetric: bool) -> int:
    """Orders a brute force evaluates for n cities: (n-1)!, halved when symmetric (n >= 4)."""
    if n < 2:
        return 1
    m = n - 1
    return math.factorial(m) // (2 if symmetric and m >= 3 else 1)
