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

import math
import pathlib

import numpy as np

from .. import guards, textfile
from .problem import dense_data

__all__ = [
    "MISSING_INT32", "report_instance", "uniform_instance", "geom_instance",
    "write_instance", "read_instance", "read_batch_config", "generate_batch", "instance_bytes",
    "check_report_instance", "check_uniform_instance", "check_geom_instance",
]

#: how a missing edge is stored in the binary file
MISSING_INT32 = np.iinfo(np.int32).min
#: the report's experiments draw benefits in [1, 10000]
DEFAULT_LIMIT = 10000
_HEADER = np.dtype("<i4")


def _integer(value, name: str) -> int:
    """``value`` as an int (ints, numpy ints, whole finite floats); ValueError naming it otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float, np.floating)) or (
            isinstance(value, (float, np.floating)) and not (math.isfinite(value) and value == int(value))):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


def _check_shape(m, n):
    m, n = _integer(m, "m"), _integer(n, "n")
    if m < 1 or n < 1:
        raise ValueError(f"m and n must be positive integers, got m={textfile.quote(m)}, n={textfile.quote(n)}")
    if m > n:
        raise ValueError(f"m={textfile.quote(m)} persons > n={textfile.quote(n)} objects: no assignment of every "
                         "person exists")
    return m, n


def instance_bytes(kind: str, m: int, n: int, density: float = 1.0) -> int:
    """Peak host memory in bytes of a generator's arrays for an ``m x n`` instance.

    ``report``: the permutation (int64, ``n``), the int32 benefits, and below density 1 the
    presence mask (bool), its negation and the float64 result; ``uniform``: the int32
    benefits; ``geom``: the points (float64), the ``(m, n, 2)`` coordinate differences and
    their squares (float64), then the distances.
    """
    mn = m * n
    if kind == "report":
        return 8 * n + 4 * mn + (0 if density >= 1 else (1 + 1 + 8) * mn)
    if kind == "uniform":
        return 4 * mn
    if kind == "geom":
        return 16 * (m + n) + 32 * mn
    raise ValueError(f"unknown generator {kind!r}")


def _guard(kind, m, n, density, force, where=""):
    guards.memory(instance_bytes(kind, m, n, density),
                  f"{where}the {kind} generator on a {textfile.quote(m)} x {textfile.quote(n)} instance",
                  force, where="host", hint="use a smaller instance")


def check_report_instance(m: int, n: int | None = None, density: float = 1.0, limit: int = DEFAULT_LIMIT,
                          force: bool = False) -> tuple[int, int, int]:
    """The refusals of :func:`report_instance` with these parameters, without drawing
    anything: ValueError for a bad parameter or arrays too large for the host's memory
    (``force=True`` insists). Returns ``(m, n, limit)`` as ints."""
    m, n = _check_shape(m, m if n is None else n)
    if not guards.is_real(density) or not 0 < density <= 1:      # a bool is no density
        raise ValueError(f"density must be a number in (0, 1], got {textfile.quote(density)}")
    limit = _integer(limit, "limit")
    if limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    if limit > np.iinfo(np.int32).max - 1:
        raise ValueError(f"limit must be below 2**31 - 1, got {textfile.quote(limit)}")
    _guard("report", m, n, density, force)
    return m, n, limit


def report_instance(m: int, n: int | None = None, density: float = 1.0, seed=0,
                    limit: int = DEFAULT_LIMIT, force: bool = False) -> np.ndarray:
    """The report's generator: a random permutation first, then fill to a density.

    Person ``i`` first gets an edge to object ``perm[i]`` of a random permutation, so a
    full assignment always exists; every other entry is then present with probability
    ``density``.  Benefits are integers drawn uniformly in ``[1, limit]``.

    Parameters: ``m`` persons, ``n`` objects (default ``m``, must be ``>= m``),
    ``density`` in (0, 1], ``seed`` (None, a non-negative int or a ``numpy.random.Generator``:
    :func:`gpualgo.guards.rng`), ``limit >= 1``.

    Returns an ``int32`` array when ``density == 1``, else ``float64`` with ``-inf``
    for the missing edges.  Raises ValueError for bad parameters, and, before anything is
    drawn, for an instance whose arrays (:func:`instance_bytes`) would not fit in the host's
    memory (:func:`gpualgo.guards.memory`; ``force=True`` insists).
    """
    m, n, limit = check_report_instance(m, n, density, limit, force)
    rng = guards.rng(seed)
    perm = rng.permutation(n)[:m]
    values = rng.integers(1, int(limit) + 1, size=(m, n), dtype=np.int32)
    if density >= 1:
        return values
    present = rng.random((m, n)) < density
    present[np.arange(m), perm] = True
    out = values.astype(np.float64)
    out[~present] = -np.inf
    return out


def check_uniform_instance(m: int, n: int | None = None, low: int = 1, high: int = 10000,
                           force: bool = False) -> tuple[int, int, int, int]:
    """The refusals of :func:`uniform_instance` with these parameters, without drawing
    anything (``force=True`` insists on the memory). Returns ``(m, n, low, high)`` as ints."""
    m, n = _check_shape(m, m if n is None else n)
    low, high = _integer(low, "low"), _integer(high, "high")
    if high < low:
        raise ValueError(f"empty range [{low}, {high}]")
    if low < -(2**31) + 1 or high > 2**31 - 1:
        raise ValueError(f"[{textfile.quote(low)}, {textfile.quote(high)}] does not fit int32")
    _guard("uniform", m, n, 1.0, force)
    return m, n, low, high


def uniform_instance(m: int, n: int | None = None, low: int = 1, high: int = 10000, seed=0,
                     force: bool = False) -> np.ndarray:
    """Dense integer benefits drawn uniformly in ``[low, high]`` (both included), int32.
    ValueError for bad parameters or, before drawing, an instance too large for the host's
    memory (``force=True`` insists)."""
    m, n, low, high = check_uniform_instance(m, n, low, high, force)
    return guards.rng(seed).integers(low, high + 1, size=(m, n), dtype=np.int32)


def check_geom_instance(m: int, n: int | None = None, side: float = 1000.0, scale: float = 1.0,
                        force: bool = False) -> tuple[int, int]:
    """The refusals of :func:`geom_instance` with these parameters, without drawing
    anything (``force=True`` insists on the memory). Returns ``(m, n)`` as ints."""
    m, n = _check_shape(m, m if n is None else n)
    for name, value in (("side", side), ("scale", scale)):     # a bool is no length
        if not guards.is_real(value) or not 0 < value < math.inf:
            raise ValueError(f"{name} must be a positive finite number, got {textfile.quote(value)}")
    if not float(side) * float(scale) * math.sqrt(2) < 2.0**62:
        raise ValueError(f"side={side!r} times scale={scale!r} gives distances up to "
                         f"{float(side) * float(scale) * math.sqrt(2):.3g}, beyond 2**62 (int64 ends at 2**63)")
    _guard("geom", m, n, 1.0, force)
    return m, n


def geom_instance(m: int, n: int | None = None, side: float = 1000.0, scale: float = 1.0, seed=0,
                  force: bool = False) -> np.ndarray:
    """GEOM instances: persons and objects are random points in ``[0, side]^2``.

    The benefit of person ``i`` for object ``j`` is their Euclidean distance times
    ``scale``, rounded to the nearest integer (int64), as in the DGS literature.
    ValueError for a non-positive or non-finite ``side`` or ``scale``, for a ``side * scale``
    whose distances (up to ``side * scale * sqrt 2``) would not fit int64, and, before
    drawing, for an instance too large for the host's memory (``force=True`` insists).
    """
    m, n = check_geom_instance(m, n, side, scale, force)
    rng = guards.rng(seed)
    p = rng.uniform(0.0, side, size=(m, 2))
    q = rng.uniform(0.0, side, size=(n, 2))
    d = np.sqrt(((p[:, None, :] - q[None, :, :]) ** 2).sum(axis=2))
    return np.rint(d * scale).astype(np.int64)


def write_instance(path, B) -> pathlib.Path:
    """Write ``B`` in the binary format of the module docstring; returns the path.

    ``B`` must hold integers (``-inf`` for missing edges) within int32, with
    ``INT32_MIN`` reserved for the missing edge; a masked array with masked entries and a
    sparse matrix are refused, as :func:`~.problem.dense_data` says why.
    """
    B = np.asarray(dense_data(B))
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
    # compared as Python numbers: in float32, lo and hi round to -2**31 and 2**31, which would pass
    if finite.size and (float(finite.min()) < lo or float(finite.max()) > hi):
        raise ValueError(f"benefits must lie in [{lo}, {hi}] to fit int32")
    data = np.where(missing, MISSING_INT32, finite).astype("<i4")
    path = pathlib.Path(path)
    with open(path, "wb") as f:
        f.write(np.array(B.shape, dtype=_HEADER).tobytes())
        f.write(data.tobytes())
    return path


def read_instance(path, force: bool = False) -> np.ndarray:
    """Read a binary instance; returns ``int32`` (no missing edge) or ``float64`` with ``-inf``.

    Raises ValueError naming the file for a truncated or corrupt file (too short for
    the header, non-positive sizes, or a size other than ``8 + 4*m*n`` bytes), all found
    from the header and the file's size before the benefits are read, and for an instance
    whose arrays would not fit in the host's memory (``force=True`` insists), and for a
    directory or a missing file.
    """
    path = pathlib.Path(path)
    textfile.check_file(path, "binary instance file")
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise ValueError(f"{path}: {len(head)} bytes, too short for the 8-byte header (m, n)")
        m, n = (int(v) for v in np.frombuffer(head, dtype=_HEADER))
        if m < 1 or n < 1:
            raise ValueError(f"{path}: corrupt header, m={m}, n={n}")
        expected = 8 + 4 * m * n
        if size != expected:
            raise ValueError(f"{path}: header says m={m}, n={n}, so {expected} bytes, but the file has {size}"
                             + (" (truncated)" if size < expected else " (trailing data)"))
        # the benefits (int32) and the mask of missing edges; float64 more if some are missing
        guards.memory(5 * m * n, f"reading {path} ({m} x {n})", force, where="host")
        data = np.fromfile(fh, dtype=_HEADER, count=m * n)
    if data.size != m * n:  # the file changed under us
        raise ValueError(f"{path}: truncated while reading ({4 * data.size} of {4 * m * n} bytes)")
    data = data.reshape(m, n)
    missing = data == MISSING_INT32
    if missing.any():
        guards.memory(8 * m * n, f"the float64 form of {path} ({m} x {n}, with missing edges)", force,
                      where="host")
        out = data.astype(np.float64)
        out[missing] = -np.inf
        return out
    return data.astype(np.int32, copy=False)


def read_batch_config(path, force: bool = False):
    """Parse a batch config file: returns ``(seed, limit, [(m, n, density), ...])``.

    Raises ValueError worded ``"{path}: line {N}: ..."`` for the first bad line, including
    an instance whose generation would not fit in the host's memory (``force=True``
    insists), and for bytes that are not UTF-8 text; and for a directory or a missing file.
    Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (:mod:`gpualgo.textfile`); a leading
    byte-order mark is skipped.
    """
    path = pathlib.Path(path)
    seed = limit = None
    specs = []
    for lineno, line in enumerate(textfile.lines(textfile.read_text(path, "batch config file")), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        try:
            if seed is None:
                if len(parts) not in (1, 2):
                    raise ValueError("expected 'SEED [LIMIT]'")
                seed = textfile.integer(parts[0])
                limit = textfile.integer(parts[1]) if len(parts) == 2 else DEFAULT_LIMIT
                if seed < 0 or limit < 1:
                    raise ValueError("SEED must be >= 0 and LIMIT >= 1")
                if limit > np.iinfo(np.int32).max - 1:
                    raise ValueError(f"LIMIT must be below 2**31 - 1, got {limit}")
                continue
            if len(parts) != 3:
                raise ValueError("expected 'm n density'")
            m, n, d = textfile.integer(parts[0]), textfile.integer(parts[1]), textfile.decimal(parts[2])
            _check_shape(m, n)
            if not (0 < d <= 1):
                raise ValueError(f"density {d} not in (0, 1]")
            _guard("report", m, n, d, force)
            specs.append((m, n, d))
        except ValueError as exc:
            raise textfile.line_error(path, lineno, f"{exc} (line: {line.strip()[:80]!r})") from None
    if seed is None:
        raise ValueError(f"{path}: empty config, expected a first line 'SEED [LIMIT]'")
    return seed, limit, specs


def generate_batch(config, out_dir, force: bool = False) -> list[pathlib.Path]:
    """Generate every instance of a batch config file into ``out_dir``.

    One ``numpy`` generator seeded with SEED draws the instances in file order, so a
    config file always gives the same instances.  Files are named
    ``inst_<k>_<m>x<n>_d<density>.bin``.  Returns the paths written.  Every line is checked
    (:func:`read_batch_config`, memory included: ``force=True`` insists) before anything is
    generated.
    """
    seed, limit, specs = read_batch_config(config, force)
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    paths = []
    for k, (m, n, d) in enumerate(specs):
        B = report_instance(m, n, d, seed=rng, limit=limit, force=force)
        paths.append(write_instance(out / f"inst_{k:03d}_{m}x{n}_d{d:g}.bin", B))
    return paths
