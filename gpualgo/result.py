"""What every ``solve`` returns: the common part of the five problems' result types.

Each problem's result is a dataclass in ``<problem>/result.py`` that inherits from
:class:`Result` and adds its solution (an assignment, a flow and a cut, a tour, a
partition). Every result has

- ``variant``: the version that ran;
- ``objective``: the number the problem optimises (total benefit, flow value, tour
  length, partition value), whatever the problem calls it besides;
- ``stats``: a dict with the same names in every problem (:data:`TIMES`) plus the
  problem's own counters (rounds, pushes, orders, splits...);
- :meth:`summary`: one line for a person.

A GPU module builds its result with its problem's ``make_result``, never through
``solve``; ``solve`` only checks, guards and dispatches (see :mod:`gpualgo.variants`).
"""
from __future__ import annotations

__all__ = ["Result", "TIMES"]

#: the timing names every result's ``stats`` uses, in milliseconds
TIMES = {
    "total_ms": "the whole solve call, wall clock, uploads and downloads included",
    "prepare_ms": "before the algorithm: the checks of the input, layout, conversions, uploads to the GPU",
    "check_ms": "solve's own work before the version runs (part of prepare_ms): its checks of the input "
                "and the options, and in a process's first call the import of the version's module",
    "exec_ms": "the algorithm itself, wall clock (the GPU synchronised at both ends)",
    "kernel_ms": "GPU versions: the kernels' time from CUDA events (part of exec_ms)",
}


class Result:
    """The common behaviour of the problems' result dataclasses (see the module doc).

    A subclass declares ``variant: str`` and ``stats: dict`` fields and provides
    ``objective`` (a field or a property).
    """

    #: what the objective is called in a sentence ("objective", "flow value", "length", ...)
    objective_name = "objective"

    def summary(self) -> str:
        """``"gpu_x: flow value 42; 12.3 ms in all (kernels 8.1 ms) on NVIDIA H100"``."""
        s = self.stats
        obj = self.objective
        obj_text = f"{obj:,}" if isinstance(obj, int) else (f"{obj:.6g}" if isinstance(obj, float) else str(obj))
        parts = [f"{self.variant}: {self.objective_name} {obj_text}"]
        if "total_ms" in s:
            t = f"{s['total_ms']:.1f} ms in all"
            if s.get("kernel_ms") is not None:
                t += f" (kernels {s['kernel_ms']:.1f} ms)"
            parts.append(t)
        text = "; ".join(parts)
        return text + (f" on {s['device']}" if s.get("device") else "")
