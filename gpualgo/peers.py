"""The CPU solvers people pick, compared against in the notebooks and benchmarks.

They are optional: ``pip install -e '.[peers]'`` installs lap, OR-tools and igraph
(``make run`` and ``make test`` do); python-tsp is added by hand (see :data:`PEERS`).  Every caller goes through :func:`load`, so a missing peer is a
sentence in the notebook, never an ImportError that stops it.

>>> from gpualgo import peers
>>> peers.load("no_such_peer")
Traceback (most recent call last):
...
ValueError: unknown peer 'no_such_peer'; known: ['igraph', 'lap', 'ortools_graph', 'ortools_routing', 'python_tsp']
"""
from __future__ import annotations

import importlib

import numpy as np

__all__ = ["PEERS", "load", "available", "missing_text", "note", "lap_assignment"]

#: peer name -> (module to import, pip requirement, what it is used for)
PEERS = {
    "lap": ("lap", "lap", "Jonker-Volgenant assignment (lap.lapjv)"),
    "ortools_graph": ("ortools.graph.python.max_flow", "ortools",
                      "OR-tools max flow (SimpleMaxFlow)"),
    "ortools_routing": ("ortools.constraint_solver.pywrapcp", "ortools",
                        "OR-tools routing (TSP heuristic)"),
    "igraph": ("igraph", "igraph", "python-igraph max flow (Graph.maxflow)"),
    # not in the peers extra: its tsplib95 dependency pins networkx below 3, and its exact
    # solver needs only numpy, so it is installed without its dependencies
    "python_tsp": ("python_tsp.exact", "--no-deps python-tsp",
                   "python-tsp dynamic programming (pure Python)"),
}

#: pip requirements of the ``peers`` extra (pyproject.toml), which installs them all at once
_IN_PEERS_EXTRA = {"lap", "ortools", "igraph"}


def _entry(name: str):
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; known: {sorted(PEERS)}")
    return PEERS[name]


def load(name: str):
    """The peer's module, or None when it is not installed (see :func:`missing_text`)."""
    module, _, _ = _entry(name)
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def available(name: str) -> bool:
    """True when :func:`load` finds the peer."""
    return load(name) is not None


def missing_text(name: str) -> str:
    """One sentence: which package is missing and how to install it."""
    _, pip_name, what = _entry(name)
    extra = " (or `pip install -e '.[peers]'`, all the peers)" if pip_name in _IN_PEERS_EXTRA else ""
    return (f"{what} is not installed here, so it is left out of this comparison: "
            f"`pip install {pip_name}`{extra} adds it.")


def note(name: str):
    """The module when installed; else print :func:`missing_text` and return None.

    For notebook cells: ``lap = peers.note("lap")`` then ``if lap: ...``.
    """
    mod = load(name)
    if mod is None:
        print(missing_text(name))
    return mod


# The calls of the peers, one function each, taking plain arrays (no problem's own types,
# so that this module stays below the problem packages). Each returns None when its peer is
# not installed.

# ----------------------------------------------------------------------------- assignment

def lap_assignment(B):
    """lap's Jonker-Volgenant (``lap.lapjv``) on the dense benefits ``B`` (m x n, m <= n),
    maximised: lap minimises, so it is given ``max(B) - B``. Returns the object of each
    person (int64, length m), or None when lap is not installed."""
    lap = load("lap")
    if lap is None:
        return None
    B = np.asarray(B)
    _, x, _ = lap.lapjv((B.max() - B).astype(np.float64), extend_cost=B.shape[0] != B.shape[1])
    return np.asarray(x[:B.shape[0]], dtype=np.int64)

# ------------------------------------------------------------------------------- max flow

# ------------------------------------------------------------------------------------ TSP
