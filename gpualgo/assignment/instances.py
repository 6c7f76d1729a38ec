"""Instances of the assignment problem: generators, the binary file format, batches.

Benefit matrices are ``(m, n)`` arrays, ``m <= n`` (persons x objects), maximised.
A missing edge is ``-inf`` in a float array.  The generators return ``float64`` arrays
when some edges are missing and ``int32`` arrays when the matrix is full, so that the
big dense instances of the benchmarks cost 4 bytes per entry and no conversion (the
auction works on int32 benefits).

Binary instance file (the format of the source report, no magic number)::

    int32 m, int32 n, then m*n int32 benefits, row-major (person by person)

All integers are **little-endian, 4 bytes, signed**.  A missing edge is stored as
``INT32_MIN`` (-2147483648).  The file size must be exactly ``8 + 4*m*n`` bytes; the
reader refuses anything else.

Batch configuration file (the report's batch generator)::

    SEED [LIMIT]        first line: the seed, optionally the largest benefit (default 10000)
    m n density         one line per instance (density in (0, 1])

Blank lines and text after ``#`` are ignored.
"""
from __future__ import annotations

import pathlib

import numpy as np

__all__ = [
    "MISSING_INT32", "report_instance", "uniform_instance", "geom_instance",
    "write_instance", "read_instance", "read_batch_config", "generate_batch",
]

#: how a missing edge is stored in the binary file
MISSING_INT32 = np.iinfo(np.int32).min
#: the report's experiments draw benefits in [1, 10000]
DEFAULT_LIMIT = 10000
_HEADER = np.dtype("<i4")


def _rng(seed):
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check_shape(m, n):
    if int(m) != m or int(n) != n or m < 1 or n < 1:
        raise ValueError(f"m and n must be positive integers, got m={m!r}, n={n!r}")
    if m > n:
        raise ValueError(f"m={m} persons > n={n} objects: no assignment of every person exists")


def report_instance(m: int, n: int | None = None, density: float = 1.0, seed=0,
                    limit: int = DEFAULT_LIMIT) -> np.ndarray:
    """The report's generator: a random permutation first, then fill to a density.

    Person ``i`` first gets an edge to object ``perm[i]`` of a random permutation, so a
    full assignment always exists; every other entry is then present with probability
    ``density``.  Benefits are integers drawn uniformly in ``[1, limit]``.

    Parameters: ``m`` persons, ``n`` objects (default ``m``, must be ``>= m``),
    ``density`` in (0, 1], ``seed`` (int or ``numpy.random.Generator``), ``limit >= 1``.

    Returns an ``int32`` array when ``density == 1``, else ``float64`` with ``-inf``
    for the missing edges.  Raises ValueError for bad parameters.
    """
    n = m if n is None else n
    _check_shape(m, n)
    if not (0 < density <= 1):
        raise ValueError(f"density must be in (0, 1], got {density!r}")
    if int(limit) != limit or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    rng = _rng(seed)
    perm = rng.permutation(n)[:m]
    if limit > np.iinfo(np.int32).max - 1:
        raise ValueError(f"limit must be below 2**31 - 1, got {limit}")
    values = rng.integers(1, int(limit) + 1, size=(m, n), dtype=np.int32)
    if density >= 1:
        return values
    present = rng.random((m, n)) < density
    present[np.arange(m), perm] = True
    out = values.astype(np.float64)
    out[~present] = -np.inf
    return out


def uniform_instance(m: int, n: int | None = None, low: int = 1, high: int = 10000, seed=0) -> np.ndarray:
    """Dense integer benefits drawn uniformly in ``[low, high]`` (both included), int32."""
    n = m if n is None else n
    _check_shape(m, n)
    if high < low:
        raise ValueError(f"empty range [{low}, {high}]")
    if low < -(2**31) + 1 or high > 2**31 - 1:
        raise ValueError(f"[{low}, {high}] does not fit int32")
    return _rng(seed).integers(int(low), int(high) + 1, size=(m, n), dtype=np.int32)


def geom_instance(m: int, n: int | None = None, side: float = 1000.0, scale: float = 1.0, seed=0) -> np.ndarray:
    """GEOM instances: persons and objects are random points in ``[0, side]^2``.

    The benefit of person ``i`` for object ``j`` is their Euclidean distance times
    ``scale``, rounded to the nearest integer (int64), as in the DGS literature.
    """
    n = m if n is None else n
    _check_shape(m, n)
    if side <= 0 or scale <= 0:
        raise ValueError(f"side and scale must be positive, got side={side!r}, scale={scale!r}")
    rng = _rng(seed)
    p = rng.uniform(0.0, side, size=(m, 2))
    q = rng.uniform(0.0, side, size=(n, 2))
    d = np.sqrt(((p[:, None, :] - q[None, :, :]) ** 2).sum(axis=2))
    return np.rint(d * scale).astype(np.int64)


def write_instance(path, B) -> pathlib.Path:
    """Write ``B`` in the binary format of the module docstring; returns the path.

    ``B`` must hold integers (``-inf`` for missing edges) within int32, with
    ``INT32_MIN`` reserved for the missing edge.
    """
    B = np.asarray(B)
    if B.ndim != 2 or B.shape[0] < 1 or B.shape[1] < 1:
        raise ValueError(f"B must be a non-empty 2-D matrix, got shape {B.shape}")
    if B.dtype.kind == "f":
        if np.isnan(B).any() or np.isposinf(B).any():
            raise ValueError("B contains NaN or +inf")
        missing = np.isneginf(B)
        finite = np.where(missing, 0, B)
        if not np.array_equal(finite, np.rint(finite)):
            raise ValueError("the binary format holds integer benefits only")
    elif B.dtype.kind in "iu":
        missing = np.zeros(B.shape, bool)
        finite = B
    else:
        raise ValueError(f"unsupported dtype {B.dtype}")
    lo, hi = MISSING_INT32 + 1, np.iinfo(np.int32).max
    if finite.size and (finite.min() < lo or finite.max() > hi):
        raise ValueError(f"benefits must lie in [{lo}, {hi}] to fit int32")
    data = np.where(missing, MISSING_INT32, finite).astype("<i4")
    path = pathlib.Path(path)
    with open(path, "wb") as f:
        f.write(np.array(B.shape, dtype=_HEADER).tobytes())
        f.write(data.tobytes())
    return path


def read_instance(path) -> np.ndarray:
    """Read a binary instance; returns ``int32`` (no missing edge) or ``float64`` with ``-inf``.

    Raises ValueError naming the file for a truncated or corrupt file (too short for
    the header, non-positive sizes, or a size other than ``8 + 4*m*n`` bytes).
    """
    path = pathlib.Path(path)
    raw = path.read_bytes()
    if len(raw) < 8:
        raise ValueError(f"{path}: {len(raw)} bytes, too short for the 8-byte header (m, n)")
    m, n = (int(v) for v in np.frombuffer(raw[:8], dtype=_HEADER))
    if m < 1 or n < 1:
        raise ValueError(f"{path}: corrupt header, m={m}, n={n}")
    expected = 8 + 4 * m * n
    if len(raw) != expected:
        raise ValueError(f"{path}: header says m={m}, n={n}, so {expected} bytes, but the file has {len(raw)}"
                         + (" (truncated)" if len(raw) < expected else " (trailing data)"))
    data = np.frombuffer(raw[8:], dtype=_HEADER).reshape(m, n)
    missing = data == MISSING_INT32
    if missing.any():
        out = data.astype(np.float64)
        out[missing] = -np.inf
        return out
    return data.astype(np.int32)


def read_batch_config(path):
    """Parse a batch config file: returns ``(seed, limit, [(m, n, density), ...])``.

    Raises ValueError with the file name and line number of the first bad line.
    """
    path = pathlib.Path(path)
    seed = limit = None
    specs = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        try:
            if seed is None:
                if len(parts) not in (1, 2):
                    raise ValueError("expected 'SEED [LIMIT]'")
                seed = int(parts[0])
                limit = int(parts[1]) if len(parts) == 2 else DEFAULT_LIMIT
                if seed < 0 or limit < 1:
                    raise ValueError("SEED must be >= 0 and LIMIT >= 1")
                continue
            if len(parts) != 3:
                raise ValueError("expected 'm n density'")
            m, n, d = int(parts[0]), int(parts[1]), float(parts[2])
            _check_shape(m, n)
            if not (0 < d <= 1):
                raise ValueError(f"density {d} not in (0, 1]")
            specs.append((m, n, d))
        except ValueError as exc:
            raise ValueError(f"{path}:{lineno}: {exc} (line: {line.strip()!r})") from None
    if seed is None:
        raise ValueError(f"{path}: empty config, expected a first line 'SEED [LIMIT]'")
    return seed, limit, specs


def generate_batch(config, out_dir) -> list[pathlib.Path]:
    """Generate every instance of a batch config file into ``out_dir``.

    One ``numpy`` generator seeded with SEED draws the instances in file order, so a
    config file always gives the same instances.  Files are named
    ``inst_<k>_<m>x<n>_d<density>.bin``.  Returns the paths written.
    """
    seed, limit, specs = read_batch_config(config)
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    paths = []
    for k, (m, n, d) in enumerate(specs):
        B = report_instance(m, n, d, seed=rng, limit=limit)
        paths.append(write_instance(out / f"inst_{k:03d}_{m}x{n}_d{d:g}.bin", B))
    return paths
