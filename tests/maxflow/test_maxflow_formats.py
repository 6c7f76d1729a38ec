"""FlowNetwork construction, validation and the two file formats."""
import networkx as nx
import numpy as np
import pytest

from gpualgo import maxflow as mf


def test_merging_and_reverse_arcs():
    net = mf.from_edges(3, [0, 0, 1, 1, 2], [1, 1, 2, 0, 2], [2, 3, 4, 1, 9])
    assert net.n == 3 and net.m == 4          # pairs {0,1} and {1,2}, self loop dropped
    u, v, c = net.arcs()
    assert dict(zip(zip(u.tolist(), v.tolist()), c.tolist())) == {(0, 1): 5, (1, 0): 1, (1, 2): 4}
    assert np.all(net.rev[net.rev] == np.arange(net.m))
    assert np.all(net.heads[net.rev] == net.tails)
    for x in range(net.n):
        assert np.all(np.diff(net.heads[net.offsets[x]:net.offsets[x + 1]]) > 0)


def test_undirected_becomes_two_arcs():
    net = mf.from_edges(3, [0, 1], [1, 2], [5, 7], directed=False)
    u, v, c = net.arcs()
    assert sorted(zip(u.tolist(), v.tolist(), c.tolist())) == [(0, 1, 5), (1, 0, 5), (1, 2, 7), (2, 1, 7)]


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=1, tails=[], heads=[], capacities=[]), "at least 2"),
    (dict(n=0, tails=[], heads=[], capacities=[]), "at least 2"),
    (dict(n=3, tails=[0], heads=[1], capacities=[1], source=1, sink=1), "same vertex"),
    (dict(n=3, tails=[0], heads=[3], capacities=[1]), "out of range"),
    (dict(n=3, tails=[-1], heads=[2], capacities=[1]), "out of range"),
    (dict(n=3, tails=[0], heads=[2], capacities=[-4]), "negative capacity"),
    (dict(n=3, tails=[0], heads=[2], capacities=[1.5]), "integers"),
    (dict(n=3, tails=[0], heads=[2], capacities=[1], sink=5), "sink 5"),
    (dict(n=3, tails=[0, 0], heads=[2], capacities=[1]), "differ in length"),
    (dict(n=3, tails=[0, 0], heads=[1, 2], capacities=[2**61 + 2**60, 2**61 + 2**60]), "overflow"),
    (dict(n=3, tails=[0, 0], heads=[1, 1], capacities=[2**62, 2**62]), "merged"),
    # Python integers beyond int64 make an object array: named by their range, not the dtype
    (dict(n=3, tails=[0], heads=[2], capacities=[2**64]), r"capacities exceed 4611686018427387904"),
    (dict(n=3, tails=[0, 1], heads=[2, 2], capacities=[1, -2**70]), r"capacities exceed"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mf.from_edges(**kwargs)


def test_int32_decision():
    small = mf.from_edges(3, [0, 1], [1, 2], [10, 10])
    assert small.fits_int32()
    big = mf.from_edges(3, [0, 0, 1], [1, 2, 2], [2**30, 2**30, 5])   # source total 2^31
    assert not big.fits_int32()


def test_networkx_builder():
    g = nx.DiGraph()
    g.add_edge("s", "a", capacity=3)
    g.add_edge("a", "t", capacity=2)
    g.add_edge("s", "t", capacity=1)
    net = mf.from_networkx(g, "s", "t")
    assert mf.solve(net, "serial").flow_value == 3
    g.add_edge("a", "b")
    with pytest.raises(ValueError, match="no 'capacity'"):
        mf.from_networkx(g, "s", "t")
    with pytest.raises(ValueError, match="not a node"):
        mf.from_networkx(nx.DiGraph([(0, 1)]), 0, 7)


DIMACS = """c a small network
p max 4 5
n 1 s
c comments anywhere
n 4 t
a 1 2 3
a 1 3 2
a 2 3 1
a 2 4 2
a 3 4 3
"""


def test_dimacs_roundtrip(tmp_path):
    net = mf.parse_dimacs(DIMACS)
    assert (net.n, net.source, net.sink, net.n_input_arcs) == (4, 0, 3, 5)
    assert mf.solve(net, "serial").flow_value == 5
    path = tmp_path / "g.max"
    mf.write_dimacs(net, path, comment="written by a test")
    again = mf.read(path)
    for a, b in zip(net.arcs(), again.arcs()):
        assert np.array_equal(a, b)


def test_random_roundtrip_both_formats(tmp_path, rng):
    net = mf.random_gnp(40, 0.1, seed=int(rng.integers(1 << 30)))
    mf.write_dimacs(net, tmp_path / "g.max")
    mf.write_text(net, tmp_path / "g.txt")
    for other in (mf.read(tmp_path / "g.max"), mf.read(tmp_path / "g.txt")):
        assert other.n == net.n and other.sink == net.sink
        for a, b in zip(net.arcs(), other.arcs()):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("text, match", [
    ("", "no problem line"),
    ("p max 4\n", "line 1"),
    ("p min 4 1\n", "line 1"),
    ("c x\np max 4 1\nn 1 s\nn 4 t\na 1 5 3\n", "line 5: node id 5"),
    ("p max 4 1\nn 1 s\nn 4 t\na 1 2 -3\n", "line 4: negative"),
    ("p max 4 1\nn 1 s\nn 4 t\na 1 2 x\n", "line 4: .*integers"),
    ("p max 4 1\nn 1 s\nn 4 t\nq 1 2 3\n", "line 4: unknown"),
    ("a 1 2 3\np max 4 1\n", "line 1: arc line before"),
    ("p max 4 1\nn 1 s\nn 1 s\n", "line 3: a second source"),
    ("p max 4 1\nn 1 s\nn 9 t\n", "line 3: node id 9"),
    ("p max 4 1\nn 1 s\nn 4 x\n", "line 3"),
    ("p max 4 1\nn 1 s\na 1 2 3\n", "missing sink"),
    ("p max 4 2\nn 1 s\nn 4 t\na 1 2 3\n", "announces 2 arcs"),
    ("p max 3 1\nn 1 s\nn 1 t\na 1 2 3\n", "line 3: node 1 is both the source and the sink"),
    ("p max 4 1\nn 1 s\nn 4 t\na 1 2 99999999999999999999999\n", "line 4: capacity .*int64"),
    # just above int64, and just above the solvers' bound 2**62 (both once passed or lost the line)
    ("p max 4 1\nn 1 s\nn 4 t\na 1 2 9223372036854775808\n", "line 4: capacity"),
    ("c\np max 4 1\nn 1 s\nn 4 t\na 1 2 4611686018427387905\n", "line 5: capacity"),
    ("p max 99999999999 0\nn 1 s\nn 2 t\n", "line 1: .*int32"),
    ("p max 4 1\nn 1 s\nn 4 t\na 1 2 1_000\n", "line 4: .*integers"),
    ("p max 4 1\nn 1 s\nn 4 t\na 1 2 \u0663\n", "line 4: .*integers"),
    ("p max 4 1\np max 4 1\n", "line 2: a second problem line"),
    ("n 1 s\np max 4 1\n", "line 1: node line before"),
    ("p max 4 1\nn 1 s\nn 4 t\na 0 2 3\n", "line 4: node id 0"),
])
def test_dimacs_errors(text, match):
    with pytest.raises(ValueError, match=match):
        mf.parse_dimacs(text)



_HEAD = "p max 4 1\nn 1 s\nn 4 t\n"


def _read_fails(path, text, message):
    """Reading ``text`` from ``path`` fails with exactly ``message`` after the file's name."""
    path.write_text(text)
    with pytest.raises(ValueError) as exc:
        mf.read(path)
    assert str(exc.value) == f"{path}: {message}"


@pytest.mark.parametrize("text, message", [
    ("a 1 2 3\np max 4 1\n", "line 1: arc line before the problem line 'p max ...'"),
    (_HEAD + "a 1  2\n", "line 4: expected 'a TAIL HEAD CAPACITY', got 'a 1  2'"),
    (_HEAD + "a 1 x 3\n", "line 4: TAIL, HEAD and CAPACITY must be integers, got '1 x 3': 'x' is not an integer "
     "(ASCII digits 0-9 with an optional sign)"),
    (_HEAD + "a 5 0 3\n", "line 4: node id 5 out of range 1..4"),
    (_HEAD + "a 1 0 3\n", "line 4: node id 0 out of range 1..4"),
    (_HEAD + "a 1 2 -3\n", "line 4: negative capacity -3"),
])
def test_dimacs_arc_line_errors_exactly(tmp_path, text, message):
    _read_fails(tmp_path / "n.max", text, message)


@pytest.mark.parametrize("text, message", [
    ("e 0 1 2\nn 3\n", "line 1: edge line before 'n NODES'"),
    ("n 3\ne 0 1 2 3\n", "line 2: expected 'e U V CAPACITY', got 'e 0 1 2 3'"),
    ("n 3\ne 0 y 2\n", "line 2: U, V and CAPACITY must be integers, got '0 y 2': 'y' is not an integer "
     "(ASCII digits 0-9 with an optional sign)"),
    ("n 3\ne 3 -1 2\n", "line 2: node id 3 out of range 0..2"),
    ("n 3\ne 0 -1 2\n", "line 2: node id -1 out of range 0..2"),
    ("n 3\n\ne 0 1 -2\n", "line 3: negative capacity -2"),
])
def test_text_edge_line_errors_exactly(tmp_path, text, message):
    _read_fails(tmp_path / "n.txt", text, message)


def test_dimacs_odd_but_valid_layouts():
    # comments and blank lines anywhere, CRLF and tabs, node lines after the arcs,
    # duplicate arcs (merged), a self loop (dropped), arcs into the source and out of the sink
    text = ("\r\nc head\r\n\r\np\tmax 5 8\r\na 1 2 4\na 1 2 3\nc middle\n\na 2 2 9\na 2 5 5\n"
            "a 3 1 7\na 5 3 6\na 1 5 1\na 4 4 2\nn 5 t\nn 1 s\nc tail\n")
    net = mf.parse_dimacs(text)
    assert (net.n, net.source, net.sink) == (5, 0, 4)
    u, v, c = net.arcs()
    assert dict(zip(zip(u.tolist(), v.tolist()), c.tolist())) == {(0, 1): 7, (1, 4): 5, (2, 0): 7, (4, 2): 6, (0, 4): 1}
    r = mf.solve(net, "serial")
    assert r.flow_value == mf.reference_value(net) == 6
    mf.check_cut(net, r.source_side, r.flow_value)


def test_dimacs_lines_are_counted_as_an_editor_counts_them(tmp_path):
    # before: str.splitlines() also broke lines at a form feed, U+0085 and U+2028, so the
    # errors after one named the wrong line, and the rest of a comment became a line of data
    with pytest.raises(ValueError, match=r"^line 5: node id 5"):
        mf.parse_dimacs("c page\x0c\np max 4 1\nn 1 s\nn 4 t\na 1 5 3\n")
    for sep in ("\x85", "\u2028", "\x0c", "\x1e"):
        net = mf.parse_dimacs(f"p max 4 1\nn 1 s\nn 4 t\nc note{sep}a 1 4 100\na 1 2 3\n")
        assert net.n_input_arcs == 1 and mf.solve(net, "serial").flow_value == 0
    net = mf.parse_text("n 3\n# see\u2028e 0 2 9\ne 0 1 4\n")
    assert net.n_input_arcs == 1
    # old Mac line ends still end lines, and the line of a bad byte is counted the same way
    assert mf.parse_dimacs("p max 2 1\rn 1 s\rn 2 t\ra 1 2 5").n_input_arcs == 1
    p = tmp_path / "cr.max"
    p.write_bytes(b"c a\rc b\r\nc caf\xe9\n")
    with pytest.raises(ValueError, match=r"cr\.max: line 3: not UTF-8"):
        mf.read(p)


def test_dimacs_byte_order_mark_and_comment_lines(tmp_path):
    # a UTF-8 file saved with a byte-order mark, and comment lines with no space after the c
    # (the format's comment lines only begin with c): both were refused as unknown line types
    p = tmp_path / "bom.max"
    p.write_bytes("\ufeffc---------\ncomment\np max 2 1\nn 1 s\nn 2 t\na 1 2 5\n".encode())
    assert mf.solve(mf.read(p), "serial").flow_value == 5
    q = tmp_path / "bom.txt"
    q.write_bytes("\ufeffn 2\ne 0 1 4\n".encode())
    assert mf.solve(mf.read(q), "serial").flow_value == 4


def test_parsers_take_text_only():
    # before: a path or bytes given to a parser ended in an AttributeError, or 'unknown line type b'p''
    import pathlib
    for parse in (mf.parse_dimacs, mf.parse_text):
        for wrong in (pathlib.Path("g.max"), b"p max 2 0\nn 1 s\nn 2 t\n", None):
            with pytest.raises(TypeError, match=r"takes the file's text as a str.*read_dimacs"):
                parse(wrong)


def test_numbers_too_long_for_python_name_their_line():
    # before: Python's limit on converting 4300 digits raised a ValueError naming no line
    digits = "7" * 5000
    with pytest.raises(ValueError, match=r"^line 4: TAIL, HEAD and CAPACITY must be integers, got .* has more than 100 digits"):
        mf.parse_dimacs(f"p max 4 1\nn 1 s\nn 4 t\na 1 2 {digits}\n")
    with pytest.raises(ValueError, match=r"^line 1: NODES must be integers, got .* has more than 100 digits"):
        mf.parse_text(f"n {digits}\n")


def test_unreachable_sink_and_no_arcs_are_not_errors():
    for net in (mf.parse_dimacs("p max 3 1\nn 1 s\nn 3 t\na 3 1 5\n"), mf.parse_dimacs("p max 2 0\nn 2 s\nn 1 t\n"),
                mf.parse_text("n 4\ne 0 1 3\ne 3 2 9\n")):
        r = mf.solve(net, "serial")
        assert r.flow_value == mf.reference_value(net) == 0
        assert r.source_side[net.source] and not r.source_side[net.sink]
        assert mf.check_cut(net, r.source_side, 0) == 0


def test_capacity_bound_is_exact():
    # 2**62 + 1 rounds to 2**62 in float64: the bound must still hold exactly
    with pytest.raises(ValueError, match="capacity"):
        mf.from_edges(2, [0], [1], [2**62 + 1])
    with pytest.raises(ValueError, match="merged"):
        mf.from_edges(3, [0, 0], [1, 1], [2**61, 2**61 + 1])
    with pytest.raises(ValueError, match="leaving the source"):
        mf.from_edges(3, [0, 0], [1, 2], [2**61, 2**61 + 1])
    assert mf.from_edges(3, [0, 0], [1, 2], [2**61, 2**61]).source_capacity() == 2**62


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=2.5, tails=[0], heads=[1], capacities=[1]), "n must be an integer"),
    (dict(n=3, tails=[0], heads=[1], capacities=[1], source=0.5), "source must be an integer"),
    (dict(n=2**31, tails=[0], heads=[1], capacities=[1]), "int32"),
])
def test_bad_sizes_and_terminals(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mf.from_edges(**kwargs)


def test_text_format_refuses_other_terminals(tmp_path):
    net = mf.washington_rlg(3, 2, seed=1)          # source n-2, sink n-1
    with pytest.raises(ValueError, match="write_dimacs"):
        mf.write_text(net, tmp_path / "w.txt")
    assert not (tmp_path / "w.txt").exists()
    mf.write_dimacs(net, tmp_path / "w.MAX")            # the extension in any case
    again = mf.read(tmp_path / "w.MAX")
    assert (again.source, again.sink) == (net.source, net.sink)


def test_text_format():
    net = mf.parse_text("n 3\n# comment\ne 0 1 4\ne 1 2 3\n")
    assert net.source == 0 and net.sink == 2
    assert mf.solve(net, "serial").flow_value == 3
    for text, match in [("", "no 'n NODES'"), ("e 0 1 2\n", "line 1"), ("n 3\ne 0 3 1\n", "line 2: node id 3"),
                        ("n 3\ne 0 1\n", "line 2"), ("n 3\nn 4\n", "line 2"), ("n 3\nx\n", "line 2: unknown"),
                        ("n 3\ne 0 1 -1\n", "line 2: negative"), ("n 1\n", "line 1"),
                        ("n 3\ne 0 1 9223372036854775808\n", "line 2: capacity"),
                        ("n 3\n\ne 0 1 4611686018427387905\n", "line 3: capacity"),
                        ("n 3\ne 0 1 2.0\n", "line 2: .*integers"), ("n 3000000000\n", "line 1: .*int32")]:
        with pytest.raises(ValueError, match=match):
            mf.parse_text(text)


def test_shipped_instances():
    import pathlib
    folder = pathlib.Path(__file__).resolve().parents[2] / "data" / "instances" / "maxflow"
    files = sorted(folder.glob("*.max")) + sorted(folder.glob("*.txt"))
    assert len(files) >= 4
    for path in files:
        net = mf.read(path)
        r = mf.solve(net, "serial")
        assert r.flow_value == mf.reference_value(net) > 0
        mf.check_cut(net, r.source_side, r.flow_value)


def test_draw_smoke():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from gpualgo.maxflow import draw
    net = mf.random_gnp(7, 0.4, seed=2, low=1, high=9)
    r = mf.solve(net, "serial")
    fig, ax = plt.subplots()
    draw.draw_network(ax, net, r.source_side, r.flow, title="t")
    from matplotlib.colors import to_rgba
    red = [p for p in ax.patches if p.get_edgecolor() == to_rgba("tab:red")]
    plt.close(fig)
    crossing = r.source_side[net.tails] & ~r.source_side[net.heads] & (net.capacity > 0)
    assert len(ax.patches) == net.n_input_arcs          # one arrow per arc
    assert len(red) == int(crossing.sum()) >= 1          # the cut arcs in red
