"""Value functions of coalition structure generation: generators, validation, files, bids.

A value function on ``n`` agents is a 1-D float array ``v`` of length ``2**n`` indexed by
bitmask: ``v[mask]`` is the value of the coalition whose members are the set bits of
``mask`` (agent ``i`` is bit ``i``), and ``v[0] == 0`` (the empty coalition).

The generators follow the distributions used to compare CSG algorithms in the literature;
each is seeded, so an instance is reproducible from ``(distribution, n, seed)``.
"""
from __future__ import annotations

import math
import os
import pathlib

import numpy as np

__all__ = ["DISTRIBUTIONS", "random_values", "validate_values", "table_bytes", "host_memory_bytes",
           "read_values", "write_values", "from_bids", "popcounts", "MAX_AGENTS"]

#: bitmasks are 32-bit words in the kernels, and 2**31 table entries is already 8 GiB of float32
MAX_AGENTS = 31


def popcounts(n: int) -> np.ndarray:
    """Coalition sizes: ``popcounts(n)[mask]`` is the number of agents in ``mask`` (uint8)."""
    return np.bitwise_count(np.arange(1 << n, dtype=np.uint32)).astype(np.uint8)


def _uniform(rng, n, size, dtype):
    return size * rng.random(1 << n, dtype=dtype)


def _normal(rng, n, size, dtype):
    return np.maximum(0.0, size * rng.normal(10.0, 0.1, 1 << n)).astype(dtype)


def _ndcs(rng, n, size, dtype):
    s = size.astype(np.float64)
    return rng.normal(s, np.sqrt(s)).astype(dtype)


def _modified_uniform(rng, n, size, dtype):
    v = rng.uniform(0.0, 10.0, 1 << n) * size
    bonus = rng.random(1 << n) < 0.2
    v[bonus] += rng.uniform(0.0, 50.0, int(bonus.sum()))
    return v.astype(dtype)


def _agent_based(rng, n, size, dtype):
    power = rng.uniform(0.0, 10.0, n)
    masks = np.arange(1 << n, dtype=np.uint32)
    v = np.zeros(1 << n, dtype=np.float64)
    for i in range(n):  # each member brings a random share of its own power
        member = ((masks >> np.uint32(i)) & np.uint32(1)).astype(bool)
        v[member] += rng.uniform(0.0, 2.0 * power[i], int(member.sum()))
    return v.astype(dtype)


#: name -> (generator, one-line description); generators take (rng, n, sizes, dtype)
DISTRIBUTIONS = {
    "uniform": (_uniform, "|C| * U(0, 1)"),
    "normal": (_normal, "max(0, |C| * N(10, 0.1))"),
    "ndcs": (_ndcs, "N(|C|, sqrt|C|): may be negative"),
    "modified_uniform": (_modified_uniform, "|C| * U(0, 10), plus U(0, 50) with probability 0.2"),
    "agent_based": (_agent_based, "each agent i has a power p_i ~ U(0, 10); v(C) = sum over "
                                  "i in C of U(0, 2 p_i)"),
}


def random_values(n: int, distribution: str = "uniform", seed=None, dtype=np.float64,
                  force: bool = False) -> np.ndarray:
    """A random value function on ``n`` agents drawn from one of :data:`DISTRIBUTIONS`.

    Args:
        n: number of agents, 1..31.
        distribution: a key of :data:`DISTRIBUTIONS`.
        seed: anything ``numpy.random.default_rng`` accepts.
        dtype: ``float32`` or ``float64`` (float32 halves the memory, so larger n fit).
        force: generate even when the array would not fit in this machine's memory.

    Returns:
        array of length ``2**n`` with ``v[0] == 0``.
    """
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"unknown distribution {distribution!r}; known: {sorted(DISTRIBUTIONS)}")
    n = _check_n(n)
    dtype = _check_dtype(dtype)
    need = table_bytes(n, dtype, tables=2)
    if not force and need > host_memory_bytes():
        raise ValueError(f"a value function on n={n} agents needs about {need / 2**30:.1f} GiB "
                         f"as {dtype.name} while generating; this machine has "
                         f"{host_memory_bytes() / 2**30:.1f} GiB (pass force=True to try anyway)")
    rng = np.random.default_rng(seed)
    size = popcounts(n)
    v = DISTRIBUTIONS[distribution][0](rng, n, size, dtype)
    v = np.ascontiguousarray(v, dtype=dtype)
    v[0] = 0
    return v


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_AGENTS:
        raise ValueError(f"n (agents) must be an integer in 1..{MAX_AGENTS}, got {n!r}")
    return int(n)


def _check_dtype(dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dt}")
    return dt


def table_bytes(n: int, dtype=np.float64, tables: int = 2) -> int:
    """Bytes of ``tables`` arrays of ``2**n`` values of ``dtype`` (the DP keeps v and f)."""
    return tables * (1 << n) * np.dtype(dtype).itemsize


def host_memory_bytes() -> int:
    """Physical memory of this machine in bytes (a large number where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def validate_values(values, copy: bool = False) -> tuple[np.ndarray, int]:
    """Check a value function and return ``(array, n)``.

    Integer arrays become float64; float32 stays float32. Raises ValueError naming the
    problem: not 1-D, a length that is not a power of two (at least 2), ``v[0] != 0``,
    NaN or infinite entries.
    """
    v = np.asarray(values)
    if v.ndim != 1:
        raise ValueError(f"values must be a 1-D array indexed by bitmask, got shape {v.shape}")
    if v.dtype.kind in "iub":
        v = v.astype(np.float64)
    elif v.dtype not in (np.float32, np.float64):
        raise ValueError(f"values must be float32 or float64 (or integers), got {v.dtype}")
    length = v.shape[0]
    if length < 2 or length & (length - 1):
        raise ValueError(f"the length of values must be a power of two 2**n with n >= 1 "
                         f"(one value per coalition bitmask), got {length}")
    n = length.bit_length() - 1
    if n > MAX_AGENTS:
        raise ValueError(f"n={n} agents is above the supported {MAX_AGENTS}")
    if v[0] != 0:
        raise ValueError(f"values[0] is the empty coalition and must be 0, got {v[0]!r}")
    finite = np.isfinite(v)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise ValueError(f"values must be finite: values[{bad}] (coalition {bad:#b}) is {v[bad]!r}")
    v = np.ascontiguousarray(v)
    return (v.copy() if copy else v), n


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


def read_values(path, dtype=None) -> np.ndarray:
    """Read a value function written by :func:`write_values` (``.npy`` or text).

    Text: one value per line in bitmask order; blank lines and ``#`` comments are skipped.
    ``dtype`` (float32 or float64; default: the file's, float64 for text). Raises
    ValueError naming the line of a value that does not parse, and whatever
    :func:`validate_values` finds wrong.
    """
    path = pathlib.Path(path)
    if path.suffix == ".npy":
        v = np.load(path, allow_pickle=False)
    else:
        vals = []
        with open(path) as fh:
            for lineno, line in enumerate(fh, 1):
                text = line.split("#", 1)[0].strip()
                if not text:
                    continue
                try:
                    vals.append(float(text))
                except ValueError:
                    raise ValueError(f"{path}:{lineno}: not a number: {text!r}") from None
        v = np.array(vals, dtype=np.float64)
    if dtype is not None:
        v = v.astype(_check_dtype(dtype))
    return validate_values(v)[0]


# ------------------------------------------------------------------------------ auctions

def from_bids(n_items: int, bids, dtype=np.float64) -> np.ndarray:
    """The value function of a combinatorial auction (winner determination as CSG).

    Args:
        n_items: number of goods (the "agents" of the partition).
        bids: iterable of ``(bundle, price)``; ``bundle`` is a bitmask int or an iterable of
            item indices, ``price`` a finite number >= 0.

    Returns:
        ``v`` with ``v[bundle]`` = the highest bid on exactly that bundle, 0 where nobody bid
        (an unsold item or bundle earns nothing), so the best partition is the revenue-
        maximising allocation.
    """
    n = _check_n(n_items)
    v = np.zeros(1 << n, dtype=_check_dtype(dtype))
    full = (1 << n) - 1
    for k, (bundle, price) in enumerate(bids):
        if isinstance(bundle, (int, np.integer)) and not isinstance(bundle, bool):
            mask = int(bundle)
        else:
            items = list(bundle)
            if any(not isinstance(i, (int, np.integer)) or not 0 <= i < n for i in items):
                raise ValueError(f"bid {k}: items must be integers in 0..{n - 1}, got {items}")
            mask = sum(1 << int(i) for i in set(items))
        if not 0 < mask <= full:
            raise ValueError(f"bid {k}: bundle {mask:#b} is empty or names items beyond {n}")
        price = float(price)
        if not math.isfinite(price) or price < 0:
            raise ValueError(f"bid {k}: the price must be finite and >= 0, got {price}")
        v[mask] = max(v[mask], price)
    return v
