"""TSP instances: the :class:`TSPInstance` container, input validation and random generators.

Distances are integers (``int64``). A missing edge (a road that does not exist, as in the
random graphs of the source report) is stored as :data:`NO_EDGE` (``-1``); a tour that uses
one is infeasible. The diagonal is ignored and stored as 0.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace

import numpy as np

from .. import guards, textfile

#: Sentinel stored in :attr:`TSPInstance.dist` for a missing edge.
NO_EDGE = -1

#: Largest accepted distance. Tour lengths of up to 64 cities, and the solvers' internal
#: "missing edge" weight (larger than any feasible tour), must fit in int64.
MAX_DISTANCE = 2**40

#: bytes per matrix cell that :func:`validate_matrix` holds at its peak besides its input:
#: the int64 copy (8), the off-diagonal mask and up to four boolean masks of the checks (5),
#: for float input also the off-diagonal values and the cleaned floats (16)
VALIDATE_BYTES_PER_CELL = 29


def guard_matrix(n: int, bytes_per_cell: float, what: str, force: bool = False, extra: int = 0) -> None:
    """Refuse (ValueError with the estimate, unless ``force``), before anything is allocated,
    ``what`` on n cities when its ``bytes_per_cell`` * n^2 bytes (its (n, n) arrays at their
    peak, counted where it is called) plus ``extra`` would not fit in host memory (nothing
    below :data:`gpualgo.guards.ALWAYS_FITS` is refused)."""
    need = bytes_per_cell * n * n + extra
    guards.memory(need, f"{what} on n={textfile.quote(n)} cities (n x n matrices)", force, where="host",
                  floor=guards.ALWAYS_FITS)


@dataclass
class TSPInstance:
    """A travelling-salesman instance.

    Attributes:
        dist: (n, n) int64 distances, ``dist[i, j]`` is the cost of going from i to j;
            :data:`NO_EDGE` (-1) marks a missing edge; the diagonal is 0.
        coords: (n, 2) finite float coordinates when the instance has them (for drawing), else
            None.
        name: a short name.
        comment: free text (TSPLIB COMMENT).
        edge_weight_type: how the distances were made ("EXPLICIT", "EUC_2D", "GEO", ...).
    """

    dist: np.ndarray
    coords: np.ndarray | None = None
    name: str = "instance"
    comment: str = ""
    edge_weight_type: str = "EXPLICIT"
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        self.dist = validate_matrix(self.dist)
        if self.coords is not None:
            try:
                self.coords = np.asarray(self.coords, dtype=np.float64)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"coords must be numbers ({exc})") from None
            if self.coords.ndim != 2 or self.coords.shape != (self.n, 2):
                raise ValueError(
                    f"coords must have one row (x, y) per city: shape ({self.n}, 2), got {self.coords.shape}")
            if not np.isfinite(self.coords).all():
                i = int(np.argwhere(~np.isfinite(self.coords))[0][0])
                raise ValueError(f"coords of city {i} are not finite: {self.coords[i].tolist()}")

    @property
    def n(self) -> int:
        """Number of cities."""
        return int(self.dist.shape[0])

    @property
    def missing(self) -> np.ndarray:
        """(n, n) bool mask of the missing edges (never on the diagonal)."""
        return self.dist == NO_EDGE

    @property
    def has_missing(self) -> bool:
        """True when at least one edge is missing."""
        return bool(self.missing.any())

    @property
    def symmetric(self) -> bool:
        """True when ``dist[i, j] == dist[j, i]`` for every pair (missing edges included)."""
        return bool(np.array_equal(self.dist, self.dist.T))

    @property
    def kind(self) -> str:
        """TSPLIB TYPE: "TSP" for symmetric instances, "ATSP" otherwise."""
        return "TSP" if self.symmetric else "ATSP"

    def __repr__(self) -> str:
        extra = ", missing edges" if self.has_missing else ""
        return f"TSPInstance(name={self.name!r}, n={self.n}, {self.kind}{extra})"


def validate_matrix(d) -> np.ndarray:
    """Check a distance matrix and return it as a fresh (n, n) int64 array.

    Accepted: a square 2-D array of integers, or of floats holding integral values, with
    missing edges given as ``np.inf`` (floats) or :data:`NO_EDGE` (-1). The diagonal is
    ignored (set to 0). A bool matrix is refused, as the other problems refuse bool benefits
    and capacities: True and False are not read as distances 1 and 0.

    Raises:
        ValueError: not 2-D or not square, empty, not numeric (bools included), NaN, -inf,
            negative values other than NO_EDGE, non-integral values, or values above
            :data:`MAX_DISTANCE`.
    """
    if np.ma.is_masked(d):
        raise ValueError("the distance matrix has masked entries: every pair of cities needs a distance "
                         "(fill them, with np.inf for a missing edge)")
    try:
        a = np.asarray(d)
    except (ValueError, TypeError) as exc:     # ragged nested lists, odd objects
        raise ValueError(f"distance matrix must be a square (n, n) table of numbers ({exc})") from None
    if a.dtype == object or a.dtype.kind not in "iuf":
        hint = (" (rows of different lengths, or integers beyond int64?)" if a.dtype == object
                else " (a bool matrix is not read as distances 1 and 0: pass d.astype(int) if they are meant)"
                if a.dtype.kind == "b" else "")
        raise ValueError(f"distance matrix must be numeric, got dtype {a.dtype}{hint}")
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"distance matrix must be square (n, n), got shape {a.shape}")
    n = a.shape[0]
    if n == 0:
        raise ValueError("distance matrix is empty (0 cities)")
    off = ~np.eye(n, dtype=bool)
    if a.dtype.kind == "f":
        vals = a[off]
        if np.isnan(vals).any():
            i, j = _first(np.isnan(a) & off)
            raise ValueError(f"distance matrix has NaN at ({i}, {j})")
        if np.isneginf(vals).any():
            i, j = _first(np.isneginf(a) & off)
            raise ValueError(f"distance matrix has -inf at ({i}, {j})")
        miss = np.isposinf(a) & off
        # in float64: a narrower float (float16) would overflow comparing with MAX_DISTANCE
        finite = np.where(miss | ~off, 0.0, a).astype(np.float64, copy=False)
        frac = (finite != np.rint(finite)) & off
        if frac.any():
            i, j = _first(frac)
            raise ValueError(
                f"distances must be integers, got {a[i, j].item()!r} at ({i}, {j}); "
                "scale and round them first, e.g. np.rint(d * 100)")
        big = (np.abs(finite) > MAX_DISTANCE) & off
        if big.any():
            i, j = _first(big)
            raise ValueError(f"distance {a[i, j].item()!r} at ({i}, {j}) exceeds {MAX_DISTANCE}")
        out = finite.astype(np.int64)
        out[miss] = NO_EDGE
        neg = (out < 0) & ~miss & off
    else:
        out = a.astype(np.int64, copy=True)
        if a.dtype.kind == "u":
            big = (a > MAX_DISTANCE) & off
        else:
            big = (out > MAX_DISTANCE) & off
        if big.any():
            i, j = _first(big)
            raise ValueError(f"distance {a[i, j].item()!r} at ({i}, {j}) exceeds {MAX_DISTANCE}")
        neg = (out < 0) & (out != NO_EDGE) & off
    if neg.any():
        i, j = _first(neg)
        marks = ("inf marks a missing edge in a float matrix (NO_EDGE, -1, does in an integer one)"
                 if a.dtype.kind == "f" else f"only {NO_EDGE} (NO_EDGE) marks a missing edge")
        raise ValueError(f"negative distance {a[i, j].item()!r} at ({i}, {j}); {marks}")
    np.fill_diagonal(out, 0)
    return out


def _first(mask):
    i, j = np.argwhere(mask)[0]
    return int(i), int(j)


def as_instance(x, name: str = "matrix", check: bool = False) -> TSPInstance:
    """Return ``x`` if it is a :class:`TSPInstance`, else wrap a distance matrix in one.

    ``check``: return a copy of an instance, validated again (its ``dist`` may have been
    changed, in place or by assignment, since it was made): what a solver works on.
    """
    if isinstance(x, TSPInstance):
        return replace(x) if check else x
    return TSPInstance(dist=x, name=name)


# --------------------------------------------------------------------------- generators

def _nint(x):
    # TSPLIB's nint: (int)(x + 0.5), for the non-negative values that distances are
    return np.floor(np.asarray(x, dtype=np.float64) + 0.5).astype(np.int64)


#: peak bytes per cell of the generators: random_euclidean's coordinate differences and
#: their squares (16 + 16), the sum, root and rounding (24), then the validation;
#: random_asymmetric's weights (8); random_graph's weights, uniforms, mask, the mirrored
#: copies and the result (8 + 8 + 1 + 16 + 1 + 8)
EUCLID_BYTES_PER_CELL = 56
ASYM_BYTES_PER_CELL = 8 + VALIDATE_BYTES_PER_CELL
GRAPH_BYTES_PER_CELL = 42


def check_random_euclidean(n: int, scale: float = 1000.0, force: bool = False) -> int:
    """The refusals of :func:`random_euclidean` with these parameters, without drawing anything:
    ValueError for a bad parameter or matrices too large for host memory (``force=True``
    insists). Returns n as an int."""
    n = _check_n(n)
    if not guards.is_real(scale) or not 0 < scale <= MAX_DISTANCE / 2:
        raise ValueError(f"scale must be a positive number <= {MAX_DISTANCE // 2} (MAX_DISTANCE / 2), "
                         f"got {scale!r}")
    guard_matrix(n, EUCLID_BYTES_PER_CELL, "random_euclidean", force)
    return n


def random_euclidean(n: int, seed=None, scale: float = 1000.0, force: bool = False) -> TSPInstance:
    """Cities uniform in the square [0, scale)^2, distances rounded as TSPLIB EUC_2D.

    Args:
        n: number of cities (>= 1).
        seed: None, a non-negative integer or a numpy Generator (:func:`gpualgo.guards.rng`).
        scale: side of the square; larger scales give finer integer distances (finite,
            at most MAX_DISTANCE / 2 so that every distance fits).
        force: generate even when the matrices would not fit in host memory.

    Returns:
        a symmetric :class:`TSPInstance` with ``coords`` and ``edge_weight_type="EUC_2D"``.
    """
    n = check_random_euclidean(n, scale, force)
    rng = guards.rng(seed)
    # coordinates with 2 decimals, so that a TSPLIB file written from them is exact
    xy = np.round(rng.uniform(0.0, scale, size=(n, 2)), 2)
    diff = xy[:, None, :] - xy[None, :, :]
    d = _nint(np.sqrt((diff ** 2).sum(axis=2)))
    return TSPInstance(dist=d, coords=xy, name=f"euclid{n}_s{seed}",
                       edge_weight_type="EUC_2D",
                       meta=dict(generator="random_euclidean", seed=seed, scale=scale))


def check_random_graph(n: int, density: float = 0.7, low: int = 1, high: int = 100,
                       force: bool = False) -> tuple[int, int, int]:
    """The refusals of :func:`random_graph` with these parameters, without drawing anything
    (``force=True`` insists on the memory). Returns ``(n, low, high)`` as ints."""
    n = _check_n(n)
    if not guards.is_real(density) or not 0.0 <= density <= 1.0:
        raise ValueError(f"density must be in [0, 1], got {density!r}")
    low, high = _weight_range(low, high)
    guard_matrix(n, GRAPH_BYTES_PER_CELL, "random_graph", force)
    return n, low, high


def random_graph(n: int, density: float = 0.7, seed=None, low: int = 1, high: int = 100,
                 symmetric: bool = True, plant_tour: bool = False, force: bool = False) -> TSPInstance:
    """Random graph with integer weights and missing edges, as in the source report.

    Each edge exists with probability ``density`` (for a symmetric graph both directions
    together); weights are uniform integers in [low, high].

    Args:
        n: number of cities.
        density: probability that an edge exists, in [0, 1].
        seed: None, a non-negative integer or a numpy Generator (:func:`gpualgo.guards.rng`).
        low, high: weight range (inclusive integers, 0 <= low <= high <= MAX_DISTANCE).
        symmetric: undirected graph (True) or independent directions (False).
        plant_tour: first add the edges of a random Hamiltonian cycle, so a feasible tour
            always exists.
        force: generate even when the matrices would not fit in host memory.
    """
    n, low, high = check_random_graph(n, density, low, high, force)
    symmetric, plant_tour = guards.flag(symmetric, "symmetric"), guards.flag(plant_tour, "plant_tour")
    rng = guards.rng(seed)
    w = rng.integers(low, high + 1, size=(n, n), dtype=np.int64)
    present = rng.random((n, n)) < density
    if symmetric:
        w = np.triu(w, 1)
        w = w + w.T
        present = np.triu(present, 1)
        present = present | present.T
    if plant_tour and n > 1:
        order = rng.permutation(n)
        a, b = order, np.roll(order, -1)
        present[a, b] = True
        if symmetric:
            present[b, a] = True
    d = np.where(present, w, NO_EDGE)
    return TSPInstance(dist=d, name=f"graph{n}_d{density}_s{seed}",
                       meta=dict(generator="random_graph", seed=seed, density=density,
                                 low=low, high=high, symmetric=symmetric,
                                 plant_tour=plant_tour))


#: the weights of :func:`planted_optimum`: 1 on the planted tour, these on every other road
PLANTED_WEIGHTS = (2, 100)


def check_planted_optimum(n: int, force: bool = False) -> int:
    """The refusals of :func:`planted_optimum` (n >= 3 cities, and those of a complete
    :func:`random_graph` of n cities), without drawing anything. Returns n as an int."""
    n = _check_n(n)
    if n < 3:
        raise ValueError(f"a planted optimum needs n >= 3 cities (a tour of n roads of weight 1), got n={n}")
    check_random_graph(n, density=1.0, low=PLANTED_WEIGHTS[0], high=PLANTED_WEIGHTS[1], force=force)
    return n


def planted_optimum(n: int, seed=None, force: bool = False) -> TSPInstance:
    """n >= 3 cities whose optimum is known by construction: every road weighs 2..100 but those
    of one random tour, which weigh 1, so that tour (length n) is the one optimum. A check for
    an exact solver where no other exact method can run (Held-Karp at n = 30) or a student's
    own solver; ``meta["planted_optimum"]`` is n.

    >>> inst = planted_optimum(8, seed=1)
    >>> from gpualgo.tsp import solve
    >>> solve(inst, variant="held_karp").length == inst.meta["planted_optimum"] == 8
    True
    """
    n = check_planted_optimum(n, force)
    rng = guards.rng(seed)                  # a bad seed refused before anything is drawn
    if isinstance(seed, numbers.Integral):  # an integer seed: the instance it has always drawn, named by it
        inst = random_graph(n, density=1.0, seed=seed, low=PLANTED_WEIGHTS[0], high=PLANTED_WEIGHTS[1], force=force)
        order, named = np.random.default_rng([int(seed), n]).permutation(n), f"_s{int(seed)}"
    else:                                   # None or a numpy Generator: one stream for both draws, no name
        inst = random_graph(n, density=1.0, seed=rng, low=PLANTED_WEIGHTS[0], high=PLANTED_WEIGHTS[1], force=force)
        order, named = rng.permutation(n), ""
    d = inst.dist.copy()
    d[order, np.roll(order, -1)] = 1
    d[np.roll(order, -1), order] = 1
    return TSPInstance(dist=d, name=f"planted{n}{named}", meta=dict(inst.meta, seed=seed, planted_optimum=n))


def check_random_asymmetric(n: int, low: int = 1, high: int = 1000, force: bool = False) -> tuple[int, int, int]:
    """The refusals of :func:`random_asymmetric` with these parameters, without drawing anything
    (``force=True`` insists on the memory). Returns ``(n, low, high)`` as ints."""
    n = _check_n(n)
    low, high = _weight_range(low, high)
    guard_matrix(n, ASYM_BYTES_PER_CELL, "random_asymmetric", force)
    return n, low, high


def random_asymmetric(n: int, seed=None, low: int = 1, high: int = 1000,
                      force: bool = False) -> TSPInstance:
    """Complete directed graph with independent integer weights uniform in [low, high]
    (integers, 0 <= low <= high <= MAX_DISTANCE); ``force``: generate even when the matrix
    would not fit in host memory."""
    n, low, high = check_random_asymmetric(n, low, high, force)
    rng = guards.rng(seed)
    d = rng.integers(low, high + 1, size=(n, n), dtype=np.int64)
    return TSPInstance(dist=d, name=f"asym{n}_s{seed}",
                       meta=dict(generator="random_asymmetric", seed=seed, low=low, high=high))


def _weight_range(low, high) -> tuple[int, int]:
    """``(low, high)`` as Python ints with 0 <= low <= high <= MAX_DISTANCE, else ValueError
    (a bool is no weight)."""
    for name, v in (("low", low), ("high", high)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise ValueError(f"low and high must be integers, got {name}={textfile.quote(v)}")
    low, high = int(low), int(high)
    if not 0 <= low <= high <= MAX_DISTANCE:
        raise ValueError(f"need 0 <= low <= high <= {MAX_DISTANCE} (MAX_DISTANCE), got low={textfile.quote(low)}, "
                         f"high={textfile.quote(high)}")
    return low, high


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {textfile.quote(n)}")
    return int(n)
