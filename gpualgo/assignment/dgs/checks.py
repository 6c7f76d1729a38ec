"""Checks of a DGS answer that share no code with the solvers.

DGS promises a valid assignment that is *exchange-optimal*: no swap of jobs between two
agents and no move of an agent to a free job gains more than the run's tolerance. It does
not promise the optimum, so its answers are judged on that promise:
:func:`exchange_gains` computes the best swap and the best move with dense numpy algebra
(no loop of the solvers), and :func:`check_result` is the check the notebook and the
benchmarks apply to a run (validity, exchange-optimality, and, for the versions that keep
the serial order, the serial version's very assignment).

>>> import numpy as np
>>> from gpualgo.assignment.dgs import checks
>>> B = np.array([[5, 1], [1, 5]])
>>> checks.exchange_gains(B, np.array([1, 0]))       # swapping the two jobs gains 8
(8.0, -inf)
>>> checks.exchange_gains(B, np.array([0, 1]))
(-8.0, -inf)
"""
from __future__ import annotations

import numpy as np

from ..checks import check_assignment

__all__ = ["exchange_gains", "check_result"]


def exchange_gains(B, assignment):
    """The largest gain of any single exchange on ``assignment``, computed with dense numpy
    algebra (no loop shared with the solvers): ``(best swap gain between two agents, best
    move gain to a free job)``; ``-inf`` where there is none.  An exchange-optimal
    assignment has both ``<= tol``."""
    A = np.asarray(B, dtype=np.float64)
    a = np.asarray(assignment)
    m, n = A.shape
    c = A[np.arange(m), a]
    P = A[:, a]                         # P[i, k]: agent i's benefit for agent k's job
    G = P - c[:, None]                  # gain of agent i taking k's job
    D = G + G.T
    np.fill_diagonal(D, -np.inf)
    swap = float(D.max()) if m > 1 else -np.inf
    free = np.setdiff1d(np.arange(n), a)
    move = float((A[:, free] - c[:, None]).max()) if free.size else -np.inf
    return swap, move


def check_result(B, result, same_as=None) -> str:
    """Check a DGS run on ``B`` and say in a sentence what was verified.

    ``result``: what ``assignment.solve(B, algorithm="dgs", ...)`` returned. Checks that its
    assignment is valid (:func:`gpualgo.assignment.check_assignment`), that its objective is
    the assignment's, and that no exchange gains more than ``result.stats["tol"]``
    (:func:`exchange_gains`); with ``same_as`` (another run, e.g. the serial version's), that
    both assignments are the same. Raises ValueError on the first failure.

    For a notebook: ``functools.partial(check_result, B, same_as=serial_run)`` is the
    ``check`` of :func:`gpualgo.nbtools.run_and_check`.
    """
    check_assignment(B, result.assignment)
    a = np.asarray(result.assignment)
    total = np.asarray(B, dtype=np.float64)[np.arange(a.size), a].sum()
    if not np.isclose(float(result.objective), total, rtol=1e-12, atol=0.0):
        raise ValueError(f"{result.variant}: objective {result.objective} but the assignment is worth {total:g}")
    tol = float(result.stats.get("tol", 0.0))
    swap, move = exchange_gains(B, a)
    if max(swap, move) > tol:
        what = "a swap of two agents' jobs" if swap >= move else "a move to a free job"
        raise ValueError(f"{result.variant}: not exchange-optimal, {what} gains {max(swap, move):g} > tol {tol:g}")
    said = f"valid, and no exchange gains more than {tol:g} (best {max(swap, move):+.3g})"
    if same_as is not None:
        if not np.array_equal(np.asarray(same_as.assignment), a):
            differ = int(np.sum(np.asarray(same_as.assignment) != a))
            raise ValueError(f"{result.variant}: {differ} agents' jobs differ from the {same_as.variant} version's")
        said += f"; the same assignment as {same_as.variant}"
    return said
