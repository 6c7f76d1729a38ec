"""DGS's anytime trace, and the result every DGS version returns with it.

DGS holds a complete assignment at every moment and only improves it, so a run can be
read as a curve: the objective after each switch, against the switches and the time.
Every version records that curve in a buffer of fixed size (:func:`new_trace`): when the
buffer is full, :func:`record_trace` keeps every other point and records half as often,
so a run of any length fits and the points stay evenly spread over its switches. The
result carries the curve as ``stats["trace_switches"]``, ``["trace_objective"]`` and
``["trace_ms"]`` (:func:`make_dgs_result`).

>>> from gpualgo.assignment.dgs import trace
>>> buf, meta = trace.new_trace(4)
>>> for s in range(1, 11):
...     trace.record_trace(buf[0], buf[1], buf[2], meta, s, 100.0 + s, 10.0 * s)
>>> sw, obj, ms = trace.trace_arrays(buf, meta, 100.0)
>>> sw.tolist(), meta.tolist()          # 10 switches in 4 slots: every 4th switch is kept
([0, 4, 8], [2, 4])
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..checks import objective
from ..result import AssignmentResult

__all__ = ["new_trace", "check_trace_capacity", "record_trace", "trace_arrays", "rounds_trace_arrays",
           "make_dgs_result"]


def check_trace_capacity(capacity) -> int:
    """``capacity`` (trace points kept) as an int; ValueError unless it is a positive integer
    (the trace writers do no bounds checks, so 0 is refused)."""
    if isinstance(capacity, (bool, np.bool_)) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
        raise ValueError(f"trace_capacity must be a positive integer, got {capacity!r}")
    return int(capacity)


def new_trace(capacity: int = 4096):
    """Empty trace buffers ``(arrays (3, capacity), meta [count, stride])``; see
    :func:`check_trace_capacity`."""
    return np.zeros((3, check_trace_capacity(capacity))), np.array([0, 1], dtype=np.int64)


@njit(cache=True)
def record_trace(tr_sw, tr_obj, tr_t, tr_meta, switches, obj, t):
    """Append a trace point; when the buffer is full keep every other point and record
    half as often (``tr_meta = [count, stride]``), so any run fits a fixed buffer."""
    if switches % tr_meta[1] != 0:
        return
    c = tr_meta[0]
    if c == tr_sw.size:
        h = c // 2
        for q in range(h):
            tr_sw[q], tr_obj[q], tr_t[q] = tr_sw[2 * q + 1], tr_obj[2 * q + 1], tr_t[2 * q + 1]
        c = h
        tr_meta[1] *= 2
        if switches % tr_meta[1] != 0:
            tr_meta[0] = c
            return
    tr_sw[c], tr_obj[c], tr_t[c] = switches, obj, t
    tr_meta[0] = c + 1


def trace_arrays(trace, meta, start_obj, final=None):
    """``(switches, objective, ms)`` of a trace (microseconds in the buffer), starting with
    the initial point (0, obj, 0) and ending with ``final = (switches, obj, ms)`` when given."""
    c = int(meta[0])
    sw = np.concatenate([[0], trace[0, :c]]).astype(np.int64)
    ob = np.concatenate([[start_obj], trace[1, :c]])
    ms = np.concatenate([[0.0], trace[2, :c] / 1e3])
    if final is not None and sw[-1] != final[0]:
        sw, ob, ms = np.append(sw, final[0]), np.append(ob, final[1]), np.append(ms, final[2])
    return sw, ob, ms


def rounds_trace_arrays(points, start_obj):
    """``(switches, objective, ms)`` of the full-GPU version's trace: ``points`` holds one
    row ``(exchanges so far, objective, ns)`` per round; the initial point comes first."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    sw = np.concatenate([[0], points[:, 0]]).astype(np.int64)
    ob = np.concatenate([[start_obj], points[:, 1]])
    ms = np.concatenate([[0.0], points[:, 2] / 1e6])
    return sw, ob, ms


def make_dgs_result(B, tau, variant, stats, t0, start_obj, trace_sw, trace_obj, trace_ms):
    """The AssignmentResult of a DGS run (``algorithm="dgs"``, no prices): the assignment
    ``tau`` and its objective on ``B``, ``stats`` with the start's objective, the trace and
    ``total_ms`` (from ``t0``, a ``time.perf_counter()`` reading at the call's start)."""
    a = np.asarray(tau, dtype=np.int64)
    stats.update(initial_objective=start_obj, trace_switches=trace_sw, trace_objective=trace_obj,
                 trace_ms=trace_ms, total_ms=(time.perf_counter() - t0) * 1e3)
    return AssignmentResult(assignment=a, objective=objective(B, a), variant=variant, algorithm="dgs",
                            stats=stats)
