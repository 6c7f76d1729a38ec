"""Value functions of coalition structure generation: generators, validation, files, bids.

A value function on ``n`` agents is a 1-D float array ``v`` of length ``2**n`` indexed by
bitmask: ``v[mask]`` is the value of the coalition whose members are the set bits of
``mask`` (agent ``i`` is bit ``i``), and ``v[0] == 0`` (the empty coalition).

The generators follow the distributions used to compare CSG algorithms in the literature;
each is seeded, so an instance is reproducible from ``(distribution, n, seed)``.
"""
from __future__ import annotations

import array
import math
import os
import pathlib
import warnings

import numba
import numpy as np

from .. import guards, hostcopy, textfile

__all__ = ["DISTRIBUTIONS", "random_values", "check_random_values", "validate_values", "table_shape", "table_bytes",
           "host_memory_bytes", "generation_bytes", "read_values", "write_values", "from_bids", "popcounts",
           "MAX_AGENTS"]

#: bitmasks are 32-bit words in the kernels, and 2**31 table entries is already 8 GiB of float32
MAX_AGENTS = 31


def popcounts(n: int) -> np.ndarray:
    """Coalition sizes: ``popcounts(n)[mask]`` is the number of agents in ``mask`` (uint8);
    ``n`` in 1..MAX_AGENTS (ValueError otherwise)."""
    return np.bitwise_count(np.arange(1 << _check_n(n), dtype=np.uint32)).astype(np.uint8)


# The generators work in place where they can: the large temporaries, not the result, set
# the largest n a machine can generate (see _PEAK_BYTES).

def _uniform(rng, n, size, dtype):
    v = rng.random(1 << n, dtype=dtype)
    v *= size
    return v


def _normal(rng, n, size, dtype):
    v = rng.normal(10.0, 0.1, 1 << n)
    v *= size
    np.maximum(v, 0.0, out=v)
    return v.astype(dtype, copy=False)


def _ndcs(rng, n, size, dtype):
    s = size.astype(np.float64)
    v = rng.normal(s, np.sqrt(s))
    del s
    return v.astype(dtype, copy=False)


def _modified_uniform(rng, n, size, dtype):
    v = rng.uniform(0.0, 10.0, 1 << n)
    v *= size
    bonus = rng.random(1 << n) < 0.2
    v[bonus] += rng.uniform(0.0, 50.0, int(bonus.sum()))
    del bonus
    return v.astype(dtype, copy=False)


def _agent_based(rng, n, size, dtype):
    power = rng.uniform(0.0, 10.0, n)
    v = np.zeros(1 << n, dtype=np.float64)
    for i in range(n):  # each member brings a random share of its own power
        # the coalitions holding agent i, in increasing mask order: the masks whose bit i is
        # set are the second half of every block of 2**(i+1) consecutive masks
        members = v.reshape(-1, 2, 1 << i)[:, 1, :]
        members += rng.uniform(0.0, 2.0 * power[i], members.shape)
    return v.astype(dtype, copy=False)


#: name -> (generator, one-line description); generators take (rng, n, sizes, dtype)
DISTRIBUTIONS = {
    "uniform": (_uniform, "|C| * U(0, 1)"),
    "normal": (_normal, "max(0, |C| * N(10, 0.1))"),
    "ndcs": (_ndcs, "N(|C|, sqrt|C|): may be negative"),
    "modified_uniform": (_modified_uniform, "|C| * U(0, 10), plus U(0, 50) with probability 0.2"),
    "agent_based": (_agent_based, "each agent i has a power p_i ~ U(0, 10); v(C) = sum over "
                                  "i in C of U(0, 2 p_i)"),
}

#: bytes per coalition a generator holds at its peak, result included, for (float32, float64)
#: results: the coalition sizes (1 byte) and its float64 temporaries; tracemalloc's peaks at
#: n = 20, rounded up
_PEAK_BYTES = {"uniform": (6, 10), "normal": (14, 10), "ndcs": (26, 26), "modified_uniform": (19, 19),
               "agent_based": (14, 14)}


def generation_bytes(n: int, distribution: str = "uniform", dtype=np.float64) -> int:
    """Peak memory in bytes that :func:`random_values` needs to draw ``n`` agents' values."""
    if not isinstance(distribution, str) or distribution not in DISTRIBUTIONS:
        raise ValueError(f"unknown distribution {textfile.quote(distribution)}; known: {sorted(DISTRIBUTIONS)}")
    per = _PEAK_BYTES[distribution][int(_check_dtype(dtype) == np.float64)]
    return (1 << _check_n(n)) * per


def check_random_values(n: int, distribution: str = "uniform", dtype=np.float64,
                        force: bool = False) -> tuple[int, np.dtype]:
    """The refusals of :func:`random_values` with these parameters, without drawing anything:
    ValueError for an unknown distribution or dtype, n outside 1..31, or a peak memory above
    what the host can give (``force=True`` insists). Returns ``(n, dtype)`` checked."""
    if not isinstance(distribution, str) or distribution not in DISTRIBUTIONS:
        raise ValueError(f"unknown distribution {textfile.quote(distribution)}; known: {sorted(DISTRIBUTIONS)}")
    n = _check_n(n)
    dtype = _check_dtype(dtype)
    guards.memory(generation_bytes(n, distribution, dtype),
                  f"drawing a {distribution} value function on n={n} agents as {dtype.name}", force, where="host",
                  hint="float32 needs less" if dtype == np.float64 else "")
    return n, dtype


def random_values(n: int, distribution: str = "uniform", seed=None, dtype=np.float64,
                  force: bool = False) -> np.ndarray:
    """A random value function on ``n`` agents drawn from one of :data:`DISTRIBUTIONS`.

    Args:
        n: number of agents, 1..31.
        distribution: a key of :data:`DISTRIBUTIONS`.
        seed: None, a non-negative integer or a numpy Generator (:func:`gpualgo.guards.rng`).
        dtype: ``float32`` or ``float64`` (float32 halves the memory, so larger n fit). A
            seed gives the same instance in both, rounded to float32, except for ``uniform``,
            which draws float32 numbers directly (a different instance).
        force: generate even when the array would not fit in the memory this machine has
            available now.

    Returns:
        array of length ``2**n`` with ``v[0] == 0``.

    Raises:
        ValueError: an unknown distribution or dtype, n outside 1..31, a bad seed, or a peak memory
            (:func:`generation_bytes`) above what :func:`gpualgo.guards.memory` allows on
            the host, named with the estimate (unless ``force``).
    """
    n, dtype = check_random_values(n, distribution, dtype, force)
    rng = guards.rng(seed)
    size = popcounts(n)
    v = DISTRIBUTIONS[distribution][0](rng, n, size, dtype)
    v = np.ascontiguousarray(v, dtype=dtype)
    v[0] = 0
    return v


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_AGENTS:
        raise ValueError(f"n (agents) must be an integer in 1..{MAX_AGENTS}, got {textfile.quote(n)}")
    return int(n)


def _check_dtype(dtype) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError:           # 'junk', an object that is no type
        raise ValueError(f"dtype must be float32 or float64, got {textfile.quote(dtype)}") from None
    if dt not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dt}")
    return dt


def table_bytes(n: int, dtype=np.float64, tables: int = 2) -> int:
    """Bytes of ``tables`` arrays of ``2**n`` values of ``dtype`` (the DP keeps v and f); ``n``
    a non-negative integer (any size: a refusal's estimate may be of a table beyond MAX_AGENTS)."""
    n = guards.integer(n, "n (agents)", lo=0)
    return tables * (1 << n) * np.dtype(dtype).itemsize


def host_memory_bytes() -> int:
    """Physical memory of this machine in bytes (a large number where it cannot be read).
    The refusals use what is available now instead (:func:`gpualgo.guards.host_bytes`)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def table_shape(values) -> tuple[np.ndarray, int, np.dtype]:
    """What the length and dtype of a value function decide, without a pass over its values:
    ``(array, n, dtype of the DP table)``. ValueError for what :func:`validate_values`
    refuses on these grounds alone (not 1-D, a length that is not a power of two, more than
    :data:`MAX_AGENTS` agents, a dtype other than float32, float64 or integers (bools too), masked
    entries); the array is returned as given (integers and a non-native byte order are
    converted by :func:`validate_values`), so that a size refusal can come before any copy."""
    if np.ma.is_masked(values):
        raise ValueError("values has masked entries: every coalition needs a value "
                         "(fill them, e.g. with values.filled(0))")
    try:
        v = np.asarray(values)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged lists, odd objects
        why = "rows of different lengths" if "inhomogeneous" in str(exc) else str(exc)
        raise ValueError(f"values is not a 1-D array of numbers: {why}") from None
    if v.ndim != 1:
        raise ValueError(f"values must be a 1-D array indexed by bitmask, got shape {v.shape}")
    if v.dtype.kind == "b":     # as the other problems: True and False are no values
        raise ValueError("values must be numbers, got dtype bool (a bool table is not read as values 1 and 0: "
                         "pass values.astype(float) if they are meant)")
    if v.dtype.kind in "iu":
        dtype = np.dtype(np.float64)
    elif v.dtype.kind == "f" and v.dtype.newbyteorder("=") in (np.float32, np.float64):
        dtype = v.dtype.newbyteorder("=")      # a big-endian array, in this machine's order
    elif v.dtype == object and v.size and all(isinstance(x, int) and not isinstance(x, bool) for x in v.flat):
        raise ValueError("values holds integers beyond 64 bits (such as "
                         f"{textfile.quote(max(v.flat, key=abs), 40)}): no DP table can hold them exactly")
    else:
        raise ValueError(f"values must be float32 or float64 (or integers), got {v.dtype}")
    length = v.shape[0]
    if length < 2 or length & (length - 1):
        raise ValueError(f"the length of values must be a power of two 2**n with n >= 1 "
                         f"(one value per coalition bitmask), got {length}")
    n = length.bit_length() - 1
    if n > MAX_AGENTS:
        raise ValueError(f"n={n} agents is above the supported {MAX_AGENTS}")
    return v, n, dtype


#: float64 holds every integer up to 2**53 exactly, and so every sum of integers within it
_EXACT_INTEGERS = 2**53


def validate_values(values, copy: bool = False) -> tuple[np.ndarray, int]:
    """Check a value function and return ``(array, n)``.

    Integer arrays become float64; float32 stays float32. Raises ValueError naming the
    problem: not 1-D, a length that is not a power of two (at least 2), ``v[0] != 0``,
    NaN or infinite entries, values so large that a partition's total (at most n of them)
    could overflow the dtype, integers so large that such a total could pass 2**53 (beyond
    it float64 rounds them, and the optimum found would be that of other values; pass them
    as floats to accept the rounding), masked entries. Negative values are allowed (a
    coalition may cost).
    """
    v, n, dtype = table_shape(values)
    if v[0] != 0:
        raise ValueError(f"values[0] is the empty coalition and must be 0, got {v[0]!r}")
    if v.dtype.kind in "iu":
        big = max(int(v.max()), -int(v.min()))    # Python integers: no overflow
        if n * big > _EXACT_INTEGERS:
            worst = int(v.argmax() if int(v.max()) == big else v.argmin())
            raise ValueError(f"values[{worst}] = {int(v[worst])}: a partition adds up to n={n} such integers, "
                             f"which could pass 2**53, beyond which float64 (the DP's arithmetic) rounds "
                             f"them; scale the values down, or pass them as float64 to accept the rounding")
    if v.dtype != dtype:
        v = v.astype(dtype)
        copy = False                                # already a copy
    elif not v.flags.c_contiguous:
        v = np.ascontiguousarray(v)
        copy = False
    # one compiled pass, by threads side by side (a solve's time includes this check): the first
    # entry that is not finite, else the smallest and the largest value
    parts = hostcopy.in_chunks(_scan_values, v.size, v)
    bad = next((b for b, _, _ in parts if b >= 0), -1)
    if bad >= 0:
        raise ValueError(f"values must be finite: values[{bad}] (coalition {bad:#b}) is {v[bad]!r}")
    lo, hi = min(float(p[1]) for p in parts), max(float(p[2]) for p in parts)
    # the DP adds up to n values in the table's dtype: beyond its range the sums become inf
    big = max(hi, -lo)
    if n * big > float(np.finfo(v.dtype).max):
        worst = int(v.argmax() if hi == big else v.argmin())
        raise ValueError(f"values[{worst}] = {v[worst]!r}: a partition adds up to n={n} such values, "
                         f"which could pass the largest {v.dtype.name} "
                         f"({float(np.finfo(v.dtype).max):.3g}); scale the values down"
                         + (" or use float64" if v.dtype == np.float32 else ""))
    return (v.copy() if copy else v), n


@numba.njit(nogil=True, cache=True)
def _scan_values(v, lo, hi):
    """(index of the first entry of v[lo:hi] that is not finite, or -1; then the smallest and the
    largest entry of v[lo:hi], when all are finite)."""
    smallest = v[lo]
    largest = v[lo]
    for i in range(lo, hi):
        x = v[i]
        if not np.isfinite(x):
            return i, smallest, largest
        if x < smallest:
            smallest = x
        if x > largest:
            largest = x
    return -1, smallest, largest


# ------------------------------------------------------------------------------ files

def write_values(path, values) -> pathlib.Path:
    """Write a value function: ``.npy`` keeps the dtype; any other suffix writes text, one
    value per line in bitmask order (each reads back to the same number)."""
    v, _ = validate_values(values)
    path = pathlib.Path(path)
    if path.suffix == ".npy":
        np.save(path, v)
    else:
        with open(path, "w") as fh:
            # a float32 value widens exactly to float64, so repr reads back to the same number
            fh.writelines(f"{x!r}\n" for x in v.astype(np.float64).tolist())
    return path


def read_values(path, dtype=None, force: bool = False) -> np.ndarray:
    """Read a value function written by :func:`write_values` (``.npy`` or text).

    Text: one value per line in bitmask order (UTF-8, with or without a byte-order mark;
    lines end at ``\\n``, ``\\r\\n`` or ``\\r``, :mod:`gpualgo.textfile`); blank lines and ``#``
    comments are skipped.
    ``dtype`` (float32 or float64; default: the file's, float64 for text). Raises
    ValueError worded ``"{path}: line {N}: ..."`` for a value that does not parse (or bytes
    that are not UTF-8), or naming the file and whatever :func:`validate_values` finds wrong (such
    as a count of values that is not a power of two), a value beyond the range of ``dtype``,
    a directory or a missing file. A ``.npy`` file's header is checked
    (1-D, a numeric dtype, at most ``2**MAX_AGENTS`` values, a size that matches the file's,
    the host's memory: ``force=True`` insists) before its data are read; numpy's own errors
    on a corrupt file become ValueErrors naming it.
    """
    path = pathlib.Path(path)
    textfile.check_file(path, "file of values")
    if path.suffix == ".npy":
        v = _read_npy(path, force)
    else:
        v = _read_text_values(path, force)
    if dtype is not None:
        dt = _check_dtype(dtype)
        with np.errstate(over="ignore"):
            w = v.astype(dt)
        if v.dtype.kind == "f" and v.dtype != dt:   # a finite value that became infinite was out of range
            over = np.flatnonzero(np.isinf(w) & np.isfinite(v))
            if over.size:
                raise ValueError(f"{path}: values[{over[0]}] = {float(v[over[0]])!r} is beyond the largest "
                                 f"{dt.name} ({float(np.finfo(dt).max):.3g}); read it as float64")
        v = w
    try:
        return validate_values(v)[0]
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def _read_npy(path, force):
    size = path.stat().st_size
    with open(path, "rb") as fh:
        try:
            # the header is a Python literal that numpy parses: one that only parses with a warning
            # (an invalid escape in a string, say) was written by nothing that writes .npy files
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                version = np.lib.format.read_magic(fh)
                if version == (1, 0):
                    shape, fortran, dt = np.lib.format.read_array_header_1_0(fh)
                elif version == (2, 0):
                    shape, fortran, dt = np.lib.format.read_array_header_2_0(fh)
                else:
                    raise ValueError(f"format version {version} (write_values writes 1.0)")
        except Exception as exc:   # numpy says ValueError, EOFError, SyntaxError... for garbage
            raise ValueError(f"{path}: not a .npy file numpy can read ({type(exc).__name__}: {exc})") from None
        if dt.hasobject or dt.kind not in "iubf":
            raise ValueError(f"{path}: values must be numbers, the file holds dtype {dt}")
        if len(shape) != 1:
            raise ValueError(f"{path}: values must be a 1-D array indexed by bitmask, the file holds shape {shape}")
        count = shape[0]
        if count > 1 << MAX_AGENTS:
            raise ValueError(f"{path}: {count} values, more than 2**{MAX_AGENTS} (n above {MAX_AGENTS} agents)")
        if size - fh.tell() != count * dt.itemsize:
            raise ValueError(f"{path}: the header says {count} values of {dt} ({count * dt.itemsize} bytes), "
                             f"the file holds {size - fh.tell()} bytes of data")
        # the data, and a float64 copy when they are not float
        guards.memory(count * (dt.itemsize + 8), f"reading {path} ({count} values)", force, where="host")
        try:
            data = np.fromfile(fh, dtype=dt, count=count)
        except Exception as exc:
            raise ValueError(f"{path}: {type(exc).__name__}: {exc}") from None
    if data.size != count:   # the file changed under us
        raise ValueError(f"{path}: truncated while reading ({data.size} of {count} values)")
    return data.astype(dt.newbyteorder("="), copy=False)   # a big-endian file, in this machine's order


def _read_text_values(path, force):
    # at most one value per two bytes ("0\n"), 8 bytes each once parsed
    size = path.stat().st_size
    guards.memory(8 * min(size // 2 + 1, (1 << MAX_AGENTS) + 1), f"reading the values of {path} ({size} bytes)",
                  force, where="host")
    vals = array.array("d")
    integers, big, big_line = True, 0, 0      # whether every value is written as an integer; the largest
    for lineno, line in enumerate(textfile.read_lines(path, "file of values"), 1):   # read a block at a time
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            vals.append(textfile.decimal(text))
        except ValueError as exc:
            raise textfile.line_error(path, lineno, str(exc)) from None
        if integers and textfile.is_integer(text):
            value = abs(int(text))
            if value > big:
                big, big_line = value, lineno
        else:
            integers = False
        if len(vals) > 1 << MAX_AGENTS:
            raise textfile.line_error(path, lineno, f"more than 2**{MAX_AGENTS} values (n above {MAX_AGENTS} agents)")
    # integers, as an integer array is (validate_values): a partition's total must stay exact in float64
    n = max(1, len(vals).bit_length() - 1)
    if integers and n * big > _EXACT_INTEGERS:
        raise textfile.line_error(path, big_line, f"{big}: a partition adds up to n={n} such integers, which could "
                                  "pass 2**53, beyond which float64 (the DP's arithmetic) rounds them; scale the "
                                  "values down, or write them as decimals (1.5e16) to accept the rounding")
    return np.frombuffer(vals, dtype=np.float64) if vals else np.zeros(0)


# ------------------------------------------------------------------------------ auctions

def from_bids(n_items: int, bids, dtype=np.float64, force: bool = False) -> np.ndarray:
    """The value function of a combinatorial auction (winner determination as CSG).

    Args:
        n_items: number of goods (the "agents" of the partition).
        bids: iterable of ``(bundle, price)``; ``bundle`` is a bitmask int or an iterable of
            item indices, ``price`` a finite number >= 0.

    Returns:
        ``v`` with ``v[bundle]`` = the highest bid on exactly that bundle, 0 where nobody bid
        (an unsold item or bundle earns nothing), so the best partition is the revenue-
        maximising allocation.

    Raises:
        ValueError: a bad ``n_items`` or ``dtype``, a table of ``2**n`` values beyond the
            host's memory (``force=True`` insists), or a bad bid (named by its index): not a
            pair, a bundle that is empty or names unknown items, a price that is not a
            finite number >= 0 or so large that a partition of n bundles could pass the
            dtype's largest value (the rule of :func:`validate_values`).
    """
    n = _check_n(n_items)
    dt = _check_dtype(dtype)
    guards.memory(table_bytes(n, dt, tables=1), f"the values of n={n} items as {dt.name}", force, where="host")
    top = float(np.finfo(dt).max) / n
    v = np.zeros(1 << n, dtype=dt)
    full = (1 << n) - 1
    for k, bid in enumerate(bids):
        try:
            bundle, price = bid
        except (TypeError, ValueError):
            raise ValueError(f"bid {k}: expected a pair (bundle, price), got {bid!r}") from None
        if isinstance(bundle, (bool, np.bool_, float, np.floating, str)):
            raise ValueError(f"bid {k}: a bundle is a bitmask int or a collection of item "
                             f"indices, got {bundle!r}")
        if isinstance(bundle, (int, np.integer)):
            mask = int(bundle)
        else:
            try:
                items = list(bundle)
            except TypeError:
                raise ValueError(f"bid {k}: a bundle is a bitmask int or a collection of item "
                                 f"indices, got {bundle!r}") from None
            if any(not isinstance(i, (int, np.integer)) or isinstance(i, (bool, np.bool_))
                   or not 0 <= i < n for i in items):
                raise ValueError(f"bid {k}: items must be integers in 0..{n - 1}, got {items}")
            mask = sum(1 << int(i) for i in set(items))
        if not 0 < mask <= full:
            raise ValueError(f"bid {k}: bundle {mask:#b} is empty or names items beyond {n}")
        if isinstance(price, (str, bytes, bool, np.bool_)):
            raise ValueError(f"bid {k}: the price must be a number, got {price!r:.40}")
        if isinstance(price, (int, np.integer)) and n * abs(int(price)) > _EXACT_INTEGERS:
            raise ValueError(f"bid {k}: integer price {int(price)}: a partition adds up to n={n} prices, which "
                             "could pass 2**53, beyond which float64 rounds them; pass it as a float to accept that")
        try:
            price = float(price)
        except OverflowError:
            raise ValueError(f"bid {k}: the price must be finite and >= 0, got a number of {len(str(price))} "
                             "digits") from None
        except (TypeError, ValueError):
            raise ValueError(f"bid {k}: the price must be a number, got {price!r}") from None
        if not math.isfinite(price) or price < 0:
            raise ValueError(f"bid {k}: the price must be finite and >= 0, got {price}")
        if price > top:
            raise ValueError(f"bid {k}: price {price:g} is above {top:.3g}: a partition adds up to n={n} "
                             f"prices, which could pass the largest {dt.name}")
        v[mask] = max(v[mask], price)
    return v
