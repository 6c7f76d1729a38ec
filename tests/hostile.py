"""What the hostile-input tests of every problem share (tests/*/test_*_hostile.py).

A hostile input must end in a valid answer or in one of :data:`DOCUMENTED`, with a message;
a refusal of an absurd size must come at once, before anything large is allocated.
"""
import time
import tracemalloc
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

#: the exceptions a bad input may end in (each with a message)
DOCUMENTED = (ValueError, TypeError, FileNotFoundError)

#: hypothesis settings of every property test: a hundred examples, each within 60 s, every
#: health check off (the inputs are meant to be odd). The deadline is the one bound on how long
#: an input may take: a hang or an absurd run fails, while a first call that compiles a serial
#: version on a busy two-core machine does not (a tighter wall-clock assert did, at 6 s)
FAST = settings(max_examples=100, deadline=timedelta(seconds=60), suppress_health_check=list(HealthCheck))


def refused(call, match=None, seconds=1.0, most_bytes=16 * 2**20, error=ValueError) -> str:
    """``call()`` raises ``error`` (matching ``match``) with a message within ``seconds``,
    having allocated at most ``most_bytes`` (numpy's arrays are traced too); returns the
    message."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(error, match=match) as info:
            call()
    finally:
        took = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert took < seconds, f"refused only after {took:.2f} s"
    assert peak < most_bytes, f"allocated {peak / 2**20:.0f} MiB before refusing"
    assert str(info.value).strip(), f"{error.__name__} without a message"
    return str(info.value)


def documented(exc: BaseException) -> None:
    """The exception a hostile input ended in is documented and has a message."""
    assert isinstance(exc, DOCUMENTED), f"{type(exc).__name__}: {exc}"
    assert str(exc).strip(), f"{type(exc).__name__} without a message"


def answer_or_refusal(f, check=None):
    """``f()``'s answer, checked by ``check``, or None when it refused with a documented
    exception. ``check`` fails by raising, or by returning False (a predicate such as
    ``lambda s: s >= 0`` counts too)."""
    try:
        out = f()
    except DOCUMENTED as exc:
        documented(exc)
        return None
    if check is not None:
        verdict = check(out)
        assert not isinstance(verdict, (bool, np.bool_)) or verdict, f"the answer failed its check: {out!r}"
    return out


@st.composite
def mutated(draw, valid, tokens, most_junk=5):
    """One of the ``valid`` file texts (a string or a strategy of strings), truncated, with
    lines dropped, repeated, or with tokens replaced by ``tokens`` (a strategy)."""
    text = draw(valid) if isinstance(valid, st.SearchStrategy) else valid
    lines = text.splitlines()
    for _ in range(draw(st.integers(0, 4))):
        how = draw(st.sampled_from(["drop", "dup", "token", "truncate", "junk"]))
        if not lines:
            break
        k = draw(st.integers(0, len(lines) - 1))
        if how == "drop":
            del lines[k]
        elif how == "dup":
            lines.insert(k, lines[k])
        elif how == "token":
            parts = lines[k].split() or [""]
            parts[draw(st.integers(0, len(parts) - 1))] = draw(tokens)
            lines[k] = " ".join(parts)
        elif how == "truncate":
            lines[k] = lines[k][:draw(st.integers(0, len(lines[k])))]
            lines = lines[:k + 1]
        else:
            lines.insert(k, " ".join(draw(st.lists(tokens, max_size=most_junk))))
    return "\n".join(lines) + "\n"


def quick(f, *args, **kwargs) -> str:
    """``f(*args, **kwargs)`` is refused with a ValueError at once (see :func:`refused`)."""
    return refused(lambda: f(*args, **kwargs))
