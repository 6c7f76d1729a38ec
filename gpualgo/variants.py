"""The check every problem's ``solve`` makes first: a known variant, and only its options."""
from __future__ import annotations

__all__ = ["check"]


def check(variant, variants, options=(), accepted=None, what: str = ""):
    """Raise ValueError unless ``variant`` is one of ``variants`` and every name in ``options``
    is one of ``accepted[variant]`` (``accepted`` None: no option check).

    >>> check("gpu", ("serial", "gpu"), {"block": 256}, {"serial": set(), "gpu": {"block"}})
    >>> check("gpu", ("serial", "gpu"), {"blocks": 256}, {"serial": set(), "gpu": {"block"}})
    Traceback (most recent call last):
    ...
    ValueError: unknown option(s) ['blocks'] for gpu; it takes ['block']
    """
    if variant not in variants:
        raise ValueError(f"unknown variant {variant!r}{' of ' + what if what else ''}; known: {list(variants)}")
    if accepted is not None:
        unknown = set(options) - set(accepted[variant])
        if unknown:
            raise ValueError(f"unknown option(s) {sorted(unknown)} for {variant}; "
                             f"it takes {sorted(accepted[variant]) or 'none'}")
