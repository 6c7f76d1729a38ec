"""Shared plots: log size axes whose labels do not overlap."""
import matplotlib

matplotlib.use("Agg")

from gpualgo import plots  # noqa: E402


def _labels(ax, minor):
    ax.figure.canvas.draw()
    ticks = ax.xaxis.get_minor_ticks() if minor else ax.xaxis.get_major_ticks()
    lo, hi = ax.get_xlim()
    return [t.label1.get_text() for t in ticks if t.label1.get_visible() and lo <= t.get_loc() <= hi]


def test_log_sizes_less_than_two_decades_are_labelled_plainly():
    rows = [dict(n=n, t=n / 10, v="a") for n in (512, 1024, 2048, 4096, 8192)]
    fig, (ax,) = plots.new_axes()
    plots.lines(ax, rows, "n", "t", "v", logx=True, logy=True)
    assert [x for x in _labels(ax, minor=False) if x] == ["512", "1024", "2048", "4096", "8192"]
    assert not [x for x in _labels(ax, minor=True) if x]


def test_log_sizes_over_many_decades_keep_powers_of_ten():
    rows = [dict(n=n, t=1.0, v="a") for n in (10, 100, 1000, 10000, 100000)]
    fig, (ax,) = plots.new_axes()
    plots.lines(ax, rows, "n", "t", "v", logx=True)
    assert not [x for x in _labels(ax, minor=True) if x]
    assert len([x for x in _labels(ax, minor=False) if x]) >= 3


def test_timeline_draws_one_lane_per_stream_and_one_legend_entry_per_step():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    spans = [dict(stream="main", step="a", start_us=0.0, end_us=2.0), dict(stream="side", step="b", start_us=1.0,
             end_us=1.5), dict(stream="main", step="b", start_us=2.0, end_us=3.0)]
    _, ax = plt.subplots()
    plots.timeline(ax, spans)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["main", "side"]
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == ["a", "b"]
    plt.close("all")
