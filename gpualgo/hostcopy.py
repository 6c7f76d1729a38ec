"""Host passes over large arrays, compiled with numba and run by threads side by side.

:func:`copy_with_range`: a host copy that also takes the range of what it copies.
:func:`gpualgo.gpu.to_device` with ``value_range=True`` calls it from its staging threads, once
per chunk: one pass over the source instead of three (a minimum, a maximum and the copy), with
Python's lock released for the whole chunk, so the threads copy side by side.

:func:`in_chunks`: a function compiled with ``nogil=True`` run over the pieces of a range by a
pool of threads, for the checks that a solve makes of its input (a network's arrays, a table
of values) and counts in its time.
"""
from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

#: threads of :func:`in_chunks`, and the fewest items a thread is given
CHECK_THREADS = max(1, min(16, os.cpu_count() or 1))
CHECK_GRAIN = 1 << 20


@functools.lru_cache(maxsize=None)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(CHECK_THREADS, thread_name_prefix="gpualgo-check")


def in_chunks(fn, count: int, *args, cuts=None) -> list:
    """``[fn(*args, lo, hi) for each piece lo:hi of range(count)]``, in order, the pieces run by
    :data:`CHECK_THREADS` threads (``fn`` compiled with ``nogil=True``, so they run side by side).
    A piece has at least :data:`CHECK_GRAIN` items; below that one call does it all, in this
    thread. ``cuts(k)``, when given, turns the k + 1 even boundaries of the pieces into others
    (the vertices at which a network's arcs split evenly, say).

    >>> in_chunks(lambda lo, hi: (lo, hi), 10)
    [(0, 10)]
    """
    pieces = max(1, min(CHECK_THREADS, count // CHECK_GRAIN))
    bounds = [count * k // pieces for k in range(pieces + 1)]
    if cuts is not None:
        bounds = [int(b) for b in cuts(bounds)]
    spans = list(zip(bounds[:-1], bounds[1:]))
    if len(spans) == 1:
        return [fn(*args, *spans[0])]
    return list(_pool().map(lambda span: fn(*args, *span), spans))


@numba.njit(nogil=True, cache=True)
def copy_with_range(src, dst):
    """Copy the integer array ``src`` into ``dst`` element by element (converted as a C cast
    does: a narrower integer type keeps the low bits) and return the smallest and the largest
    value of ``src`` as given. ``src`` must not be empty."""
    lo = src[0]
    hi = src[0]
    for i in range(src.size):
        v = src[i]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
        dst[i] = v
    return lo, hi


def checked_copy(src: np.ndarray, dst: np.ndarray) -> tuple:
    """:func:`copy_with_range` for one-dimensional integer arrays of the same length; returns
    None for an empty one."""
    if src.dtype.kind not in "iu" or dst.dtype.kind not in "iu":
        raise ValueError(f"a copy with its range takes integer arrays, got {src.dtype} and {dst.dtype}")
    if src.shape != dst.shape or src.ndim != 1:
        raise ValueError(f"a copy with its range takes two 1-d arrays of one length, got {src.shape} and {dst.shape}")
    return copy_with_range(src, dst) if src.size else None
