"""The refusals every problem makes before a run that would be absurd: one rule each.

A run is refused, before anything large is allocated or any long loop starts, when

- it needs more memory than :data:`MEMORY_FRACTION` of what the device can give now
  (:func:`memory`: the GPU's free memory plus CuPy's reusable pool blocks, or the host's
  available memory), or
- its estimated time is above a limit (:func:`time`; each problem keeps its own measured
  rates and limit, the guard only compares and words the refusal).

Every refusal is a ``ValueError`` that states the estimate and how to insist
(``force=True``); every public entry point that can be refused takes ``force``.

>>> from gpualgo import guards
>>> guards.time(7200.0, "brute force on n=16 cities", limit=180.0, hint="use a Held-Karp variant")
Traceback (most recent call last):
...
ValueError: brute force on n=16 cities: about 2.0 h (limit 3 min); use a Held-Karp variant, or pass force=True to run it anyway
>>> guards.time(7200.0, "brute force on n=16 cities", limit=180.0, force=True)   # insisted: no refusal
"""
from __future__ import annotations

import os

from .timing import human_seconds

__all__ = ["MEMORY_FRACTION", "host_bytes", "memory", "time", "gib"]

#: a run may use at most this fraction of the memory the device can give now
MEMORY_FRACTION = 0.9


def gib(nbytes: float) -> str:
    """``"1.5 GiB"`` (or MiB / KiB for small amounts): a size for a person."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale or unit == "KiB":
            return f"{nbytes / scale:.1f} {unit}" if nbytes < 1e6 * scale else f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes} B"  # pragma: no cover


def host_bytes() -> int:
    """Bytes of host memory available now (``MemAvailable`` on Linux; physical memory
    elsewhere, or 8 GiB when the system does not say)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def memory(need: float, what: str, force: bool = False, where: str = "GPU", hint: str = "") -> None:
    """Refuse ``what`` when it needs more than :data:`MEMORY_FRACTION` of the memory
    ``where`` (``"GPU"`` or ``"host"``) can give now, unless ``force``.

    ``need`` is the run's estimate in bytes (its arrays; say how it was counted where it is
    computed). ``hint`` names a smaller alternative. On the GPU, raises
    :class:`~gpualgo.gpu.GPUUnavailableError` when there is none.
    """
    if force:
        return
    if where == "GPU":
        from . import gpu
        have = gpu.usable_bytes()
    elif where == "host":
        have = host_bytes()
    else:
        raise ValueError(f"where must be 'GPU' or 'host', got {where!r}")
    if need > MEMORY_FRACTION * have:
        raise ValueError(f"{what} needs about {gib(need)} of {where} memory and {gib(have)} can be had "
                         f"now; {hint + ', or ' if hint else ''}pass force=True to try anyway")


def time(seconds: float, what: str, limit: float, force: bool = False, hint: str = "") -> None:
    """Refuse ``what`` when its estimated run time ``seconds`` is above ``limit``, unless
    ``force``. ``hint`` names a faster alternative."""
    if force or not seconds > limit:
        return
    raise ValueError(f"{what}: about {human_seconds(seconds)} (limit {human_seconds(limit)}); "
                     f"{hint + ', or ' if hint else ''}pass force=True to run it anyway")
