"""TSPLIB files: a reader and a writer for TSP and ATSP instances.

Supported (as defined in Reinelt's TSPLIB 95 description):

- TYPE: TSP, ATSP.
- EDGE_WEIGHT_TYPE EXPLICIT with EDGE_WEIGHT_FORMAT FULL_MATRIX, UPPER_ROW, LOWER_ROW,
  UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, LOWER_COL, UPPER_DIAG_COL, LOWER_DIAG_COL
  (the triangular formats describe symmetric matrices).
- Coordinates (NODE_COORD_SECTION) with EUC_2D, CEIL_2D, ATT, GEO, and also MAN_2D,
  MAX_2D, EUC_3D, MAN_3D, MAX_3D. Distances are computed exactly as TSPLIB defines them:
  ``nint(x) = (int)(x + 0.5)``; ATT is pseudo-Euclidean, ``r = sqrt((dx^2 + dy^2) / 10)``
  rounded up when ``nint(r) < r``; GEO reads ``DDD.MM`` as degrees and minutes
  (``deg = (int) x``, truncation as in TSPLIB's reference code, ``min = x - deg``), with
  ``PI = 3.141592`` and ``RRR = 6378.388``.
- DISPLAY_DATA_SECTION (coordinates for drawing, two per node), EOF; a UTF-8 byte-order mark
  at the start of the file is skipped; lines end at ``\\n``, ``\\r\\n`` or ``\\r``
  (:mod:`gpualgo.textfile`), so a form feed or U+2028 in a COMMENT is part of it.

Errors name the file and the line, ``"{path}: line {N}: ..."`` (also for bytes that are not
UTF-8). A DIMENSION whose matrices would not fit in host memory is refused with the estimate
before any section is read (``read_tsplib(..., force=True)`` insists). TSPLIB has no missing
edges: an instance with missing edges is written with a stand-in weight (``missing=``, an
integer larger than every distance) and read back by passing the same value to
:func:`read_tsplib`.
"""

from __future__ import annotations

import array
import operator
import os
from dataclasses import replace

import numpy as np

from .. import guards, textfile
from .instances import MAX_DISTANCE, NO_EDGE, VALIDATE_BYTES_PER_CELL, TSPInstance, as_instance, guard_matrix

#: coordinates are at most this in absolute value, so that every distance (MAN_3D: three
#: differences of up to twice it) stays within MAX_DISTANCE
MAX_COORD = MAX_DISTANCE / 8
#: the largest ``missing`` stand-in weight :func:`write_tsplib` writes (int64)
MAX_MISSING = 2**63 - 1

FORMATS = ("FULL_MATRIX", "UPPER_ROW", "LOWER_ROW", "UPPER_DIAG_ROW", "LOWER_DIAG_ROW",
           "UPPER_COL", "LOWER_COL", "UPPER_DIAG_COL", "LOWER_DIAG_COL")
COORD_TYPES = ("EUC_2D", "CEIL_2D", "ATT", "GEO", "MAN_2D", "MAX_2D", "EUC_3D", "MAN_3D",
               "MAX_3D")
_SECTIONS = ("NODE_COORD_SECTION", "EDGE_WEIGHT_SECTION", "DISPLAY_DATA_SECTION",
             "FIXED_EDGES_SECTION", "DEPOT_SECTION", "DEMAND_SECTION", "TOUR_SECTION",
             "EDGE_DATA_SECTION")
_KEYS = ("NAME", "TYPE", "COMMENT", "DIMENSION", "CAPACITY", "EDGE_WEIGHT_TYPE",
         "EDGE_WEIGHT_FORMAT", "EDGE_DATA_FORMAT", "NODE_COORD_TYPE", "DISPLAY_DATA_TYPE")
#: the values TSPLIB defines for these keywords (FUNCTION: weights from coordinates)
_VALUES = {"EDGE_WEIGHT_FORMAT": FORMATS + ("FUNCTION",),
           "NODE_COORD_TYPE": ("TWOD_COORDS", "THREED_COORDS", "NO_COORDS"),
           "DISPLAY_DATA_TYPE": ("COORD_DISPLAY", "TWOD_DISPLAY", "NO_DISPLAY")}

PI = 3.141592
RRR = 6378.388


class TSPLIBError(ValueError):
    """A malformed or unsupported TSPLIB file (the message names the line)."""


# ---------------------------------------------------------------------- distances

def _nint(x):
    return np.floor(x + 0.5).astype(np.int64)


def _coord_dims(kind: str) -> int:
    """Coordinates per city that the EDGE_WEIGHT_TYPE ``kind`` takes: 3 for the ``*_3D``
    types, else 2."""
    return 3 if kind.endswith("_3D") else 2


#: peak bytes per cell of :func:`coord_distances` with d coordinates per city: their
#: differences and squares (8 per coordinate each), the sum, root and rounding (24)
def _coord_bytes(dim: int) -> int:
    return 16 * dim + 24


def coord_distances(coords: np.ndarray, kind: str, force: bool = False) -> np.ndarray:
    """(n, n) int64 distances between the rows of ``coords`` as TSPLIB defines ``kind``.

    Raises:
        ValueError: an unsupported ``kind``; ``coords`` not an (n, 2) array of numbers ((n, 3)
            for the 3-D types), a coordinate that is not finite or beyond +-:data:`MAX_COORD`
            (its distances would exceed MAX_DISTANCE); matrices too large for the host memory
            available now (unless ``force``).
    """
    if kind not in COORD_TYPES:
        raise ValueError(f"unsupported EDGE_WEIGHT_TYPE {kind!r}; supported: {COORD_TYPES}")
    dim = _coord_dims(kind)
    try:
        c = np.asarray(coords, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"coordinates must be numbers ({exc})") from None
    if c.ndim != 2 or c.shape[1] != dim:
        raise ValueError(f"{kind} takes {dim} coordinates per city: an (n, {dim}) array, got shape {c.shape}")
    bad = ~(np.abs(c) <= MAX_COORD)              # NaN and inf included
    if bad.any():
        i = int(np.argwhere(bad)[0][0])
        raise ValueError(f"city {i} has coordinates {c[i].tolist()}: each must be a finite number within "
                         f"+-{MAX_COORD:.4g}, so that distances stay within {MAX_DISTANCE} (MAX_DISTANCE)")
    guard_matrix(c.shape[0], _coord_bytes(dim), f"coord_distances ({kind})", force)
    d = _geo_distances(c) if kind == "GEO" else _planar_distances(c, kind)
    d = np.asarray(d, dtype=np.int64)
    np.fill_diagonal(d, 0)
    return d


def _geo_distances(c: np.ndarray) -> np.ndarray:
    """GEO: latitude and longitude as ``DDD.MM`` (degrees, minutes), great-circle distances on
    TSPLIB's idealised sphere, truncated as its reference code does."""
    deg = np.trunc(c)
    rad = PI * (deg + 5.0 * (c - deg) / 3.0) / 180.0
    lat, lon = rad[:, 0], rad[:, 1]
    q1 = np.cos(lon[:, None] - lon[None, :])
    q2 = np.cos(lat[:, None] - lat[None, :])
    q3 = np.cos(lat[:, None] + lat[None, :])
    arg = np.clip(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3), -1.0, 1.0)
    return (RRR * np.arccos(arg) + 1.0).astype(np.int64)


def _planar_distances(c: np.ndarray, kind: str) -> np.ndarray:
    """The Euclidean (EUC, CEIL, ATT), Manhattan (MAN) and maximum (MAX) metrics, in 2-D or
    3-D, rounded as TSPLIB defines each."""
    diff = c[:, None, :] - c[None, :, :]
    if kind in ("EUC_2D", "EUC_3D"):
        return _nint(np.sqrt((diff ** 2).sum(axis=2)))
    if kind == "CEIL_2D":
        return np.ceil(np.sqrt((diff ** 2).sum(axis=2))).astype(np.int64)
    if kind == "ATT":
        r = np.sqrt((diff ** 2).sum(axis=2) / 10.0)
        t = _nint(r)
        return np.where(t < r, t + 1, t)
    if kind in ("MAN_2D", "MAN_3D"):
        return _nint(np.abs(diff).sum(axis=2))
    return _nint(np.abs(diff).max(axis=2))      # MAX_2D, MAX_3D


def _count(fmt: str, n: int) -> int:
    """Number of values of an EDGE_WEIGHT_SECTION in format ``fmt`` on n cities."""
    if fmt == "FULL_MATRIX":
        return n * n
    if fmt not in FORMATS:
        raise ValueError(f"unsupported EDGE_WEIGHT_FORMAT {fmt!r}; supported: {FORMATS}")
    return n * (n + 1) // 2 if "DIAG" in fmt else n * (n - 1) // 2


def _positions(fmt: str, n: int):
    """(rows, cols): int64 arrays of the (row, col) of each value of an EDGE_WEIGHT_SECTION
    in file order."""
    if fmt == "FULL_MATRIX":
        k = np.arange(n * n, dtype=np.int64)
        return k // n, k % n
    _count(fmt, n)                               # an unknown format: ValueError
    diag = 0 if "DIAG" in fmt else 1
    if fmt.endswith("ROW"):                      # row by row
        if fmt.startswith("UPPER"):
            return tuple(x.astype(np.int64) for x in np.triu_indices(n, diag))
        return tuple(x.astype(np.int64) for x in np.tril_indices(n, -diag))
    # column by column: the column is the slow index, so swap a row-major walk of the
    # other triangle (UPPER_COL: i < j ordered by j, then i)
    if fmt.startswith("UPPER"):
        a, b = np.tril_indices(n, -diag)
    else:
        a, b = np.triu_indices(n, diag)
    return b.astype(np.int64), a.astype(np.int64)


#: peak bytes per cell of the (n, n) matrices the reader builds: coordinates: their
#: differences and squares (8 per dimension each), the sum, root and rounding (24), then
#: the validation; explicit weights: the matrix (8) and the validation; per value read
#: also its (row, col), value and line (32)
def _bytes(explicit: bool, n: int, dim: int, count: int) -> int:
    if explicit:
        return (8 + VALIDATE_BYTES_PER_CELL) * n * n + 32 * count
    return max(_coord_bytes(dim), 8 + VALIDATE_BYTES_PER_CELL) * n * n


# -------------------------------------------------------------------------- reader

def read_tsplib(path, missing: int | None = None, force: bool = False) -> TSPInstance:
    """Read a TSPLIB ``.tsp`` / ``.atsp`` file.

    Args:
        path: the file.
        missing: if given (an integer), explicit weights equal to this value become missing
            edges (the convention of :func:`write_tsplib` for instances with missing edges).
        force: read even when the distance matrices of DIMENSION would not fit in the host
            memory available now (refused with the estimate otherwise).

    Returns:
        a :class:`TSPInstance` (``coords`` from NODE_COORD_SECTION or DISPLAY_DATA_SECTION
        when present; for 3-D coordinates the first two).

    Raises:
        TSPLIBError (a ValueError): malformed or unsupported content, bytes that are not
            UTF-8, weights beyond MAX_DISTANCE, a DIMENSION too large for host memory: worded
            ``"{path}: line {N}: ..."``; a directory.
        ValueError: ``missing`` not an integer; :class:`gpualgo.textfile.NoSuchFile` (also a
            FileNotFoundError) for a missing file.
    """
    if isinstance(missing, (bool, np.bool_)):
        raise ValueError(f"missing must be an integer (the stand-in weight of the file), got {missing!r}")
    if missing is not None:
        try:
            missing = operator.index(missing)
        except TypeError:
            raise ValueError(f"missing must be an integer (the stand-in weight of the file), "
                             f"got {missing!r}") from None
    force = guards.insist(force)        # an argument of the call, not a line of the file
    path = os.fspath(path)
    lines = textfile.lines(textfile.read_text(path, "TSPLIB file", TSPLIBError))
    if not any(line.strip() for line in lines):
        raise TSPLIBError(f"{path}: the file is empty (no TSPLIB header)")

    def fail(lineno, msg):
        raise textfile.line_error(path, lineno, msg, TSPLIBError)

    head, head_line, data = _scan(lines, fail, missing, force)
    last = len(lines)
    kind, n, ewt = _problem(head, head_line, fail, last)
    coords, display = data.get("NODE_COORD_SECTION"), data.get("DISPLAY_DATA_SECTION")
    if ewt == "EXPLICIT":
        d = _explicit_distances(data.get("EDGE_WEIGHT_SECTION"), n, kind, head_line, missing, fail, last)
        shown = coords if coords is not None else display
    else:
        if coords is None:
            fail(last, f"EDGE_WEIGHT_TYPE {ewt} but no NODE_COORD_SECTION")
        try:                                     # the memory was guarded as the section began
            d = coord_distances(coords, ewt, force=True)
        except ValueError as exc:                # coordinates read before a 3-D type was named
            fail(head_line["EDGE_WEIGHT_TYPE"], str(exc))
        shown = coords if display is None else display
    np.fill_diagonal(d, 0)
    if shown is not None:
        shown = shown[:, :2]
    try:
        inst = TSPInstance(dist=d, coords=shown, name=head.get("NAME", os.path.splitext(os.path.basename(path))[0]),
                           comment=head.get("COMMENT", ""), edge_weight_type=ewt,
                           meta=dict(source=path, type=kind))
    except ValueError as exc:
        raise TSPLIBError(f"{path}: {exc}") from None
    if kind == "TSP" and not inst.symmetric:
        fail(head_line["TYPE"], "TYPE TSP but the distances are not symmetric (use ATSP)")
    return inst


# ------------------------------------------------------------------ the file's header

def _scan(lines, fail, missing=None, force=False):
    """Read the file up to EOF: the header keywords (``head``, and ``head_line``: the line of
    each) and the data sections, each read as it comes (``{section: data}``)."""
    head: dict = {}
    head_line: dict = {}
    data: dict = {}
    data_line: dict = {}
    i = 0
    while i < len(lines):
        lineno = i + 1
        raw = lines[i].strip()
        i += 1
        if not raw:
            continue
        word = raw.split(":", 1)[0].split()[0].upper() if raw.split(":", 1)[0].split() else ""
        if word == "EOF":
            break
        if word in _SECTIONS:
            if raw.split(":", 1)[0].split()[1:] or raw.partition(":")[2].strip():
                fail(lineno, f"nothing may follow {word} on its line (its data start on the next line), "
                             f"got {textfile.quote(raw)}")
            if word in data:
                fail(lineno, f"{word} given twice (first on line {data_line[word]})")
            data_line[word] = lineno
            data[word], i = _read_section(word, lines, i, head, head_line, fail, lineno, missing, force)
        else:
            _keyword(raw, head, head_line, fail, lineno)
    return head, head_line, data


def _keyword(raw, head, head_line, fail, lineno) -> None:
    """One header line, ``KEY : value`` (or ``KEY value``), into ``head``."""
    key, sep, value = raw.partition(":")
    key = key.strip().upper()
    if not sep:
        parts = raw.split(None, 1)
        key, value = parts[0].upper(), (parts[1] if len(parts) > 1 else "")
    if key not in _KEYS:
        if textfile.is_decimal(key):
            dim = head.get("DIMENSION")
            fail(lineno, f"data outside any section: {textfile.quote(raw)} (more nodes or weights than "
                         f"DIMENSION {dim if dim is not None else '(not given)'} announces?)")
        fail(lineno, f"unknown keyword {textfile.quote(key)}")
    if key == "COMMENT" and "COMMENT" in head:
        head[key] += "\n" + value.strip()      # several COMMENT lines are allowed
    elif key in head:
        fail(lineno, f"{key} given twice (first on line {head_line[key]})")
    else:
        head[key] = value.strip() if key in ("NAME", "COMMENT") else value.strip().upper()
        if key in _VALUES and head[key] not in _VALUES[key]:
            fail(lineno, f"{key} {textfile.quote(head[key])} is not one of TSPLIB's: {', '.join(_VALUES[key])}")
    head_line[key] = lineno


def _problem(head, head_line, fail, last):
    """(TYPE, DIMENSION, EDGE_WEIGHT_TYPE) of a complete header, each checked."""
    kind = head.get("TYPE")
    if kind is None:
        fail(last, "no TYPE given (TSP or ATSP)")
    if kind not in ("TSP", "ATSP"):
        fail(head_line["TYPE"], f"TYPE {kind!r} is not supported (TSP or ATSP)")
    n = _dimension(head, head_line, fail, last)
    ewt = head.get("EDGE_WEIGHT_TYPE")
    if ewt is None:
        fail(last, "no EDGE_WEIGHT_TYPE given")
    if ewt != "EXPLICIT" and ewt not in COORD_TYPES:
        fail(head_line["EDGE_WEIGHT_TYPE"],
             f"EDGE_WEIGHT_TYPE {ewt!r} is not supported; supported: EXPLICIT, {', '.join(COORD_TYPES)}")
    return kind, n, ewt


def _dimension(head, head_line, fail, lineno) -> int:
    if "DIMENSION" not in head:
        fail(lineno, "DIMENSION must be given before the data sections")
    try:
        n = textfile.integer(head["DIMENSION"])
    except ValueError:
        fail(head_line["DIMENSION"], f"DIMENSION {head['DIMENSION']!r} is not an integer")
    if n < 1:
        fail(head_line["DIMENSION"], f"DIMENSION must be positive, got {n}")
    return n


# ---------------------------------------------------------------- the data sections

def _read_section(word, lines, i, head, head_line, fail, lineno, missing=None, force=False):
    """Read the section ``word`` that starts after line ``lineno``: (its data, the index of
    the line after it). EDGE_WEIGHT_SECTION gives (format, positions, values, lines); the
    coordinate sections an (n, 2 or 3) array. Before anything is allocated, refuses a
    DIMENSION whose matrices would not fit in host memory (unless ``force``)."""
    if word not in ("NODE_COORD_SECTION", "EDGE_WEIGHT_SECTION", "DISPLAY_DATA_SECTION"):
        fail(lineno, f"{word} is not supported (only TSP/ATSP distance data is)")
    n = _dimension(head, head_line, fail, lineno)
    explicit = head.get("EDGE_WEIGHT_TYPE") == "EXPLICIT"
    dim = _node_dims(head, head_line, fail)
    fmt = head.get("EDGE_WEIGHT_FORMAT", "FULL_MATRIX" if explicit else None)
    count = _count(fmt, n) if explicit and fmt in FORMATS else 0
    need = _bytes(explicit, n, dim, count)
    try:
        guards.memory(need, f"DIMENSION {n}: building the {n}x{n} distance matrix",
                      force, where="host", hint="read a smaller instance", floor=guards.ALWAYS_FITS)
    except ValueError as exc:
        fail(head_line["DIMENSION"], str(exc))
    if word == "EDGE_WEIGHT_SECTION":
        if not explicit:
            fail(lineno, "EDGE_WEIGHT_SECTION needs EDGE_WEIGHT_TYPE : EXPLICIT")
        if fmt not in FORMATS:
            fail(head_line.get("EDGE_WEIGHT_FORMAT", lineno),
                 f"unsupported EDGE_WEIGHT_FORMAT {fmt!r}; supported: {', '.join(FORMATS)}")
        values, value_lines, i = _read_weights(lines, i, count, fail, word, missing)
        return (fmt, _positions(fmt, n), values, value_lines), i
    # display data is two-dimensional whatever the nodes' coordinates are (TWOD_DISPLAY)
    return _read_coords(lines, i, n, 2 if word == "DISPLAY_DATA_SECTION" else dim, fail, word)


def _node_dims(head, head_line, fail) -> int:
    """Coordinates per node of NODE_COORD_SECTION: those of a coordinate EDGE_WEIGHT_TYPE
    (a NODE_COORD_TYPE that says otherwise fails on its line), else 3 for NODE_COORD_TYPE
    THREED_COORDS and 2 by default."""
    ewt = head.get("EDGE_WEIGHT_TYPE", "")
    nct = head.get("NODE_COORD_TYPE", "")
    given = {"TWOD_COORDS": 2, "THREED_COORDS": 3}.get(nct)
    if ewt not in COORD_TYPES:
        return given or 2
    dim = _coord_dims(ewt)
    if given is not None and given != dim:
        fail(head_line["NODE_COORD_TYPE"], f"NODE_COORD_TYPE {nct} but EDGE_WEIGHT_TYPE {ewt} takes "
                                           f"{dim} coordinates per node")
    return dim


def _explicit_distances(weights, n, kind, head_line, missing, fail, last) -> np.ndarray:
    """The (n, n) matrix of an EDGE_WEIGHT_SECTION (``weights`` from :func:`_read_section`):
    triangular formats mirrored, ``missing`` values as NO_EDGE, negative values refused."""
    if weights is None:
        fail(last, "EDGE_WEIGHT_TYPE EXPLICIT but no EDGE_WEIGHT_SECTION")
    fmt, (rows, cols), values, value_lines = weights
    if kind == "ATSP" and fmt != "FULL_MATRIX":
        fail(head_line["EDGE_WEIGHT_FORMAT"],
             f"ATSP needs FULL_MATRIX, not the symmetric format {fmt}")
    # the missing stand-ins were read as NO_EDGE (their line negated); any other negative
    # value off the diagonal is wrong
    bad = np.flatnonzero((values < 0) & (value_lines > 0) & (rows != cols))
    if bad.size:
        k = bad[0]
        fail(int(value_lines[k]), f"negative distance {int(values[k])} between cities {rows[k] + 1} "
                                  f"and {cols[k] + 1}")
    d = np.zeros((n, n), dtype=np.int64)
    d[rows, cols] = values
    if fmt != "FULL_MATRIX":
        d[cols, rows] = values
    return d


def _number(tok, lineno, fail):
    """A finite number as :func:`gpualgo.textfile.decimal` reads one (no ``1_000``, ``nan``)."""
    try:
        return textfile.decimal(tok)
    except ValueError as exc:
        fail(lineno, str(exc))


def _weight(tok, lineno, fail, missing) -> int | None:
    """One explicit weight: an integer (written as one, or as an integral number) within
    +-MAX_DISTANCE, or None for the ``missing`` stand-in."""
    if textfile.is_integer(tok):
        v = int(tok)
    else:
        if len(tok) > textfile.MAX_DIGITS and tok.lstrip("+-").isascii() and tok.lstrip("+-").isdigit():
            fail(lineno, f"weight {tok[:20]}... ({len(tok)} digits) exceeds {MAX_DISTANCE} (MAX_DISTANCE)")
        x = _number(tok, lineno, fail)
        if x != int(x):
            fail(lineno, f"explicit weights must be integers, got {textfile.quote(tok)}")
        v = int(x)
    if missing is not None and v == missing:
        return None
    if abs(v) > MAX_DISTANCE:
        fail(lineno, f"weight {tok} exceeds {MAX_DISTANCE} (MAX_DISTANCE) in absolute value"
             + ("" if missing is None else f" and is not the missing={missing} stand-in"))
    return v


def _section_line(lines, i, fail, section, got, expected, unit):
    """The next line that is not blank from line index ``i`` on, in a section that has
    ``got`` of its ``expected`` ``unit`` (values, nodes) so far: (its line number, its
    tokens, the index of the line after it). The file's end, EOF or another section there
    fail, naming how many the section has."""
    while True:
        if i >= len(lines):
            fail(len(lines), f"{section} ends after {got} of {expected} {unit}")
        lineno = i + 1
        toks = lines[i].split()
        i += 1
        if not toks:
            continue
        if toks[0].upper() == "EOF" or toks[0].upper() in _SECTIONS:
            fail(lineno, f"{section} has {got} {unit}, {expected} expected")
        return lineno, toks, i


def _read_weights(lines, i, count, fail, section, missing):
    """``count`` weights from line index ``i`` on: (int64 values, NO_EDGE for the ``missing``
    stand-in; int64 line of each, negative for a stand-in; the index of the line after them)."""
    # grown as values come (8 bytes each), so that a short file with a large DIMENSION
    # fails at its end without having allocated the whole section
    values = array.array("q")
    where = array.array("q")
    k = 0
    while k < count:
        lineno, toks, i = _section_line(lines, i, fail, section, k, count, "values")
        if k + len(toks) > count:
            fail(lineno, f"{section} has more than the {count} values expected")
        for tok in toks:
            v = _weight(tok, lineno, fail, missing)
            values.append(NO_EDGE if v is None else v)
            where.append(-lineno if v is None else lineno)
            k += 1
    return np.frombuffer(values, dtype=np.int64), np.frombuffer(where, dtype=np.int64), i


def _read_coords(lines, i, n, dim, fail, section):
    xy = np.full((n, dim), np.nan)
    seen = 0
    while seen < n:
        lineno, toks, i = _section_line(lines, i, fail, section, seen, n, "nodes")
        if len(toks) != dim + 1:
            fail(lineno, f"expected 'node x y{' z' if dim == 3 else ''}', got {textfile.quote(lines[i - 1].strip())}")
        node = _number(toks[0], lineno, fail)
        if node != int(node) or not 1 <= node <= n:
            fail(lineno, f"node number {textfile.quote(toks[0])} outside 1..{n}")
        node = int(node)
        if not np.isnan(xy[node - 1, 0]):
            fail(lineno, f"node {node} appears twice")
        xyz = [_number(t, lineno, fail) for t in toks[1:]]
        if max(abs(x) for x in xyz) > MAX_COORD:
            fail(lineno, f"coordinate beyond +-{MAX_COORD:.4g}: distances would exceed {MAX_DISTANCE} "
                         "(MAX_DISTANCE)")
        xy[node - 1] = xyz
        seen += 1
    return xy, i


# -------------------------------------------------------------------------- writer

def write_tsplib(instance: TSPInstance, path, fmt: str | None = None,
                 missing: int | None = None) -> str:
    """Write ``instance`` as a TSPLIB file; returns the path.

    Args:
        instance: the instance (or a distance matrix). If it has coordinates and a coordinate
            EDGE_WEIGHT_TYPE whose distances match, the file holds the coordinates
            (NODE_COORD_SECTION); otherwise EXPLICIT weights.
        path: destination.
        fmt: force EXPLICIT weights in this EDGE_WEIGHT_FORMAT (triangular formats only
            for symmetric instances). Default: coordinates when possible, else
            FULL_MATRIX.
        missing: weight written for missing edges (required when the instance has them;
            an integer larger than every distance, at most :data:`MAX_MISSING` (int64), so
            that no real edge is written with it; read back with ``read_tsplib(path,
            missing=...)``).

    Raises:
        ValueError: an invalid distance matrix, missing edges without ``missing``, a
            ``missing`` that is not an integer larger than every distance (or beyond int64),
            a triangular format for an asymmetric instance, unknown format.
    """
    inst = as_instance(instance, check=True)     # its dist may have changed since it was made
    kind = inst.kind
    d, missing = _written_distances(inst, missing)
    use_coords = fmt is None and _coords_reproduce(inst)
    fmt = _written_format("FULL_MATRIX" if fmt is None else fmt, kind)
    out = _header(inst, kind, missing)
    if use_coords:
        out += [f"EDGE_WEIGHT_TYPE : {inst.edge_weight_type}", "NODE_COORD_SECTION"]
        out += _coord_lines(inst.coords)
    else:
        out += _explicit_lines(inst, d, fmt)
    out.append("EOF")
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")
    return path


def _written_distances(inst: TSPInstance, missing):
    """(a copy of the distances with the missing edges set to ``missing``, ``missing`` as an
    int); ValueError for missing edges without a ``missing`` that is an integer larger than
    every distance and within int64."""
    d = inst.dist.copy()
    if not inst.has_missing:
        return d, missing
    if missing is None:
        raise ValueError("the instance has missing edges; pass missing=<a weight larger "
                         "than every distance> (TSPLIB has no missing edges)")
    if isinstance(missing, (bool, np.bool_)):
        raise ValueError(f"missing must be an integer larger than every distance, got {missing!r}")
    try:
        missing = operator.index(missing)
    except TypeError:
        raise ValueError(f"missing must be an integer larger than every distance (the file "
                         f"holds integer weights), got {missing!r}") from None
    if missing <= int(d.max()):
        raise ValueError(f"missing={missing} must exceed the largest distance {int(d.max())}")
    if missing > MAX_MISSING:
        raise ValueError(f"missing={missing} is beyond int64 (at most {MAX_MISSING})")
    d[inst.missing] = missing
    return d, missing


def _coords_reproduce(inst: TSPInstance) -> bool:
    """Whether the coordinates, as the file writes them, give back the distances exactly
    (a 2-D coordinate EDGE_WEIGHT_TYPE, no missing edges)."""
    if (inst.coords is None or inst.edge_weight_type not in COORD_TYPES
            or inst.edge_weight_type.endswith("3D") or inst.has_missing):
        return False
    text = np.array([float(_fmt_num(v)) for v in inst.coords.ravel()]).reshape(inst.n, 2)
    try:           # the instance's own matrix is in memory already: no second refusal
        return np.array_equal(coord_distances(text, inst.edge_weight_type, force=True), inst.dist)
    except ValueError:                           # coordinates beyond MAX_COORD: weights instead
        return False


def _written_format(fmt: str, kind: str) -> str:
    """``fmt``, checked: a known EDGE_WEIGHT_FORMAT, FULL_MATRIX for an ATSP."""
    if fmt not in FORMATS:
        raise ValueError(f"unsupported EDGE_WEIGHT_FORMAT {fmt!r}; supported: {FORMATS}")
    if fmt != "FULL_MATRIX" and kind == "ATSP":
        raise ValueError(f"{fmt} describes a symmetric matrix; this instance is asymmetric")
    return fmt


def _header(inst: TSPInstance, kind: str, missing) -> list:
    """NAME and COMMENT (each on one line, the COMMENT naming the ``missing`` stand-in), TYPE
    (``kind``) and DIMENSION."""
    out = [f"NAME : {' '.join(str(inst.name).split())}", f"TYPE : {kind}"]
    comment = inst.comment
    if inst.has_missing:
        comment = (comment + " " if comment else "") + f"(missing edges written as {missing})"
    if comment:
        out.append(f"COMMENT : {' '.join(comment.split())}")
    out.append(f"DIMENSION : {inst.n}")
    return out


def _explicit_lines(inst: TSPInstance, d: np.ndarray, fmt: str) -> list:
    """The EXPLICIT weights ``d`` in ``fmt``, 16 a line, then the coordinates (if any, and if
    :func:`read_tsplib` would take them: within +-MAX_COORD) as display data."""
    out = ["EDGE_WEIGHT_TYPE : EXPLICIT", f"EDGE_WEIGHT_FORMAT : {fmt}"]
    if inst.coords is not None and not np.abs(inst.coords).max() <= MAX_COORD:
        inst = replace(inst, coords=None)
    if inst.coords is not None:
        out.append("DISPLAY_DATA_TYPE : TWOD_DISPLAY")
    out.append("EDGE_WEIGHT_SECTION")
    rows, cols = _positions(fmt, inst.n)
    vals = [str(v) for v in d[rows, cols].tolist()]
    out += [" ".join(vals[s:s + 16]) for s in range(0, len(vals), 16)]
    if inst.coords is not None:
        out += ["DISPLAY_DATA_SECTION"] + _coord_lines(inst.coords)
    return out


def _coord_lines(coords) -> list:
    """``node x y``, one line a city (numbered from 1)."""
    return [f"{i + 1} {_fmt_num(x)} {_fmt_num(y)}" for i, (x, y) in enumerate(coords)]


def _fmt_num(v) -> str:
    return repr(float(v)) if float(v) != int(v) else str(int(v))
