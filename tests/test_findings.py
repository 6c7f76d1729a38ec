"""The shared findings mechanism (gpualgo.findings) and its notebook helper."""
import pytest

from gpualgo import findings as F
from gpualgo import nbtools


def _faster(data):
    rows = F.need(data, "demo/sweep")
    a = F.median(r["ms"] for r in rows if r["variant"] == "A")
    b = F.median(r["ms"] for r in rows if r["variant"] == "B")
    return F.holds(f"B {b} ms, A {a} ms") if b < a else F.fails(f"B {b} ms, A {a} ms", "B copies more")


CLAIM = F.Finding("B beats A", "Sec. 1", ["demo/sweep"], _faster)


def test_verdicts_follow_the_data_both_ways():
    fast = [{"variant": "A", "ms": 10.0}, {"variant": "B", "ms": 4.0}, {"variant": "B", "ms": 6.0}]
    slow = [{"variant": "A", "ms": 1.0}, {"variant": "B", "ms": 4.0}]
    assert F.evaluate([CLAIM], {"demo/sweep": fast})[0] == F.holds("B 5.0 ms, A 10.0 ms")
    v = F.evaluate([CLAIM], {"demo/sweep": slow})[0]
    assert v.verdict == F.FAILS and v.why == "B copies more"


def test_missing_rows_make_a_finding_untestable_and_say_which():
    v = F.evaluate([CLAIM], {"other/sweep": [{"x": 1}]})[0]
    assert v.verdict == F.UNTESTABLE and "demo/sweep" in v.why
    with pytest.raises(F.Missing, match="with {'n': 3}"):
        F.need({"demo/sweep": [{"n": 2}]}, "demo/sweep", n=3)


def test_a_verdict_other_than_holds_must_say_why_and_name_a_known_verdict():
    with pytest.raises(ValueError, match="must say why"):
        F.fails("1 ms", "")
    with pytest.raises(ValueError, match="verdict must be one of"):
        F.Verdict("maybe", "1 ms")
    with pytest.raises(TypeError, match="not a Verdict"):
        F.evaluate([F.Finding("x", "y", [], lambda d: "holds")], {})


def test_table_has_one_row_per_finding_and_a_tally():
    other = F.Finding("C | D", "Fig. 2", [], lambda d: F.untestable("needs 2014 hardware"))
    verdicts = F.evaluate([CLAIM, other], {"demo/sweep": [{"variant": "A", "ms": 2.0}, {"variant": "B", "ms": 1.0}]})
    text = F.table([CLAIM, other], verdicts, {"demo/sweep": "`demo/sweep.csv`"})
    lines = text.splitlines()
    assert lines[2].startswith("| B beats A | Sec. 1 | B 1.0 ms, A 2.0 ms | `demo/sweep.csv` | **holds** |")
    assert "C \\| D" in lines[3] and "needs 2014 hardware" in lines[3]
    assert lines[-1] == "2 findings. holds: 1; cannot be tested here: 1."


def test_helpers():
    assert F.median([None, "", 3, 1, True]) == 2.0 and F.median([]) is None
    assert F.ratio(6, 3) == 2 and F.ratio(1, 0) is None and F.ratio(None, 1) is None
    assert F.counts([True, False, 1]) == (2, 3)
    assert F.not_measured("needs a run on 2014 hardware")({"x/y": [{"n": 1}]}) == F.untestable("needs a run on 2014 hardware")


def test_notebook_helper_reads_recorded_sets_and_prefers_given_rows(monkeypatch):
    shown = []
    monkeypatch.setattr(nbtools, "_display_markdown", shown.append)
    recorded = F.Finding("recorded", "-", ["auction/exact"], lambda d: F.holds(f"{len(F.need(d, 'auction/exact'))} rows"))
    never = F.Finding("never recorded", "-", ["auction/no_such_preset"], lambda d: F.need(d, "auction/no_such_preset"))
    rows, sources = nbtools.findings_data([recorded, never])
    assert len(rows["auction/exact"]) > 10 and "auction/exact.csv" in sources["auction/exact"]
    assert "auction/no_such_preset" not in rows
    given = nbtools.findings_data([recorded], {"auction/exact": ([{"n": 1}], "measured now")})
    assert given == ({"auction/exact": [{"n": 1}]}, {"auction/exact": "measured now"})
    verdicts = nbtools.show_findings([recorded, never])
    assert [v.verdict for v in verdicts] == [F.HOLDS, F.UNTESTABLE]
    assert len(shown) == 1 and "| never recorded |" in shown[0] and "no rows of auction/no_such_preset" in shown[0]
