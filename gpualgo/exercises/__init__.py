"""Course exercises: write a part of one of the suite's kernels, then check it.

>>> from gpualgo import exercises
>>> ex = exercises.get("tsp.tour_cost")
>>> ex.tier, ex.file
(1, 'tsp.cu')
>>> "TODO" in exercises.starter("tsp.tour_cost")
True

``exercises.check("tsp.tour_cost", source)`` compiles ``source`` in place of the region marked
in ``kernels/tsp.cu`` (the rest of the real module around it), runs it on fixed cases on a
GPU and prints PASS or the first failing case; without a GPU it compiles only.  The solutions
are the suite's own kernels (:func:`solution`); the starters are generated from them.  The
notebooks of ``notebooks/exercises/`` are made from the exercises
(``python -m gpualgo.exercises.notebooks --write``).  How the mechanism works and how to add an
exercise: ``gpualgo/README.md``.
"""
from __future__ import annotations

import importlib

from .core import (REGISTRY, Case, CheckResult, Exercise, Failure, assemble, check, compile_only, compiler,
                   get, markers, region, solution, starter)

__all__ = ["check", "starter", "solution", "get", "all_exercises", "PROBLEMS", "Exercise", "Case", "CheckResult",
           "Failure", "assemble", "compile_only", "compiler", "region", "markers", "show"]

#: the modules that register exercises, in course order
PROBLEMS = ("tsp", "auction", "maxflow", "dgs", "coalitions")
_loaded = False


def _load_all() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for name in PROBLEMS:
            importlib.import_module(f"{__name__}.{name}")


def all_exercises() -> list[Exercise]:
    """Every registered exercise, by problem (course order), then tier."""
    _load_all()
    order = {p: i for i, p in enumerate(PROBLEMS)}
    return sorted(REGISTRY.values(), key=lambda e: (order[e.id.split(".")[0]], e.tier))


def show(exercise_id: str, what: str = "starter") -> str:
    """Print the signature and the starter (or ``what="solution"``) of an exercise, as the
    notebook cell that the student edits holds it; returns the text."""
    ex = get(exercise_id)
    text = starter(exercise_id) if what == "starter" else solution(exercise_id)
    out = f"// {ex.id}: your code goes into\n{ex.signature}\n{{\n    ...\n{text}    ...\n}}"
    print(out)
    return out
