"""How every problem registers its versions and how ``solve`` runs one: one table, one call.

A problem lists its versions, in the order they are taught, as :class:`Variant` entries of
a :func:`table`. Each entry names the function that runs it (``"module:function"``, imported
at the first call, so that a GPU module is never imported on a CPU path), the options it
takes, and whether it needs a GPU. ``solve`` validates its input, applies its guards, then
hands over to :func:`call`, which checks the variant and its options (one message for every
problem), asks for the GPU, runs the function and fills the statistics every result has
(``total_ms``, ``device``).

>>> from gpualgo.variants import Variant, table, check
>>> versions = table(
...     Variant("serial", "gpualgo.variants:_demo", {"reps"}),
...     Variant("gpu", "gpualgo.variants:_demo", {"reps", "block"}, gpu=True))
>>> list(versions)
['serial', 'gpu']
>>> check("serial", versions, {"block": 256})
Traceback (most recent call last):
...
ValueError: unknown option(s) ['block'] for serial; it takes ['reps']
"""
from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Variant", "table", "check", "call"]


@dataclass(frozen=True)
class Variant:
    """One version of an algorithm.

    name: its name in ``VARIANTS`` (``"serial"``, ``"gpu_..."``).
    run: the function, or ``"package.module:function"`` imported at its first call; it takes
        the prepared instance and the options, and returns the problem's result.
    options: the option names it accepts (anything else is refused by :func:`check`).
    gpu: True when it needs a CUDA GPU.
    checks: a function (or ``"module:function"``) that takes the options given and raises
        ValueError for a value the version cannot run with (a block of 7 threads): called
        before a GPU is asked for, so a machine without one gets the same message.
    """
    name: str
    run: str | Callable = field(repr=False)
    options: frozenset = frozenset()
    gpu: bool = False
    checks: str | Callable | None = field(default=None, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "options", frozenset(self.options))
        if self.gpu != self.name.startswith("gpu"):
            raise ValueError(f"variant {self.name!r}: GPU versions are named gpu_..., and only they")

    def function(self) -> Callable:
        """The function that runs this version (imported now if named by a string)."""
        return _resolve(self.run)

    def check_values(self, options: dict) -> None:
        """Raise ValueError for an option value this version cannot run with (see ``checks``)."""
        if self.checks is not None and options:
            _resolve(self.checks)(**options)


def _resolve(f: str | Callable) -> Callable:
    if callable(f):
        return f
    module, _, name = f.partition(":")
    return getattr(importlib.import_module(module), name)


def table(*entries: Variant) -> dict:
    """``{name: Variant}`` in the given (teaching) order; names must be unique."""
    out = {}
    for e in entries:
        if e.name in out:
            raise ValueError(f"variant {e.name!r} listed twice")
        out[e.name] = e
    return out


def check(variant, variants, options=(), accepted=None, what: str = ""):
    """Raise ValueError unless ``variant`` is one of ``variants`` and every name in ``options``
    is one it accepts: ``accepted[variant]``, or the :class:`Variant`'s own ``options`` when
    ``variants`` is a :func:`table` (``accepted`` None and no table: no option check).

    >>> check("gpu", ("serial", "gpu"), {"block": 256}, {"serial": set(), "gpu": {"block"}})
    >>> check("gpu", ("serial", "gpu"), {"blocks": 256}, {"serial": set(), "gpu": {"block"}})
    Traceback (most recent call last):
    ...
    ValueError: unknown option(s) ['blocks'] for gpu; it takes ['block']
    """
    if not isinstance(variant, str) or variant not in variants:
        raise ValueError(f"unknown variant {variant!r}{' of ' + what if what else ''}; known: {list(variants)}")
    if accepted is None and isinstance(variants, dict) and isinstance(variants[variant], Variant):
        accepted = {variant: variants[variant].options}
    if accepted is not None:
        unknown = set(options) - set(accepted[variant])
        if unknown:
            raise ValueError(f"unknown option(s) {sorted(unknown)} for {variant}; "
                             f"it takes {sorted(accepted[variant]) or 'none'}")


def call(variants: dict, variant: str, *args, what: str = "", started: float | None = None, **options):
    """Run ``variants[variant]`` on ``args`` with ``options`` and return its result.

    Checks the variant, its options' names (:func:`check`) and their values (the version's
    ``checks``) first, raises :class:`~gpualgo.gpu.GPUUnavailableError` for a GPU version
    without a GPU, and sets the
    result's ``stats["total_ms"]`` (wall time of the whole call, when the version did not
    measure it itself) and ``stats["device"]`` (the GPU's name, or :func:`gpu.cpu_label`).

    ``started``: the ``time.perf_counter()`` at which the problem's ``solve`` began, before its
    own checks of the input (a network's arrays, a table of values, a matrix): the time from
    then to the version's start is ``stats["check_ms"]`` and is added to ``total_ms`` and
    ``prepare_ms``, so that ``total_ms`` is the time of the whole ``solve`` call, as a user
    timing it would measure. It holds those checks, the options' checks and, in a process's
    first call of a version, the import of its module (CuPy's with it: a sweep's warm-up pays
    that, not its timed runs).
    """
    from . import gpu
    check(variant, variants, options, what=what)
    entry = variants[variant]
    entry.check_values(options)
    if entry.gpu:
        gpu.require()
    t0 = time.perf_counter()
    result = entry.function()(*args, **options)
    result.stats.setdefault("total_ms", (time.perf_counter() - t0) * 1e3)
    if started is not None:
        check_ms = (t0 - started) * 1e3
        result.stats["check_ms"] = check_ms
        result.stats["total_ms"] += check_ms
        if result.stats.get("prepare_ms") is not None:
            result.stats["prepare_ms"] += check_ms
    if not result.stats.get("device"):
        result.stats["device"] = gpu.device_name() if entry.gpu else gpu.cpu_label()
    return result


def _demo(x, reps=1, block=None):  # pragma: no cover - the doctest's stand-in
    return x
