"""The reports' findings, tested against data: one mechanism for the five notebooks.

Each source report states conclusions ("the GPU versions always beat the serial one except at
the smallest sizes"). A :class:`Finding` holds one of them, in the report's words, with where
the report says it, the result sets it needs (``"auction/exact"`` is
``data/results/auction/exact.csv``, or the same preset measured now), and a test: a function
that takes those rows and returns a :class:`Verdict` computed from them. Nothing is typed
by hand, so a rerun on another GPU updates every verdict.

A test returns ``holds(...)``, ``caveat(...)``, ``fails(...)`` or ``untestable(...)``; each
names the measurement that decided it, and the last three say why. A test that finds no rows
for a set it needs calls :func:`need`, which turns the missing set into "cannot be tested here".

>>> F = Finding("Version B is faster than version A", "report, Sec. 4", ["demo/sweep"],
...             lambda d: speedup_verdict(d, "demo/sweep"))
>>> def speedup_verdict(data, name):
...     rows = need(data, name)
...     a = median([r["ms"] for r in rows if r["variant"] == "A"])
...     b = median([r["ms"] for r in rows if r["variant"] == "B"])
...     if b < a:
...         return holds(f"B {b:.0f} ms against A {a:.0f} ms")
...     return fails(f"B {b:.0f} ms against A {a:.0f} ms", "B pays a copy that A does not")
>>> rows = [{"variant": "A", "ms": 10.0}, {"variant": "B", "ms": 4.0}]
>>> [v.verdict for v in evaluate([F], {"demo/sweep": rows})]
['holds']
>>> [v.verdict for v in evaluate([F], {})]
['cannot be tested here']
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

__all__ = ["Finding", "Verdict", "HOLDS", "CAVEAT", "FAILS", "UNTESTABLE", "VERDICTS", "holds", "caveat",
           "fails", "untestable", "not_measured", "Missing", "need", "evaluate", "table", "median", "ratio", "counts"]

HOLDS = "holds"
CAVEAT = "holds with a caveat"
FAILS = "does not hold"
UNTESTABLE = "cannot be tested here"
VERDICTS = (HOLDS, CAVEAT, FAILS, UNTESTABLE)


@dataclass(frozen=True)
class Verdict:
    """What the data say about one finding: the verdict, the measurement that decided it,
    and (for anything but ``holds``) why."""
    verdict: str
    measured: str
    why: str = ""

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, not {self.verdict!r}")
        if self.verdict != HOLDS and not self.why.strip():
            raise ValueError(f"a verdict of {self.verdict!r} must say why")


def holds(measured: str, why: str = "") -> Verdict:
    """The data agree with the finding."""
    return Verdict(HOLDS, measured, why)


def caveat(measured: str, why: str) -> Verdict:
    """The data agree with the finding only in part (at some sizes, by a smaller factor)."""
    return Verdict(CAVEAT, measured, why)


def fails(measured: str, why: str) -> Verdict:
    """The data contradict the finding; ``why`` says what we think explains it."""
    return Verdict(FAILS, measured, why)


def untestable(why: str, measured: str = "") -> Verdict:
    """No data here can decide the finding; ``why`` says what is missing."""
    return Verdict(UNTESTABLE, measured or "-", why)


def not_measured(why: str) -> Callable[[Mapping[str, list]], Verdict]:
    """The test of a finding that nothing recorded can decide (an experiment not built or
    not run): it always answers :func:`untestable` with ``why``."""
    return lambda data: untestable(why)


@dataclass(frozen=True)
class Finding:
    """One conclusion of a report and the test that confronts it with data.

    ``claim`` is the report's words (in English), ``where`` its section or figure, ``uses``
    the result sets the test reads (``"algo/preset"``), ``test`` a function
    ``test(data) -> Verdict`` where ``data`` maps those names to lists of rows."""
    claim: str
    where: str
    uses: Sequence[str]
    test: Callable[[Mapping[str, list]], Verdict]


class Missing(LookupError):
    """A result set a finding needs has no rows."""


def need(data: Mapping[str, list], name: str, **match) -> list[dict]:
    """The rows of ``data[name]`` whose columns equal ``match``; raises :class:`Missing` when
    there are none (the finding then cannot be tested here)."""
    rows = [r for r in (data.get(name) or []) if all(r.get(k) == v for k, v in match.items())]
    if not rows:
        what = f"{name}" + (f" with {match}" if match else "")
        raise Missing(f"no rows of {what} recorded")
    return rows


def median(values) -> float | None:
    """The median of the numbers among ``values`` (None and empty cells skipped), or None."""
    nums = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return statistics.median(nums) if nums else None


def ratio(a, b) -> float | None:
    """``a / b`` where both are numbers and ``b`` is not zero, else None."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def counts(flags) -> tuple[int, int]:
    """(how many of ``flags`` are true, how many there are)."""
    flags = list(flags)
    return sum(bool(f) for f in flags), len(flags)


def evaluate(findings: Sequence[Finding], data: Mapping[str, list]) -> list[Verdict]:
    """Each finding's verdict on ``data``; a finding whose rows are missing cannot be tested
    here, and says which rows it lacked."""
    out = []
    for f in findings:
        try:
            v = f.test(data)
        except Missing as exc:
            v = untestable(str(exc))
        if not isinstance(v, Verdict):
            raise TypeError(f"the test of {f.claim!r} returned {type(v).__name__}, not a Verdict")
        out.append(v)
    return out


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def table(findings: Sequence[Finding], verdicts: Sequence[Verdict],
          sources: Mapping[str, str] | None = None) -> str:
    """A Markdown table, one row per finding: the report's words and where, what our data
    measured (and from which result set), the verdict and why. ``sources`` maps a result
    set's name to where its rows came from (a file, or "measured now")."""
    sources = sources or {}
    lines = ["| The report says | Where | Our measurement | Data | Verdict |", "|---|---|---|---|---|"]
    for f, v in zip(findings, verdicts):
        used = ", ".join(sources.get(u, u) for u in f.uses) or "-"
        verdict = f"**{v.verdict}**" + (f": {v.why}" if v.why else "")
        lines.append(f"| {_cell(f.claim)} | {_cell(f.where)} | {_cell(v.measured)} | {_cell(used)} | {_cell(verdict)} |")
    tally = {k: sum(v.verdict == k for v in verdicts) for k in VERDICTS}
    lines.append("")
    lines.append(f"{len(verdicts)} findings. " + "; ".join(f"{k}: {n}" for k, n in tally.items() if n) + ".")
    return "\n".join(lines)
