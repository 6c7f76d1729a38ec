"""Turn a benefit matrix into the exact integer problem every auction variant solves.

Why integers: an auction with ``eps < 1/m`` is optimal for integer benefits, but the
increments ``g1 - g2 + eps`` then need fractions.  Multiplying every benefit by
``scale`` (``m + 1`` by default) makes ``eps = 1`` a whole number in scaled units while
it is ``1/(m+1) < 1/m`` in the original ones.  Prices are ``int64``; every variant
does the same integer operations, so results are exact and reproducible bit for bit.

The matrix itself stays ``int32`` (``raw``); a kernel computes ``raw * scale`` in a
64-bit register, which halves the memory traffic of the bidding scans.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import guards
from . import checks

__all__ = ["IntProblem", "prepare", "prepare_bytes", "as_matrix", "dense_data", "check_range", "check_eps",
           "check_float_range", "MISSING", "KEY_BITS"]

#: a missing edge in ``raw`` (int32)
MISSING = np.iinfo(np.int32).min
#: bits that hold the person in the 64-bit bid key of the fast kernels
KEY_BITS = 24
#: the largest increment a bid may carry, so that (increment, person) fits 64 bits
MAX_INC = (1 << (64 - KEY_BITS)) - 1
_RAW_LIMIT = (1 << 30)


@dataclass
class IntProblem:
    """A validated problem in integer form: scaled benefit = ``raw * scale``."""
    raw: np.ndarray | None  # (m, n) int32, MISSING for a missing edge (None: made on the device)
    scale: int            # benefits are raw * scale in the auction's units
    eps: int              # final epsilon in scaled units (>= 1)
    cap: int              # the largest bid increment (used when a person has one edge)
    span: int             # max - min of the finite scaled benefits
    exact: bool           # eps/scale < 1/m on integer benefits: the result is optimal
    eps_original: float   # eps in the units of B
    integer: bool         # B held integers (no quantisation)
    m: int                # persons of B (raw may have n - m dummy rows more)
    n: int
    unit: float = 1.0     # one raw unit in B's units (the rounding grid of non-integer B)
    raw_max: int = 0      # the largest |raw| of a finite benefit (raw * scale bounds every scaled one)


def as_matrix(B) -> np.ndarray:
    """``B`` as a 2-d numeric array with at least one row and one column (ValueError otherwise):
    the first check of every assignment solver, auction and DGS alike.

    A numpy masked array is taken only without masked entries (a mask could mean a missing
    edge or a value to ignore: ``B.astype(float).filled(-np.inf)`` says which); a scipy sparse matrix is
    refused (the entries it does not store are zeros to ``toarray()``, not missing edges); an
    object array of Python integers within int64 becomes an int64 array."""
    B = dense_data(B)
    try:
        A = np.asarray(B)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged lists, odd objects
        raise ValueError(f"B is not a matrix: {_why_not_a_matrix(B, exc)}") from None
    if A.dtype == object and A.size and all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
                                            for x in A.flat):
        try:
            A = A.astype(np.int64)
        except OverflowError:
            big = max(A.flat, key=abs)
            raise ValueError(f"B holds integers beyond 64 bits (such as {big}); "
                             "no solver can take them exactly") from None
    if A.dtype == object or A.dtype.kind not in "iuf" or A.dtype == np.float16:
        raise ValueError(f"B must be a numeric (integer or float) matrix, got dtype {A.dtype}")
    if A.ndim != 2:
        raise ValueError(f"B must be 2-D (persons x objects), got shape {A.shape}")
    m, n = A.shape
    if m < 1 or n < 1:
        raise ValueError(f"B is empty, shape {A.shape}")
    if m > n:
        raise ValueError(f"B has m={m} persons > n={n} objects: no assignment of every person exists "
                         "(transpose it, or add objects)")
    return A


def dense_data(B):
    """``B`` itself, or the data of a masked array without masked entries; ValueError for a
    masked entry or a scipy sparse matrix, whose meaning numpy would drop (a masked benefit
    read as a benefit, a sparse matrix's absent entries as zeros) where a missing edge is ``-inf``."""
    if np.ma.isMaskedArray(B):
        masked = int(np.ma.count_masked(B))
        if masked:
            fill = "B.filled(-np.inf)" if np.dtype(B.dtype).kind == "f" else "B.astype(float).filled(-np.inf)"
            raise ValueError(f"B is a masked array with {masked} masked entr{'ies' if masked > 1 else 'y'}: pass "
                             f"{fill} to make them missing edges, or B.filled(value) to give them a benefit")
        return np.ma.getdata(B)
    if type(B).__module__.startswith("scipy.sparse") and hasattr(B, "toarray"):
        raise ValueError(f"B is a sparse matrix ({type(B).__name__}), whose absent entries would be benefits of 0: "
                         "pass a dense array (B.toarray()), with -inf where an edge is missing")
    return B


def _why_not_a_matrix(B, exc) -> str:
    """Say why numpy could not make an array of ``B``: rows of different lengths, mostly."""
    try:
        lengths = sorted({len(row) for row in B})
    except TypeError:
        lengths = None
    if lengths is not None and len(lengths) > 1:
        return f"rows of different lengths ({', '.join(map(str, lengths[:5]))}{', ...' if len(lengths) > 5 else ''})"
    if "inhomogeneous" in str(exc):
        return "rows of different lengths or nesting depths"
    return str(exc)


def check_range(big: float, limit: float, why: str, where: str = "") -> None:
    """The representability rule of both algorithms: every finite benefit must satisfy
    ``|b| < limit`` (``big`` is the largest ``|b|``; ``limit`` is the bound of the algorithm's
    arithmetic, ``why`` says which). ValueError stating the value and the bound otherwise.

    The auction calls it with ``2**30`` on integer benefits (int32 raw values times the
    scale in int64 prices); DGS with ``2**50`` on integer dtypes (exact float64 sums) and,
    on float matrices, with the bound under which a gain (a sum of four benefits) and the
    objective (a sum of m) stay finite.

    >>> check_range(2.0**63, 2**30, "for exact arithmetic")
    Traceback (most recent call last):
    ...
    ValueError: benefits must satisfy |b| < 2**30 for exact arithmetic, got |b| = 9.22337e+18
    """
    if not big < limit:
        bound = f"2**{int(limit).bit_length() - 1}" if limit == 2 ** (int(limit).bit_length() - 1) else f"{limit:.6g}"
        raise ValueError(f"benefits must satisfy |b| < {bound} {why}, got |b| = {big:.6g}{where}")


def check_float_range(big: float, n: int) -> None:
    """The rule for float benefits, the same in both algorithms: a gain or a bid adds up to
    four benefits and the objective m of them, so ``|b|`` must stay below the largest
    float64 over ``4n`` (:func:`check_range`)."""
    check_range(big, float(np.finfo(np.float64).max) / (4 * n), f"so that sums of up to {4 * n} stay finite")


def prepare_bytes(m: int, n: int, dtype, square: bool = False, host_raw: bool = True,
                  contiguous: bool = True) -> int:
    """Peak host memory in bytes of the arrays :func:`prepare` builds for an ``m x n`` matrix
    of ``dtype``: the int32 matrix the versions read (with ``square`` and ``m < n``, the
    ``n x n`` padded one and the ``m x n`` part it is joined from; none with ``host_raw=False``,
    nor for an int32 ``B`` used as it is, which it is only when ``contiguous``: C-contiguous in
    this machine's byte order, not a transposed, strided or broadcast view), and for a float ``B`` the mask of its missing edges,
    its negation, and the three 8-byte arrays of its values alive at once (its finite part, and
    two of: the rounded values, the quotients by the grid, those as int64)."""
    dtype = np.dtype(dtype)
    persons = n if square else m
    raw = 4 * persons * n + (4 * m * n if persons > m else 0)
    if not host_raw or (dtype == np.int32 and persons == m and contiguous):
        raw = 0
    return raw + ((2 + 3 * 8) * m * n if dtype.kind == "f" else 0)


def prepare(B, eps=None, check_feasibility: bool = True, square: bool = False,
            value_range: tuple[int, int] | None = None, host_raw: bool = True, force: bool = False) -> IntProblem:
    """Validate ``B`` and build its :class:`IntProblem`.

    ``eps=None`` asks for the exact optimum: the benefits must be integers, and the
    final epsilon is ``1/(m+1)`` of a benefit unit.  An explicit ``eps > 0`` gives an
    eps-optimal result (objective within ``m * eps`` of the optimum); for integer ``B``
    the epsilon used is the largest multiple of ``1/(m+1)`` not above ``eps`` (or
    ``1/ceil(1/eps)`` for a tiny eps); non-integer ``B`` are rounded to a grid of
    ``eps / (2(m+1))`` with final epsilon ``eps/2``, which keeps the same bound.

    ``square=True`` pads a rectangular problem with ``n - m`` dummy persons whose
    benefit is the same for every object (eps-scaling needs a square problem: with
    prices kept between phases, a forward auction leaves unassigned objects with
    positive prices, which breaks optimality).  The dummies count as persons in the
    choice of epsilon, so the guarantee on the original problem is unchanged.

    ``value_range``: ``(min, max)`` of an integer ``B`` when the caller has computed it
    already (the dense GPU variants reduce the matrix on the device after uploading
    it, which is faster than two passes on the host); ignored for float ``B``.

    ``host_raw=False``: the caller makes the int32 matrix itself (the dense GPU variants
    convert ``B`` on the device once its range is checked here), so ``raw`` is None and no
    host pass runs over ``B``; only for a square integer ``B``.

    Raises ValueError for: wrong shapes, ``m > n``, NaN or ``+inf``, non-integer
    benefits with ``eps=None``, a bad ``eps``, values too large for exact 64-bit
    arithmetic, (with ``check_feasibility``) instances where no assignment of
    every person exists (a person without edges, or Hall's condition failing), and, before
    anything is allocated, arrays (:func:`prepare_bytes`) that would not fit in the host's
    memory (:func:`gpualgo.guards.memory`; ``force=True`` insists): a wide rectangular ``B``
    padded to ``n x n`` may need far more than ``B`` itself.
    """
    A = as_matrix(B)
    m, n = A.shape
    eps = check_eps(eps)
    padded = f", padded to {n} x {n}" if square and m < n else ""
    contiguous = A.flags.c_contiguous and A.dtype.isnative
    guards.memory(prepare_bytes(m, n, A.dtype, square, host_raw, contiguous), f"the auction's integer form of a {m} x {n} "
                  f"matrix ({A.dtype}{padded})", force, where="host", floor=guards.ALWAYS_FITS,
                  hint="use a smaller matrix" + (" (only eps-scaling pads it)" if padded else ""))
    missing, finite, integer = _finite_part(A, n)
    if check_feasibility and missing is not None and missing.any():
        checks.check_feasible(A)  # a full matrix with m <= n always has an assignment

    persons = n if square else m
    if eps is not None and square:
        eps = eps * m / n  # n persons within n*eps' <= m*eps
        if not eps > 0:     # a subnormal eps that m/n took to zero
            raise ValueError(f"eps is too small: eps*m/n underflows to 0 for m={m}, n={n}")
    if integer:
        lo, hi = ((int(v) for v in value_range) if value_range is not None and missing is None
                  else _value_range(finite, missing))
        check_range(max(abs(lo), abs(hi)), _RAW_LIMIT, "for exact arithmetic", f" (range [{lo}, {hi}])")
        scale, eps_int, eps_original, exact = _integer_grid(eps, persons, lo, hi)
        raw_vals, unit = finite, 1.0
    else:
        raw_vals, lo, hi, scale, eps_int, unit, eps_original = _float_grid(eps, persons, finite, missing)
        exact = False
    if host_raw:
        raw = _raw_matrix(raw_vals, missing, square, m, n, lo)
    elif missing is None and m == n:     # an integer dtype: nothing to mark, nothing to pad
        raw = None
    else:
        raise ValueError(f"host_raw=False needs a square integer matrix, got {m} x {n} of dtype {A.dtype}")
    span = (hi - lo) * scale
    # A bid increment is g1 - g2 + eps; capping it keeps eps-complementary slackness
    # (any increment in [eps, g1 - g2 + eps] does) and bounds the prices.
    cap = 2 * (span + eps_int)
    if cap > MAX_INC or (n + 1) * cap * 4 >= (1 << 62):
        raise ValueError(f"benefit range {hi - lo} with scale {scale} is too large for exact 64-bit prices "
                         f"(bid increments up to {cap} > {MAX_INC}); use a smaller range or a larger eps"
                         + ("; for integer benefits eps=None already gives the exact optimum"
                            if integer and eps is not None else ""))
    return IntProblem(raw=raw, scale=int(scale), eps=int(eps_int), cap=int(cap), span=int(span),
                      exact=bool(integer and exact), eps_original=float(eps_original), integer=integer,
                      m=m, n=n, unit=float(unit), raw_max=max(abs(int(lo)), abs(int(hi))))


def check_eps(eps):
    """``eps`` as a positive finite float, or None (the exact optimum); ValueError otherwise. Every
    assignment solve checks it, DGS too, which does not use it."""
    if eps is None:
        return None
    if isinstance(eps, (bool, np.bool_, str, bytes)):  # eps=True is no epsilon, "0.1" no number
        raise ValueError(f"eps must be a positive number or None, got {eps!r}")
    try:
        eps = float(eps)
    except OverflowError:  # an int beyond float range
        raise ValueError(f"eps must be a positive finite number or None, got one with {len(str(eps))} digits") from None
    except (TypeError, ValueError):
        raise ValueError(f"eps must be a positive number or None, got {eps!r}") from None
    if not (np.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be a positive finite number or None, got {eps!r}")
    return eps


def _finite_part(A, n: int):
    """``(missing, finite, integer)``: the mask of missing edges (None for an integer matrix),
    the matrix with them set to 0, and whether every benefit is an integer. Refuses NaN,
    ``+inf`` and float benefits too large for the sums (:func:`check_float_range`)."""
    if A.dtype.kind != "f":
        return None, A, True
    if np.isnan(A).any():
        i, j = (int(v) for v in np.argwhere(np.isnan(A))[0])
        raise ValueError(f"B contains NaN (first at person {i}, object {j})")
    if np.isposinf(A).any():
        i, j = (int(v) for v in np.argwhere(np.isposinf(A))[0])
        raise ValueError(f"B contains +inf (first at person {i}, object {j}); missing edges are -inf")
    missing = np.isneginf(A)
    finite = np.where(missing, 0.0, A)
    check_float_range(float(np.abs(finite).max()), n)
    return missing, finite, bool(np.array_equal(finite, np.rint(finite)))


def _value_range(finite, missing) -> tuple[int, int]:
    """The smallest and largest present benefit of an integer-valued matrix."""
    vals = finite if missing is None else finite[~missing]
    return int(vals.min()), int(vals.max())


def _integer_grid(eps, persons: int, lo: int, hi: int):
    """``(scale, eps_int, eps_original, exact)`` for integer benefits: the benefits are
    multiplied by ``scale`` and the auction's epsilon is ``eps_int`` units of the scaled
    grid (``eps=None``: ``1/(persons+1)`` of a benefit unit, the exact optimum)."""
    scale, eps_int = persons + 1, 1
    if eps is not None:
        if 1.0 / eps > _RAW_LIMIT:  # a grid finer than 64-bit prices hold
            raise ValueError(f"eps={eps!r} is too small: the auction's grid of eps/(m+1) would not fit "
                             "64-bit prices; use eps >= 2**-30")
        # above the benefit range every eps gives the same guarantee as eps = range + 1, and
        # an eps beyond 2**40 units would overflow the bid increments
        eps_int = int(np.floor(min(eps, float(hi - lo + 1)) * (persons + 1) + 1e-9))
        if eps_int < 1:  # eps below 1/(m+1): a finer grid
            scale = int(np.ceil(1.0 / eps - 1e-12))
            eps_int = 1
    eps_original = eps_int / scale
    return scale, eps_int, eps_original, eps_original * persons < 1


def _float_grid(eps, persons: int, finite, missing):
    """Non-integer benefits rounded to a grid of ``eps / (2(persons+1))``: ``(raw_vals, lo,
    hi, scale, eps_int, unit, eps_original)``, the final epsilon ``eps/2``."""
    if eps is None:
        raise ValueError("eps=None asks for the exact optimum, which needs integer benefits; "
                         "B holds non-integer values: pass eps > 0, or round B")
    grid = eps / (2 * (persons + 1))
    # in float64 at least: float32 quotients near 2**30 lie 64 grid steps apart, so rounding
    # them would move a benefit by up to 32 steps, not half a step, beyond the m*eps guarantee
    wide = np.promote_types(finite.dtype, np.float64)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # inf or NaN quotients: refused below
        raw_f = np.rint(finite.astype(wide, copy=False) / grid)
    vals = raw_f[~missing]
    if vals.size and not np.abs(vals).max() < _RAW_LIMIT:
        raise ValueError(f"B / (eps/(2(m+1))) exceeds 2**30: eps={eps} is too small for these benefits")
    return raw_f.astype(np.int64), int(vals.min()), int(vals.max()), 1, persons + 1, grid, eps / 2


def _raw_matrix(raw_vals, missing, square: bool, m: int, n: int, lo: int):
    """The int32 matrix the versions read: missing edges as ``MISSING``, and with
    ``square`` the ``n - m`` dummy persons (the same benefit ``lo`` for every object)."""
    if missing is not None:
        raw = np.asarray(raw_vals).astype(np.int32)  # a fresh array: safe to write into
        raw[missing] = MISSING
    else:  # int32 input is used as it is (never written to), which saves a copy
        raw = np.ascontiguousarray(raw_vals, dtype=np.int32)
    if square and m < n:
        raw = np.concatenate([raw, np.full((n - m, n), lo, dtype=np.int32)])
    return raw

