"""TSPLIB reader and writer: every explicit format, the coordinate distances, errors."""
import re

import numpy as np
import pytest

from gpualgo import tsp
from gpualgo.tsp import tsplib

FORMATS = tsplib.FORMATS


def _write_explicit(path, d, fmt, kind="TSP"):
    """Write an explicit-weight file by hand (independently of write_tsplib)."""
    n = d.shape[0]
    if fmt == "FULL_MATRIX":
        vals = [d[i, j] for i in range(n) for j in range(n)]
    else:
        upper = "UPPER" in fmt
        diag = "DIAG" in fmt
        by_col = fmt.endswith("COL")
        vals = []
        for a in range(n):
            for b in range(n):
                i, j = (b, a) if by_col else (a, b)
                if (i < j if upper else i > j) or (diag and i == j):
                    vals.append(d[i, j])
    # a ragged layout: the reader must not care about line breaks
    chunks = [" ".join(str(v) for v in vals[s:s + 5]) for s in range(0, len(vals), 5)]
    path.write_text(f"NAME: t\nTYPE: {kind}\nCOMMENT : hand made\nDIMENSION: {n}\n"
                    f"EDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: {fmt}\n"
                    "EDGE_WEIGHT_SECTION\n" + "\n".join(chunks) + "\nEOF\n")


@pytest.mark.parametrize("fmt", FORMATS)
def test_read_every_explicit_format(fmt, tmp_path, rng):
    n = int(rng.integers(2, 9))
    a = rng.integers(0, 1000, size=(n, n))
    d = np.triu(a, 1) + np.triu(a, 1).T
    p = tmp_path / "x.tsp"
    _write_explicit(p, d, fmt)
    inst = tsp.read_tsplib(p)
    np.testing.assert_array_equal(inst.dist, d)
    assert inst.name == "t" and inst.comment == "hand made" and inst.kind == "TSP"


def test_read_atsp_full_matrix(tmp_path, rng):
    d = rng.integers(1, 50, size=(6, 6))
    np.fill_diagonal(d, 9999)      # TSPLIB files often put a large value on the diagonal
    p = tmp_path / "x.atsp"
    _write_explicit(p, d, "FULL_MATRIX", kind="ATSP")
    inst = tsp.read_tsplib(p)
    want = d.copy()
    np.fill_diagonal(want, 0)
    np.testing.assert_array_equal(inst.dist, want)
    assert inst.kind == "ATSP"


@pytest.mark.parametrize("fmt", FORMATS)
def test_write_read_round_trip(fmt, tmp_path, rng):
    inst = tsp.random_graph(7, density=0.7, seed=int(rng.integers(2**31)))
    p = tmp_path / "g.tsp"
    tsp.write_tsplib(inst, p, fmt=fmt, missing=10**6)
    back = tsp.read_tsplib(p, missing=10**6)
    np.testing.assert_array_equal(back.dist, inst.dist)


def test_write_needs_missing_weight(tmp_path):
    inst = tsp.random_graph(6, density=0.3, seed=1)
    assert inst.has_missing
    with pytest.raises(ValueError, match="missing"):
        tsp.write_tsplib(inst, tmp_path / "g.tsp")


def test_asymmetric_round_trip_and_triangular_refused(tmp_path, rng):
    inst = tsp.random_asymmetric(6, seed=int(rng.integers(2**31)))
    p = tmp_path / "a.atsp"
    tsp.write_tsplib(inst, p)
    np.testing.assert_array_equal(tsp.read_tsplib(p).dist, inst.dist)
    with pytest.raises(ValueError, match="symmetric"):
        tsp.write_tsplib(inst, p, fmt="UPPER_ROW")


def test_euclidean_written_as_coordinates(tmp_path, rng):
    inst = tsp.random_euclidean(9, seed=int(rng.integers(2**31)))
    p = tmp_path / "e.tsp"
    tsp.write_tsplib(inst, p)
    assert "NODE_COORD_SECTION" in p.read_text()
    back = tsp.read_tsplib(p)
    np.testing.assert_array_equal(back.dist, inst.dist)
    np.testing.assert_allclose(back.coords, inst.coords)



_FIVE = np.array([[0, 4, -1, 2, 7], [4, 0, 3, -1, 1], [-1, 3, 0, 5, 9], [2, -1, 5, 0, 6], [7, 1, 9, 6, 0]])
_FIVE_XY = np.array([[0, 0], [1, 0.5], [2, 1], [3, 2], [4, -1.5]])
_THREE_XY = np.array([[0.5, 1.25], [3.0, 4.0], [7.1, 2.2]])


@pytest.mark.parametrize("make, kwargs, text", [
    # coordinates that reproduce the distances; a comment of several lines joined
    (lambda: tsp.TSPInstance(dist=tsp.coord_distances(_THREE_XY, "EUC_2D"), coords=_THREE_XY,
                             edge_weight_type="EUC_2D", name="three", comment="two\n  lines"), {},
     "NAME : three\nTYPE : TSP\nCOMMENT : two lines\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\n"
     "NODE_COORD_SECTION\n1 0.5 1.25\n2 3 4\n3 7.1 2.2\nEOF\n"),
    # missing edges: the stand-in named in the comment, 16 weights a line, the coordinates
    # as display data
    (lambda: tsp.TSPInstance(dist=_FIVE, coords=_FIVE_XY, name="five", comment="hand  made"),
     dict(missing=100),
     "NAME : five\nTYPE : TSP\nCOMMENT : hand made (missing edges written as 100)\nDIMENSION : 5\n"
     "EDGE_WEIGHT_TYPE : EXPLICIT\nEDGE_WEIGHT_FORMAT : FULL_MATRIX\nDISPLAY_DATA_TYPE : TWOD_DISPLAY\n"
     "EDGE_WEIGHT_SECTION\n0 4 100 2 7 4 0 3 100 1 100 3 0 5 9 2\n100 5 0 6 7 1 9 6 0\n"
     "DISPLAY_DATA_SECTION\n1 0 0\n2 1 0.5\n3 2 1\n4 3 2\n5 4 -1.5\nEOF\n"),
    (lambda: tsp.TSPInstance(dist=_FIVE, coords=_FIVE_XY, name="five", comment="hand  made"),
     dict(missing=100, fmt="LOWER_DIAG_COL"),
     "NAME : five\nTYPE : TSP\nCOMMENT : hand made (missing edges written as 100)\nDIMENSION : 5\n"
     "EDGE_WEIGHT_TYPE : EXPLICIT\nEDGE_WEIGHT_FORMAT : LOWER_DIAG_COL\nDISPLAY_DATA_TYPE : TWOD_DISPLAY\n"
     "EDGE_WEIGHT_SECTION\n0 4 100 2 7 0 3 100 1 0 5 9 0 6 0\n"
     "DISPLAY_DATA_SECTION\n1 0 0\n2 1 0.5\n3 2 1\n4 3 2\n5 4 -1.5\nEOF\n"),
    # asymmetric, no comment
    (lambda: tsp.TSPInstance(dist=np.array([[0, 1, 2], [3, 0, 4], [5, 6, 0]]), name="asym"), {},
     "NAME : asym\nTYPE : ATSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
     "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n0 1 2 3 0 4 5 6 0\nEOF\n"),
])
def test_written_text_exactly(tmp_path, make, kwargs, text):
    p = tsp.write_tsplib(make(), tmp_path / "w.tsp", **kwargs)
    assert (tmp_path / "w.tsp").read_bytes() == text.encode()
    assert p == str(tmp_path / "w.tsp")

def test_coordinate_distances_by_hand():
    c = np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0], [1.5, 0.0], [10.0, 0.0], [0.0, 30.0]])
    euc = tsp.coord_distances(c, "EUC_2D")
    assert euc[0, 1] == 5 and euc[0, 2] == 1 and euc[0, 3] == 2      # nint(1.5) = 2
    ceil = tsp.coord_distances(c, "CEIL_2D")
    assert ceil[0, 2] == 2 and ceil[0, 1] == 5
    att = tsp.coord_distances(c, "ATT")
    # sqrt(100/10) = 3.16 -> nint 3 < 3.16 -> 4;  sqrt(900/10) = 9.49 -> 10;  sqrt(2/10) -> 1
    assert att[0, 4] == 4 and att[0, 5] == 10 and att[0, 2] == 1
    assert tsp.coord_distances(c, "MAN_2D")[0, 1] == 7
    assert tsp.coord_distances(c, "MAX_2D")[0, 1] == 4


def test_geo_reproduces_burma14():
    # the 14 cities of TSPLIB's burma14 (DDD.MM coordinates); published optimum 3323
    c = np.array([[16.47, 96.10], [16.47, 94.44], [20.09, 92.54], [22.39, 93.37],
                  [25.23, 97.24], [22.00, 96.05], [20.47, 97.02], [17.20, 96.29],
                  [16.30, 97.38], [14.05, 98.12], [16.53, 97.38], [21.52, 95.59],
                  [19.41, 97.13], [20.09, 94.55]])
    d = tsp.coord_distances(c, "GEO")
    assert d[0, 1:5].tolist() == [153, 510, 706, 966]
    assert tsp.solve(d, variant="held_karp").length == 3323


def test_geo_file(tmp_path):
    p = tmp_path / "g.tsp"
    p.write_text("NAME : g\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : GEO\n"
                 "NODE_COORD_SECTION\n1 16.47 96.10\n3 20.09 92.54\n2 16.47 94.44\nEOF\n")
    inst = tsp.read_tsplib(p)
    assert inst.dist[0, 1] == 153 and inst.dist[0, 2] == 510


@pytest.mark.parametrize("body, line, match", [
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 2\nEOF\n", 8, "values"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 abc 3\nEOF\n", 7, "not a number"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 2.5 3\nEOF\n", 7, "integers"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 -2 3\nEOF\n", 7, "negative"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 2 3 4\nEOF\n", 7, "more than"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "WEIRD\nEDGE_WEIGHT_SECTION\n1 2 3\nEOF\n", 5, "EDGE_WEIGHT_FORMAT"),
    ("NAME: x\nTYPE: CVRP\nDIMENSION: 3\n", 2, "TYPE"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: three\n", 3, "DIMENSION"),
    ("NAME: x\nTYPE: TSP\nBOGUS: 1\n", 3, "unknown keyword"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n"
     "1 0 0\n1 3 4\nEOF\n", 7, "twice"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n"
     "1 0 0\n5 3 4\nEOF\n", 7, "outside"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n"
     "1 0 0\n2 3\nEOF\n", 7, "expected"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: XRAY1\nNODE_COORD_SECTION\n"
     "1 0 0\n2 3 4\nEOF\n", 4, "not supported"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "FULL_MATRIX\nEDGE_WEIGHT_SECTION\n0 1 2\n3 0 4\n2 4 0\nEOF\n", 2, "not symmetric"),
    ("NAME: x\nTYPE: ATSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 2 3\nEOF\n", 5, "FULL_MATRIX"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nFIXED_EDGES_SECTION\n1 2\n-1\nEOF\n", 6, "not supported"),
    ("NAME: x\nTYPE: HCP\nDIMENSION: 3\nEDGE_DATA_FORMAT: EDGE_LIST\nEDGE_DATA_SECTION\n1 2\n-1\nEOF\n",
     5, "EDGE_DATA_SECTION is not supported"),
    # a second section of the same kind was read over the first
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 2 3\nEDGE_WEIGHT_SECTION\n4 5 6\nEOF\n", 8,
     r"EDGE_WEIGHT_SECTION given twice \(first on line 6\)"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\n"
     "NODE_COORD_SECTION\n1 0 0\n2 6 8\nEOF\n", 8, "NODE_COORD_SECTION given twice"),
    # 3-D coordinates under a 2-D type gave 3-D distances, and the other way round
    ("NAME: x\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_TYPE: THREED_COORDS\n"
     "NODE_COORD_SECTION\n1 0 0 0\n2 3 4 12\nEOF\n", 5, "THREED_COORDS but EDGE_WEIGHT_TYPE EUC_2D takes 2"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 2\nNODE_COORD_SECTION\n1 0 0\n2 3 4\nEDGE_WEIGHT_TYPE: MAN_3D\nEOF\n",
     7, r"MAN_3D takes 3 coordinates per city"),
    # more data than DIMENSION announces
    ("NAME: x\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\n"
     "3 6 0\nEOF\n", 8, r"data outside any section: '3 6 0' \(more nodes or weights than DIMENSION 2"),
    ("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: "
     "UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 2\n3\n4\nEOF\n", 9, "data outside any section"),
])
def test_malformed_files_name_the_line(tmp_path, body, line, match):
    p = tmp_path / "bad.tsp"
    p.write_text(body)
    with pytest.raises(tsp.TSPLIBError, match=match) as exc:
        tsp.read_tsplib(p)
    assert f"line {line}:" in str(exc.value)


def test_empty_file_says_so(tmp_path):
    for text in ("", "\n  \r\n\t\n"):
        p = tmp_path / "empty.tsp"
        p.write_text(text)
        with pytest.raises(tsp.TSPLIBError, match=r"empty\.tsp: the file is empty"):
            tsp.read_tsplib(p)


def test_byte_order_mark_crlf_tabs_and_lower_case(tmp_path):
    p = tmp_path / "bom.tsp"
    p.write_bytes(b"\xef\xbb\xbfname:\tbom \r\ntype tsp\r\nDIMENSION :3\r\nEdge_Weight_Type:\tman_2d  \r\n"
                  b"node_coord_section\r\n1\t0 0\r\n2 3\t4 \r\n3 6 0\r\n")
    inst = tsp.read_tsplib(p)
    assert inst.name == "bom" and inst.dist.tolist() == [[0, 7, 6], [7, 0, 7], [6, 7, 0]]


def test_a_comment_keeps_a_form_feed_or_a_unicode_line_separator(tmp_path):
    # str.splitlines() made the rest of the comment a line of its own: "unknown keyword"
    p = tmp_path / "c.tsp"
    p.write_text("NAME: c\nTYPE: TSP\nCOMMENT: from\u2028a spreadsheet\x0cpage 2\nDIMENSION: 3\n"
                 "EDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\n3 x 0\nEOF\n", encoding="utf-8")
    with pytest.raises(tsp.TSPLIBError, match=rf"^{re.escape(str(p))}: line 9: 'x' is not a number"):
        tsp.read_tsplib(p)
    p.write_text(p.read_text(encoding="utf-8").replace("3 x 0", "3 6 0"), encoding="utf-8")
    inst = tsp.read_tsplib(p)
    assert inst.comment == "from\u2028a spreadsheet\x0cpage 2" and inst.dist.tolist() == [[0, 5, 6], [5, 0, 5], [6, 5, 0]]


def test_display_data_is_two_dimensional_under_3d_coordinates(tmp_path):
    p = tmp_path / "d3.tsp"
    p.write_text("NAME: d3\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_3D\nDISPLAY_DATA_TYPE: TWOD_DISPLAY\n"
                 "NODE_COORD_SECTION\n1 0 0 0\n2 2 3 6\n3 0 0 5\n"
                 "DISPLAY_DATA_SECTION\n1 10 10\n2 20 10\n3 15 20\nEOF\n")
    inst = tsp.read_tsplib(p)
    assert inst.dist.tolist() == [[0, 7, 5], [7, 0, 4], [5, 4, 0]]
    assert inst.coords.tolist() == [[10, 10], [20, 10], [15, 20]]


#: two TSPLIB instances as published (gr17's weights wrapped anew), with their published optima
_GR17 = """0 633 0 257 390 0 91 661 228 0 412 227 169 383 0 150 488 112 120 267 0 80 572 196 77 351 63 0 134
530 154 105 309 34 29 0 259 555 372 175 338 264 232 249 0 505 289 262 476 196 360 444 402 495 0 353 282
110 324 61 208 292 250 352 154 0 324 638 437 240 421 329 297 314 95 578 435 0 70 567 191 27 346 83 47 68
189 439 287 254 0 211 466 74 182 243 105 150 108 326 336 184 391 145 0 268 420 53 239 199 123 207 165
383 240 140 448 202 57 0 246 745 472 237 528 364 332 349 202 685 542 157 289 426 483 0 121 518 142 84
297 35 29 36 236 390 238 301 55 96 153 336 0"""
_ULYSSES16 = ("38.24 20.42, 39.57 26.15, 40.56 25.32, 36.26 23.12, 33.48 10.54, 37.56 12.19, 38.42 13.11, "
              "37.52 20.44, 41.23 9.10, 41.17 13.05, 36.08 -5.21, 38.47 15.13, 38.15 15.35, 37.51 15.17, "
              "35.49 14.32, 39.36 19.56")


@pytest.mark.parametrize("text, optimum", [
    ("NAME: gr17\nTYPE: TSP\nCOMMENT: 17-city problem (Groetschel)\nDIMENSION: 17\nEDGE_WEIGHT_TYPE: EXPLICIT\n"
     "EDGE_WEIGHT_FORMAT: LOWER_DIAG_ROW\nEDGE_WEIGHT_SECTION\n" + _GR17 + "\nEOF\n", 2085),
    # GEO with a negative coordinate: degrees are truncated towards zero, as TSPLIB's code does
    ("NAME: ulysses16.tsp\nTYPE: TSP\nDIMENSION: 16\nEDGE_WEIGHT_TYPE: GEO\nDISPLAY_DATA_TYPE: COORD_DISPLAY\n"
     "NODE_COORD_SECTION\n" + "\n".join(f" {i + 1} {xy}" for i, xy in enumerate(_ULYSSES16.split(", ")))
     + "\nEOF\n", 6859),
])
def test_published_instances_reach_their_optima(tmp_path, text, optimum):
    p = tmp_path / "pub.tsp"
    p.write_text(text)
    inst = tsp.read_tsplib(p)
    r = tsp.solve(inst, variant="held_karp")
    assert r.length == optimum == tsp.tour_length(inst, r.tour)


def test_write_takes_a_matrix_and_keeps_the_name_on_its_line(tmp_path):
    p = tsp.write_tsplib(np.array([[0, 3, 4], [3, 0, 5], [4, 5, 0]]), tmp_path / "m.tsp")
    assert tsp.read_tsplib(p).dist.tolist() == [[0, 3, 4], [3, 0, 5], [4, 5, 0]]
    inst = tsp.TSPInstance(dist=np.array([[0, 1, 2], [3, 0, 4], [5, 6, 0]]), name="two\nTYPE : TSP")
    back = tsp.read_tsplib(tsp.write_tsplib(inst, tmp_path / "n.atsp"))
    assert back.name == "two TYPE : TSP" and back.kind == "ATSP" and back.dist.tolist() == inst.dist.tolist()


@pytest.mark.parametrize("coords, kind, match", [
    ([[0, 0], [np.nan, 1]], "EUC_2D", r"city 1 has coordinates \[nan, 1.0\]: each must be a finite number"),
    ([[0, 0], [1, np.inf]], "ATT", r"city 1 .* finite number"),
    ([[0, 0], [1e300, 1]], "CEIL_2D", r"within \+-1.374e\+11"),
    ([[0, 0, 0], [3, 4, 12]], "EUC_2D", r"EUC_2D takes 2 coordinates per city: an \(n, 2\) array, got shape \(2, 3\)"),
    ([[0, 0], [3, 4]], "EUC_3D", r"EUC_3D takes 3 coordinates"),
    ([0, 1, 2], "GEO", r"GEO takes 2 coordinates"),
    ([["a", "b"], [1, 2]], "MAX_2D", r"coordinates must be numbers"),
])
def test_coordinate_distances_refuse_bad_coordinates(coords, kind, match):
    with pytest.raises(ValueError, match=match):
        tsp.coord_distances(coords, kind)


def test_coordinate_distances_refuse_a_size_beyond_memory(host16):
    from hostile import refused
    xy = np.zeros((200_000, 2))
    msg = refused(lambda: tsp.coord_distances(xy, "EUC_2D"), r"coord_distances \(EUC_2D\) on n=200000 cities")
    assert "force=True" in msg


def test_shipped_instances_read_and_solve():
    import pathlib
    folder = pathlib.Path(__file__).resolve().parents[2] / "data" / "instances" / "tsp"
    files = sorted(folder.glob("*.tsp")) + sorted(folder.glob("*.atsp"))
    assert files, "data/instances/tsp holds no instance"
    for f in files:
        inst = tsp.read_tsplib(f, missing=10**6)
        if inst.n <= 12:
            r = tsp.solve(inst, variant="held_karp")
            assert tsp.tour_length(inst, r.tour) == r.length
