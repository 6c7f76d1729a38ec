"""The clock of DGS's time limit and anytime trace: microseconds of the monotonic clock,
read the same way from numba code (:func:`now_us`) and from Python (:func:`host_us`).

DGS stops a phase when the clock passes its deadline and stamps every trace point, so the
clock must be callable inside compiled code: :func:`now_us` calls the C library's
``clock_gettime`` through ctypes (about 30 ns a call), on the same clock Python's
``time.clock_gettime(CLOCK_MONOTONIC)`` reads.

>>> from gpualgo.assignment.dgs import clock
>>> clock.parse_time_limit(0.5)
500000.0
>>> clock.parse_time_limit(None)
inf
>>> clock.parse_time_limit(-1)
Traceback (most recent call last):
...
ValueError: time_limit must be None or a number of seconds >= 0, got -1
"""
from __future__ import annotations

import ctypes
import time

import numpy as np
from numba import njit

__all__ = ["now_us", "host_us", "new_clock", "parse_time_limit"]

_libc = ctypes.CDLL(None)
_clock_gettime = _libc.clock_gettime
_clock_gettime.restype = ctypes.c_int
_clock_gettime.argtypes = [ctypes.c_int, ctypes.c_void_p]
_CLOCK_MONOTONIC = getattr(time, "CLOCK_MONOTONIC", 1)  # the platform's id (1 on Linux, 6 on macOS)


@njit(cache=False)  # calls a ctypes function: numba cannot cache it
def now_us(buf):
    """Microseconds of the monotonic clock (``buf``: an int64[2] scratch array, see
    :func:`new_clock`), callable from numba code and from Python."""
    _clock_gettime(_CLOCK_MONOTONIC, buf.ctypes.data)
    return buf[0] * 1e6 + buf[1] * 1e-3


def new_clock() -> np.ndarray:
    """The scratch array :func:`now_us` writes the clock's (seconds, nanoseconds) into."""
    return np.zeros(2, dtype=np.int64)


def host_us() -> float:
    """The same clock as :func:`now_us`, read from Python."""
    return time.clock_gettime(time.CLOCK_MONOTONIC) * 1e6


def parse_time_limit(time_limit) -> float:
    """``time_limit`` (seconds, or None for none) in microseconds; ValueError unless it is
    None or a number ``>= 0`` (0 stops after the first switch)."""
    if time_limit is None:
        return np.inf
    try:
        t = float(time_limit)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"time_limit must be None or a number of seconds >= 0, got {time_limit!r}") from None
    if not t >= 0:  # also refuses NaN
        raise ValueError(f"time_limit must be None or a number of seconds >= 0, got {time_limit!r}")
    return t * 1e6
