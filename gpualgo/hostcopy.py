"""A host copy that also takes the range of what it copies, compiled with numba.

:func:`gpualgo.gpu.to_device` with ``value_range=True`` calls it from its staging threads, once
per chunk: one pass over the source instead of three (a minimum, a maximum and the copy), with
Python's lock released for the whole chunk, so the threads copy side by side.
"""
from __future__ import annotations

import numba
import numpy as np


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
