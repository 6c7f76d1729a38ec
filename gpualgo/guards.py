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

import math
import numbers
import os

import numpy as np

from . import textfile
from .timing import human_seconds

__all__ = ["MEMORY_FRACTION", "ALWAYS_FITS", "host_bytes", "insist", "memory", "time", "gib", "integer", "threads",
           "power_of_two", "rng"]

#: a run may use at most this fraction of the memory the device can give now
MEMORY_FRACTION = 0.9
#: bytes any host that runs gpualgo can hold: the size guards of the generators and the file
#: readers refuse nothing smaller (their estimates are about sizes, not about the last KiB)
ALWAYS_FITS = 64 * 2**20


def gib(nbytes: float) -> str:
    """``"1.5 GiB"`` (KiB to PiB as fits): a size for a person, also for sizes beyond floats.

    >>> gib(1.5 * 2**30), gib(3 * 2**40), gib(10**400)
    ('1.5 GiB', '3.0 TiB', '1e+385 PiB')
    """
    try:
        size = float(nbytes)
    except OverflowError:      # an int beyond float range: say its order of magnitude
        digits = len(str(int(nbytes))) - 1
        return f"1e+{digits - 15} PiB"
    for unit, scale in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale or unit == "KiB":
            return f"{size / scale:.1f} {unit}" if size < 1e6 * scale else f"{size / scale:.3g} {unit}"
    return f"{size} B"  # pragma: no cover


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


def flag(value, name: str) -> bool:
    """``value`` as a bool: True or False only (numpy's bools too), so that ``"no"``, ``0`` or
    ``None`` is a ValueError naming ``name`` rather than a run that reads it by its truth.

    >>> flag(False, "scaling")
    False
    >>> flag("no", "scaling")
    Traceback (most recent call last):
    ...
    ValueError: scaling must be True or False, got 'no'
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {textfile.quote(value)}")
    return bool(value)


def insist(force) -> bool:
    """``force`` as a bool (:func:`flag`): ``force="no"`` or ``force=None`` is a ValueError
    rather than a run that insists, or does not, by accident."""
    return flag(force, "force")


def memory(need: float, what: str, force: bool = False, where: str = "GPU", hint: str = "",
           floor: float = 0) -> None:
    """Refuse ``what`` when it needs more than :data:`MEMORY_FRACTION` of the memory
    ``where`` (``"GPU"`` or ``"host"``) can give now, unless ``force``.

    ``need`` is the run's estimate in bytes (its arrays; say how it was counted where it is
    computed). ``hint`` names a smaller alternative. ``floor``: a need up to this many bytes
    is never refused (:data:`ALWAYS_FITS` for estimates that are about sizes, not about the
    last KiB). On the GPU, raises :class:`~gpualgo.gpu.GPUUnavailableError` when there is none.
    """
    if insist(force) or need <= floor:
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
    if insist(force) or not seconds > limit:
        return
    about = f"about {human_seconds(seconds)}" if seconds < float("inf") else "longer than any estimate can say"
    raise ValueError(f"{what}: {about} (limit {human_seconds(limit)}); "
                     f"{hint + ', or ' if hint else ''}pass force=True to run it anyway")


# ------------------------------------------------------------------- launch options' values
# One wording for the values a GPU version's options may take, used by the versions and by
# their ``checks`` (gpualgo.variants), which run before a GPU is asked for.

def integer(value, name: str, lo: int = 1, hi: int | None = None) -> int:
    """``value`` as an int; ValueError naming ``name`` unless it is an integer (not a bool)
    in ``lo..hi``. The value is shown as given, cut short (:func:`gpualgo.textfile.quote`).

    >>> integer(3, "ops"), integer(0, "ops", lo=1)
    Traceback (most recent call last):
    ...
    ValueError: ops must be an integer >= 1, got 0
    >>> integer(10**300, "block", 32, 1024)
    Traceback (most recent call last):
    ...
    ValueError: block must be an integer in 32..1024, got 100000000000000000000000000000... (301 characters)
    """
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)   # numpy's bool_ is not Integral
    if not ok or value < lo or (hi is not None and value > hi):
        span = f"in {lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be an integer {span}, got {textfile.quote(value)}")
    return int(value)


def is_real(x) -> bool:
    """True for a real number that is not NaN (bools, numpy's too, and strings excluded).

    >>> is_real(0.5), is_real(2), is_real(True), is_real("0.5"), is_real(float("nan"))
    (True, True, False, False, False)
    """
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) and not math.isnan(float(x))


def one_of(value, name: str, allowed):
    """``value`` when it is one of ``allowed``; ValueError naming ``name`` and the choices
    otherwise. A bool and a number are never taken for each other (1 is not True).

    >>> one_of("mapped", "upload", ("pageable", "mapped"))
    'mapped'
    >>> one_of(1, "incremental", (True, False))
    Traceback (most recent call last):
    ...
    ValueError: incremental must be one of True, False, got 1
    """
    if not any(value == a and isinstance(value, bool) == isinstance(a, bool) for a in allowed):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {textfile.quote(value)}")
    return value


def threads(value, name: str = "block", allowed=None) -> int:
    """Threads per block: a multiple of 32 in 32..1024, or one of ``allowed`` (a kernel
    compiled for some sizes only); ValueError naming ``name`` otherwise.

    >>> threads(256), threads(7)
    Traceback (most recent call last):
    ...
    ValueError: block must be a multiple of 32 in 32..1024, got 7
    """
    if allowed is not None:
        if isinstance(value, bool) or value not in allowed:
            raise ValueError(f"{name} must be one of {', '.join(map(str, allowed))}, got {textfile.quote(value)}")
        return int(value)
    try:
        v = integer(value, name, 32, 1024)
    except ValueError:
        v = None
    if v is None or v % 32:
        raise ValueError(f"{name} must be a multiple of 32 in 32..1024, got {textfile.quote(value)}")
    return v


def power_of_two(value, name: str, lo: int = 1, hi: int = 1 << 30) -> int:
    """A power of two in ``lo..hi``; ValueError naming ``name`` otherwise.

    >>> power_of_two(64, "block", 32, 1024), power_of_two(48, "block", 32, 1024)
    Traceback (most recent call last):
    ...
    ValueError: block must be a power of two in 32..1024, got 48
    """
    try:
        v = integer(value, name, lo, hi)
    except ValueError:
        v = None
    if v is None or v & (v - 1):
        raise ValueError(f"{name} must be a power of two in {lo}..{hi}, got {textfile.quote(value)}")
    return v


def rng(seed, name: str = "seed") -> np.random.Generator:
    """The random generator of ``seed``, the one check of every instance generator's seed:
    None (fresh entropy), a non-negative integer (numpy's too; not a bool), or numpy's own
    Generator (returned as it is, so that its draws go on), SeedSequence or BitGenerator.
    Anything else (``"x"``, ``1.5``, ``-1``, ``True``) is a ValueError naming ``name``, rather
    than numpy's TypeError or a bool read as the seed 1.

    >>> int(rng(7).integers(100)) == int(np.random.default_rng(7).integers(100))
    True
    >>> rng("x")
    Traceback (most recent call last):
    ...
    ValueError: seed must be None, a non-negative integer or a numpy Generator, got 'x'
    """
    if seed is None or isinstance(seed, (np.random.Generator, np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(seed)
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0:
        return np.random.default_rng(int(seed))
    raise ValueError(f"{name} must be None, a non-negative integer or a numpy Generator, got {textfile.quote(seed)}")
