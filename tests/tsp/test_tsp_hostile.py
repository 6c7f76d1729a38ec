"""Hostile input to the TSP: the TSPLIB reader and writer, the generators and the CPU solves
either give a valid answer (checked by the problem's own checks) or a clear, documented
error, quickly and without allocating first.

The known bad inputs come first (each failed before its fix), then property-based tests.
"""
import importlib
import itertools
import re
import time
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpualgo import guards, tsp
from hostile import FAST, documented, mutated, refused

#: what a hostile input may raise (subclasses of ValueError included)
HEAD = "NAME: x\nTYPE: {kind}\nDIMENSION: {n}\nEDGE_WEIGHT_TYPE: {ewt}\n"


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """The numba versions compiled once, so that no example's time includes compiling."""
    for variant in ("serial_bruteforce", "held_karp"):
        tsp.solve(tsp.random_graph(4, seed=1), variant=variant)


def _explicit(n, values, fmt="FULL_MATRIX", kind="TSP"):
    return (HEAD.format(kind=kind, n=n, ewt="EXPLICIT") + f"EDGE_WEIGHT_FORMAT: {fmt}\n"
            "EDGE_WEIGHT_SECTION\n" + " ".join(str(v) for v in values) + "\nEOF\n")


# ------------------------------------------------------------------ the known bad inputs

@pytest.mark.parametrize("call, match", [
    (lambda: tsp.random_euclidean(10**9), r"random_euclidean on n=1000000000 cities.*host memory.*force=True"),
    (lambda: tsp.random_asymmetric(10**9), r"random_asymmetric on n=1000000000 .*PiB of host memory"),
    (lambda: tsp.random_graph(10**9), r"random_graph on n=1000000000 .*force=True"),
    (lambda: tsp.random_graph(10**9, symmetric=False, plant_tour=True), r"random_graph"),
])
def test_generator_sizes_refused_before_allocating(host16, call, match):
    refused(call, match)


def test_generators_insist_with_force(monkeypatch):
    monkeypatch.setattr(guards, "host_bytes", lambda: 0)
    monkeypatch.setattr(guards, "ALWAYS_FITS", 0)
    for gen in (tsp.random_euclidean, tsp.random_asymmetric, tsp.random_graph):
        with pytest.raises(ValueError, match="force=True"):
            gen(4, seed=1)
        assert gen(4, seed=1, force=True).n == 4


@pytest.mark.parametrize("call, match", [
    (lambda: tsp.random_euclidean(3, scale=math.inf), r"scale must be a positive number"),
    (lambda: tsp.random_euclidean(3, scale=1e300), r"scale must be a positive number"),
    (lambda: tsp.random_euclidean(3, scale="1"), r"scale"),
    (lambda: tsp.random_graph(3, low=1.5), r"low and high must be integers"),
    (lambda: tsp.random_graph(3, high=2**70), r"high <= 1099511627776"),
    (lambda: tsp.random_asymmetric(3, high=2**41), r"MAX_DISTANCE"),
    (lambda: tsp.random_graph(3, density="0.5"), r"density must be in \[0, 1\]"),
])
def test_generator_parameters_named(call, match):
    refused(call, match)


@pytest.mark.parametrize("ewt, section", [
    ("EUC_2D", "NODE_COORD_SECTION\n1 0 0\n"),
    ("GEO", "NODE_COORD_SECTION\n1 0 0\n"),
    ("EXPLICIT", "EDGE_WEIGHT_FORMAT: FULL_MATRIX\nEDGE_WEIGHT_SECTION\n0 1\n"),
    ("EXPLICIT", "EDGE_WEIGHT_FORMAT: LOWER_DIAG_COL\nEDGE_WEIGHT_SECTION\n0 1\n"),
    ("EXPLICIT", "DISPLAY_DATA_SECTION\n1 0 0\n"),
])
def test_tsplib_dimension_refused_naming_file_and_line(host16, tmp_path, ewt, section):
    p = tmp_path / "huge.tsp"
    p.write_text(HEAD.format(kind="TSP", n=10**9, ewt=ewt) + section + "EOF\n")
    refused(lambda: tsp.read_tsplib(p), r"huge\.tsp: line 3: DIMENSION 1000000000: .*PiB of host memory.*"
            r"force=True", error=tsp.TSPLIBError)


def test_tsplib_20000_coordinates_refused_unless_forced(host16, tmp_path):
    p = tmp_path / "big.tsp"
    p.write_text(HEAD.format(kind="TSP", n=20000, ewt="EUC_2D") + "NODE_COORD_SECTION\n"
                 + "".join(f"{i + 1} {i} {i % 7}\n" for i in range(20000)) + "EOF\n")
    msg = refused(lambda: tsp.read_tsplib(p), r"big\.tsp: line 3: DIMENSION 20000: .*GiB of host memory")
    assert "force=True" in msg


def test_tsplib_force_insists(monkeypatch, tmp_path):
    monkeypatch.setattr(guards, "host_bytes", lambda: 0)
    monkeypatch.setattr(guards, "ALWAYS_FITS", 0)
    p = tmp_path / "x.tsp"
    p.write_text(_explicit(3, [0, 1, 2, 1, 0, 3, 2, 3, 0]))
    with pytest.raises(tsp.TSPLIBError, match="force=True"):
        tsp.read_tsplib(p)
    assert tsp.read_tsplib(p, force=True).dist.tolist() == [[0, 1, 2], [1, 0, 3], [2, 3, 0]]


@pytest.mark.parametrize("token", [str(2**63), "9" * 300, "1e300", str(-2**63 - 1), str(2**40 + 1),
                                   "1" * 5000])
def test_tsplib_weight_beyond_range_names_file_and_line(tmp_path, token):
    p = tmp_path / "w.tsp"
    p.write_text(_explicit(2, [token], fmt="UPPER_ROW"))
    refused(lambda: tsp.read_tsplib(p), r"w\.tsp: line 7: weight .*exceeds 1099511627776",
            error=tsp.TSPLIBError)


def test_tsplib_missing_stand_in_above_max_distance_reads_back(tmp_path):
    p = tmp_path / "m.tsp"
    p.write_text(_explicit(3, [2**62, 5, 2**62], fmt="UPPER_ROW"))
    inst = tsp.read_tsplib(p, missing=2**62)
    assert inst.dist.tolist() == [[0, -1, 5], [-1, 0, -1], [5, -1, 0]]
    # a real -1 is still a negative distance when a stand-in is given
    p.write_text(_explicit(3, [-1, 5, 7], fmt="UPPER_ROW"))
    with pytest.raises(tsp.TSPLIBError, match="line 7: negative distance -1"):
        tsp.read_tsplib(p, missing=99)
    with pytest.raises(ValueError, match="missing must be an integer"):
        tsp.read_tsplib(p, missing=1.5)
    # a bool is no stand-in weight (True made every weight 1 a missing edge)
    p.write_text(_explicit(3, [1, 5, 7], fmt="UPPER_ROW"))
    for flag in (True, np.bool_(False)):
        with pytest.raises(ValueError, match=r"missing must be an integer .*got (True|(np\.)?False)"):
            tsp.read_tsplib(p, missing=flag)


def test_tsplib_coordinates_beyond_range(tmp_path):
    p = tmp_path / "c.tsp"
    p.write_text(HEAD.format(kind="TSP", n=2, ewt="EUC_2D") + "NODE_COORD_SECTION\n1 0 0\n2 1e300 0\nEOF\n")
    with pytest.raises(tsp.TSPLIBError, match=r"c\.tsp: line 7: coordinate beyond"):
        tsp.read_tsplib(p)


def test_tsplib_non_utf8_names_the_file(tmp_path):
    p = tmp_path / "latin.tsp"
    p.write_bytes(_explicit(2, [5], fmt="UPPER_ROW").replace("NAME: x", "NAME: caf\xe9").encode("latin-1"))
    with pytest.raises(tsp.TSPLIBError, match=r"latin\.tsp: line 1: not UTF-8 text \(byte 0xe9"):
        tsp.read_tsplib(p)


def _with_missing():
    d = np.array([[0, 1, -1], [1, 0, 1], [-1, 1, 0]])
    return tsp.TSPInstance(dist=d)


@pytest.mark.parametrize("missing, match", [
    (1.5, r"missing must be an integer larger than every distance"),
    (2.0, r"missing must be an integer"),
    (True, r"missing must be an integer"),
    ("9", r"missing must be an integer"),
    (2**70, r"beyond int64"),
    (1, r"must exceed the largest distance 1"),
])
def test_write_tsplib_missing_refused(tmp_path, missing, match):
    with pytest.raises(ValueError, match=match):
        tsp.write_tsplib(_with_missing(), tmp_path / "w.tsp", missing=missing)
    assert not (tmp_path / "w.tsp").exists()


def test_write_tsplib_missing_roundtrip_at_int64(tmp_path):
    p = tsp.write_tsplib(_with_missing(), tmp_path / "w.tsp", missing=2**63 - 1, fmt="UPPER_ROW")
    assert tsp.read_tsplib(p, missing=2**63 - 1).dist.tolist() == _with_missing().dist.tolist()


@pytest.mark.parametrize("matrix, match", [
    ([[0, 1], [1]], r"distance matrix must be a square \(n, n\) table of numbers"),
    ([[0, 1, 2], [1, 0]], r"square \(n, n\) table"),
    ([[0, "a"], [1, 0]], r"must be numeric"),
    ([[0, None], [1, 0]], r"must be numeric, got dtype object"),
    ([[0, 2**70], [1, 0]], r"integers beyond int64"),
    ([[0, [1]], [1, 0]], r"distance matrix"),
])
@pytest.mark.parametrize("variant", ["serial_bruteforce", "held_karp"])
def test_solve_ragged_or_non_numeric_matrix(matrix, match, variant):
    with pytest.raises(ValueError, match=match):
        tsp.solve(matrix, variant=variant)


@pytest.mark.parametrize("matrix", [np.ones((3, 3), dtype=bool), [[False, True], [True, False]],
                                    np.eye(4, dtype=np.bool_)])
def test_a_bool_matrix_is_no_distance_matrix(matrix):
    # before: True and False were read as distances 1 and 0; the auction's benefits and max
    # flow's capacities refuse a bool array, and so does the TSP now
    for make in (lambda: tsp.solve(matrix, variant="held_karp"), lambda: tsp.TSPInstance(dist=matrix),
                 lambda: tsp.tour_length(matrix, [0, 1])):
        with pytest.raises(ValueError, match=r"distance matrix must be numeric, got dtype bool "
                                             r"\(a bool matrix is not read as distances 1 and 0"):
            make()


@pytest.mark.parametrize("tour, n", [([], 0), ([], -1), ([0], True), ([0], 1.0), ([0], "1"), ([0], None)])
def test_check_tour_refuses_a_number_of_cities_that_is_none(tour, n):
    # before: check_tour([], 0) said "tour entries must be integers, got dtype float64", an int64
    # empty tour raised numpy's "zero-size array to reduction operation", n=True a TypeError
    with pytest.raises(ValueError, match=r"^n \(the number of cities\) must be an integer >= 1, got "):
        tsp.check_tour(tour, n)
    assert tsp.check_tour([0], 1).tolist() == [0]


@pytest.mark.parametrize("n", [-1, 0, 2.5, True, "5", None])
@pytest.mark.parametrize("variant", ["serial_bruteforce", "held_karp", "gpu_held_karp"])
def test_estimates_refuse_a_number_of_cities_that_is_none(n, variant):
    # before: estimate_seconds(-1, ...) gave 1.4e-08 s (brute force) or 0 (Held-Karp), 2.5 a
    # TypeError, "5" a TypeError of a comparison
    for estimate in (tsp.estimate_seconds, tsp.estimate_work):
        with pytest.raises(ValueError, match=r"^n \(the number of cities\) must be an integer >= 1, got "
                                             + re.escape(repr(n))):
            estimate(n, variant)
    assert tsp.estimate_seconds(1, variant) >= 0


def test_a_size_of_300_digits_is_named_cut_short():
    solve_mod = importlib.import_module("gpualgo.tsp.solve")
    msg = refused(lambda: solve_mod.check(10**300, "held_karp"), r"held_karp on n=1000000000\d*\.\.\. "
                                                                 r"\(301 characters\) cities")
    assert len(msg) < 300
    assert "(302 characters), high=100" in refused(lambda: tsp.random_graph(3, low=-10**300), r"got low=-1000")


@pytest.mark.parametrize("seed", ["x", 1.5, -1, True, np.bool_(False), [1, 2]])
@pytest.mark.parametrize("make", [lambda s: tsp.random_euclidean(4, seed=s), lambda s: tsp.random_graph(4, seed=s),
                                  lambda s: tsp.random_asymmetric(4, seed=s), lambda s: tsp.planted_optimum(4, seed=s)])
def test_generators_refuse_a_seed_by_name(make, seed):
    # before: "x" and 1.5 raised numpy's TypeError naming no argument, True drew the instance of seed 1
    with pytest.raises(ValueError, match=r"^seed must be None, a non-negative integer or a numpy Generator, got "):
        make(seed)


def test_generators_keep_their_valid_seeds():
    assert tsp.random_graph(5, seed=3).dist.tolist() == tsp.random_graph(5, seed=np.int64(3)).dist.tolist()
    a = tsp.random_euclidean(5, seed=np.random.default_rng(2))
    assert a.dist.tolist() == tsp.random_euclidean(5, seed=np.random.default_rng(2)).dist.tolist()
    assert tsp.random_asymmetric(4, seed=np.random.SeedSequence(5)).n == 4
    # planted_optimum: an integer seed draws what it always drew; a Generator (a TypeError before)
    # is one stream for the weights and the planted tour
    assert tsp.planted_optimum(6, seed=4).dist.tolist() == tsp.planted_optimum(6, seed=4).dist.tolist()
    for seed in (np.random.default_rng(1), None):
        inst = tsp.planted_optimum(6, seed=seed)
        assert tsp.solve(inst, variant="held_karp").length == 6 == inst.meta["planted_optimum"]
        assert inst.meta["seed"] is seed


@pytest.mark.parametrize("kwargs", [dict(low=True), dict(high=np.bool_(True)), dict(low=1.0)])
def test_weights_are_integers_not_bools(kwargs):
    # before: low=True drew weights from 1 (operator.index takes a bool)
    name = next(iter(kwargs))
    for make in (tsp.random_graph, tsp.random_asymmetric):
        with pytest.raises(ValueError, match=rf"low and high must be integers, got {name}="):
            make(4, seed=1, **kwargs)


# ------------------------------------------------------------------ property-based tests



def _check_instance(inst):
    assert isinstance(inst, tsp.TSPInstance)
    d = inst.dist
    assert d.dtype == np.int64 and d.ndim == 2 and d.shape[0] == d.shape[1] >= 1
    off = ~np.eye(inst.n, dtype=bool)
    assert np.all((d[off] >= 0) | (d[off] == tsp.NO_EDGE)) and np.all(np.diag(d) == 0)
    assert np.all(d <= tsp.MAX_DISTANCE)


def _best_by_itertools(inst):
    best = math.inf
    for perm in itertools.permutations(range(1, inst.n)):
        best = min(best, tsp.tour_length(inst, (0,) + perm))
    return best


def _solve_and_check(inst):
    """Both CPU versions on a small instance agree with every order tried by itertools."""
    if inst.n > 7:
        return
    want = _best_by_itertools(inst)
    for variant in ("serial_bruteforce", "held_karp"):
        r = tsp.solve(inst, variant=variant)
        assert r.length == want, (variant, r.length, want)
        if r.feasible:
            tsp.check_tour(r.tour, inst.n)
            assert tsp.tour_length(inst, r.tour) == want


VALID = {
    "explicit": _explicit(4, [0, 3, 4, 5, 3, 0, 6, 7, 4, 6, 0, 8, 5, 7, 8, 0]),
    "upper": _explicit(4, [3, 4, 5, 6, 7, 8], fmt="UPPER_ROW"),
    "lower_diag_col": _explicit(4, [0, 3, 4, 5, 0, 6, 7, 0, 8, 0], fmt="LOWER_DIAG_COL"),
    "atsp": _explicit(3, [0, 1, 2, 3, 0, 4, 5, 6, 0], kind="ATSP"),
    "euc": HEAD.format(kind="TSP", n=4, ewt="EUC_2D") + "NODE_COORD_SECTION\n1 0 0\n2 3 4\n3 6 0\n4 3 -4\nEOF\n",
    "geo": HEAD.format(kind="TSP", n=3, ewt="GEO") + "NODE_COORD_SECTION\n1 38.24 20.42\n2 39.57 26.15\n"
           "3 40.56 25.32\nDISPLAY_DATA_SECTION\n1 0 0\n2 1 1\n3 2 0\nEOF\n",
    "att3d": HEAD.format(kind="TSP", n=3, ewt="MAN_3D") + "NODE_COORD_SECTION\n1 0 0 0\n2 1 2 3\n3 4 4 4\nEOF\n",
}
TOKENS = st.sampled_from(["0", "1", "-1", "-5", "3", "1000000000", str(2**40), str(2**40 + 1), str(2**63),
                          "9" * 300, "1e300", "1e400", "nan", "inf", "-inf", "NaN", "2.5", "1_0", "\u0663",
                          "EOF", "NODE_COORD_SECTION", "EDGE_WEIGHT_SECTION", "DIMENSION:", "TYPE:", ":",
                          "FULL_MATRIX", "UPPER_COL", "EUC_2D", "EXPLICIT", "TSP", "ATSP", "HCP",
                          "FIXED_EDGES_SECTION", "1000000000", "20000", "\x00", "\ufeff"])




FILES = st.one_of(
    mutated(st.sampled_from(sorted(VALID.values())), TOKENS, most_junk=4).map(str.encode),
    st.binary(max_size=300),
    st.text(max_size=200).map(str.encode),
    st.tuples(mutated(st.sampled_from(sorted(VALID.values())), TOKENS, most_junk=4), st.binary(min_size=1, max_size=4)).map(lambda x: x[0].encode() + x[1]),
)


@FAST
@given(data=FILES, missing=st.one_of(st.none(), st.sampled_from([-1, 0, 7, 2**63, 2**70]),
                                     st.floats(allow_nan=True)))
def test_read_tsplib_on_hostile_files(small_host, tmp_path, data, missing):
    p = tmp_path / "hostile.tsp"
    p.write_bytes(data)
    try:
        inst = tsp.read_tsplib(p, missing=missing)
    except tsp.TSPLIBError as exc:
        assert "hostile.tsp" in str(exc), f"the error does not name the file: {exc}"
        inst = None
    except BaseException as exc:         # noqa: BLE001 - the point is to see everything
        documented(exc)
        assert "missing" in str(exc), exc     # the one error that is about the argument
        inst = None
    if inst is not None:
        _check_instance(inst)
        _solve_and_check(inst)


@FAST
@given(n=st.integers(1, 7), data=st.data())
def test_write_then_read_any_small_instance(tmp_path, n, data):
    cells = st.one_of(st.integers(0, 2**40), st.integers(0, 9), st.just(tsp.NO_EDGE))
    d = np.array(data.draw(st.lists(cells, min_size=n * n, max_size=n * n)), dtype=np.int64).reshape(n, n)
    if data.draw(st.booleans()):
        d = np.triu(d, 1) + np.triu(d, 1).T
    inst = tsp.TSPInstance(dist=d)
    fmt = data.draw(st.sampled_from([None] + list(tsp.tsplib.FORMATS)))
    missing = data.draw(st.one_of(st.none(), st.integers(-2, 2**64), st.floats(allow_nan=True)))
    try:
        p = tsp.write_tsplib(inst, tmp_path / "w.tsp", fmt=fmt, missing=missing)
    except BaseException as exc:         # noqa: BLE001
        documented(exc)
        return
    back = tsp.read_tsplib(p, missing=missing if inst.has_missing else None)
    assert back.dist.tolist() == inst.dist.tolist()


ODD = st.one_of(st.integers(-3, 9), st.integers(-2**70, 2**70), st.sampled_from([10**9, 2**40, 2**41, 20000]),
                st.floats(allow_nan=True, allow_infinity=True), st.none(), st.text(max_size=2), st.booleans())


@FAST
@given(which=st.sampled_from(["euclid", "graph", "asym"]), n=ODD, a=ODD, b=ODD, c=ODD,
       seed=st.one_of(st.none(), st.integers(-5, 2**70)), flags=st.tuples(st.booleans(), st.booleans()))
def test_generators_on_hostile_arguments(small_host, which, n, a, b, c, seed, flags):
    try:
        if which == "euclid":
            inst = tsp.random_euclidean(n, seed=seed, scale=a)
        elif which == "graph":
            inst = tsp.random_graph(n, density=a, seed=seed, low=b, high=c, symmetric=flags[0],
                                    plant_tour=flags[1])
        else:
            inst = tsp.random_asymmetric(n, seed=seed, low=b, high=c)
    except BaseException as exc:         # noqa: BLE001
        documented(exc)
        inst = None
    if inst is not None:
        _check_instance(inst)
        _solve_and_check(inst)


MATRICES = st.one_of(
    st.integers(0, 6).flatmap(lambda n: st.lists(st.lists(st.integers(-2, 2**41), min_size=n, max_size=n),
                                                 min_size=n, max_size=n)),
    st.integers(0, 6).flatmap(lambda n: st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True),
                                                          min_size=n, max_size=n), min_size=n, max_size=n)),
    st.lists(st.lists(st.integers(0, 9), max_size=5), max_size=5),                  # ragged
    st.lists(st.one_of(st.integers(0, 9), st.text(max_size=2), st.none()), max_size=5),
    st.integers(0, 6).flatmap(lambda n: st.lists(st.lists(st.integers(-2**70, 2**70), min_size=n, max_size=n),
                                                 min_size=n, max_size=n)),
    st.sampled_from([None, "abc", 3, [], [[]], [[[1]]], np.zeros((2, 3)), np.zeros((0, 0)),
                     np.ones((3, 3), dtype=np.uint64) * 2**63, np.ones((3, 3), dtype=np.complex128),
                     np.ones((3, 3), dtype=bool), np.ones((3, 3), dtype=np.float16),
                     np.array([["a", "b"], ["c", "d"]]), np.zeros((2, 2, 2))]),
)


@FAST
@given(matrix=MATRICES, variant=st.sampled_from(["serial_bruteforce", "held_karp"]),
       options=st.sampled_from([{}, {"symmetric": True}, {"symmetric": False}, {"max_free": 0},
                                {"max_free": 3}, {"max_free": -1}, {"max_free": 10**9}, {"force": True},
                                {"symmetric": "yes"}]))
def test_cpu_solves_on_hostile_matrices(small_host, matrix, variant, options):
    try:
        r = tsp.solve(matrix, variant=variant, **options)
    except BaseException as exc:         # noqa: BLE001
        documented(exc)
        return
    inst = tsp.as_instance(matrix)
    _check_instance(inst)
    want = _best_by_itertools(inst)
    assert r.length == want
    if r.feasible:
        tsp.check_tour(r.tour, inst.n)
        assert tsp.tour_length(inst, r.tour) == want


def test_short_file_with_large_dimension_fails_at_its_end_without_allocating(host16, tmp_path):
    p = tmp_path / "short.tsp"
    p.write_text(_explicit(10000, [0, 1, 2]))   # 10^8 values announced, 3 given
    refused(lambda: tsp.read_tsplib(p), r"short\.tsp: line 8: EDGE_WEIGHT_SECTION has 3 values, "
            r"100000000 expected", error=tsp.TSPLIBError)


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(tsp.TSPLIBError, match="is a directory"):
        tsp.read_tsplib(tmp_path)


def test_float16_matrix_without_overflow_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = tsp.solve(np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]], dtype=np.float16), variant="held_karp")
    assert r.length == 6


@pytest.mark.parametrize("dim", ["1_0", "\u0665", "+\uff15", "5.0"])
def test_tsplib_dimension_is_an_ascii_integer(tmp_path, dim):
    p = tmp_path / "d.tsp"
    p.write_text(f"NAME : d\nTYPE : TSP\nDIMENSION : {dim}\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n"
                 + "".join(f"{k + 1} {k} {k * k}\n" for k in range(5)) + "EOF\n")
    with pytest.raises(tsp.TSPLIBError, match=r"d.tsp: line 3: DIMENSION .* is not an integer"):
        tsp.read_tsplib(p)


def test_a_masked_matrix_is_refused():
    m = np.ma.masked_array([[0, 1, 9], [1, 0, 9], [9, 9, 0]], mask=[[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="masked entries"):
        tsp.solve(m, variant="held_karp")


@pytest.mark.parametrize("call", [
    lambda: tsp.solve(tsp.random_euclidean(6, seed=3), variant="serial_bruteforce", symmetric="no"),
    lambda: tsp.solve(tsp.random_euclidean(6, seed=3), variant="serial_bruteforce", symmetric=1),
    lambda: tsp.random_graph(5, symmetric="no", seed=1),
    lambda: tsp.random_graph(5, plant_tour="no", seed=1),
])
def test_tsp_flags_are_true_or_false(call):
    with pytest.raises(ValueError, match="must be True or False"):
        call()


@pytest.mark.parametrize("max_free", [2.5, True, "3", 0, 21])
def test_max_free_is_an_integer_in_range(max_free):
    with pytest.raises(ValueError, match=r"max_free \(free cities per chunk\) must be an integer in 1..20"):
        tsp.solve(tsp.random_euclidean(8, seed=2), variant="serial_bruteforce", max_free=max_free)


def test_the_writer_checks_an_instance_changed_after_it_was_made(tmp_path):
    e = tsp.random_euclidean(4, seed=3)
    e.dist[0, 1] = -7
    with pytest.raises(ValueError, match="negative"):
        tsp.write_tsplib(e, tmp_path / "t.tsp")
    assert not (tmp_path / "t.tsp").exists()


def _explicit3(tmp_path, middle):
    p = tmp_path / "j.tsp"
    p.write_text("NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\n" + middle + "1 2\n3\nEOF\n")
    return p


@pytest.mark.parametrize("middle, words", [
    ("EDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION 7 7 7\n", "line 6: nothing may follow EDGE_WEIGHT_SECTION"),
    ("EDGE_WEIGHT_FORMAT: NONSENSE\nEDGE_WEIGHT_SECTION\n", "line 5: EDGE_WEIGHT_FORMAT 'NONSENSE' is not one of"),
    ("EDGE_WEIGHT_FORMAT: UPPER_ROW\nNODE_COORD_TYPE: BOGUS\nEDGE_WEIGHT_SECTION\n",
     "line 6: NODE_COORD_TYPE 'BOGUS' is not one of"),
])
def test_tsplib_content_that_would_be_dropped_is_refused(tmp_path, middle, words):
    p = _explicit3(tmp_path, middle)
    with pytest.raises(tsp.TSPLIBError, match=re.escape(f"{p}: {words}")):
        tsp.read_tsplib(p)
    assert tsp.read_tsplib(_explicit3(tmp_path, "EDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION :\n")).dist.tolist() \
        == [[0, 1, 2], [1, 0, 3], [2, 3, 0]]


def test_a_bad_force_is_the_calls_not_a_lines(tmp_path):
    p = _explicit3(tmp_path, "EDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n")
    with pytest.raises(ValueError, match=r"^force must be True or False, got 'yes'$"):
        tsp.read_tsplib(p, force="yes")


def test_what_the_writer_writes_the_reader_reads(tmp_path):
    """Coordinates as large as the generator makes (2**39) are beyond what the reader takes
    (MAX_COORD): the writer then leaves out their display data, and the weights say it all."""
    inst = tsp.random_euclidean(3, seed=0, scale=2**39)
    back = tsp.read_tsplib(tsp.write_tsplib(inst, tmp_path / "b.tsp"))
    assert back.dist.tolist() == inst.dist.tolist() and back.coords is None


def test_a_matrix_too_large_is_refused_by_its_size_alone(monkeypatch):
    import importlib
    inst_mod = importlib.import_module("gpualgo.tsp.instances")
    calls = []
    real = inst_mod.validate_matrix
    monkeypatch.setattr(inst_mod, "validate_matrix", lambda d: calls.append(1) or real(d))
    with pytest.raises(ValueError, match="brute force on n=8000 cities"):
        tsp.solve(np.broadcast_to(np.int64(1), (8000, 8000)), variant="serial_bruteforce")
    assert calls == []          # no pass over its 64 million entries
    assert tsp.solve(np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]]), variant="held_karp").length == 6
    assert calls


def test_a_plan_of_too_many_chunks_is_refused_before_it_is_listed():
    from gpualgo.tsp.enumeration import MAX_CHUNKS, make_plan
    t = time.perf_counter()
    with pytest.raises(ValueError, match=r"n=30 cities in chunks of at most 20 free cities has 1.82e\+12 chunks"):
        make_plan(30, True)
    assert time.perf_counter() - t < 1.0
    for bad in (2.5, True, 1):
        with pytest.raises(ValueError, match="at least 2 cities"):
            make_plan(bad, True)
    assert make_plan(17, True).prefix.shape[0] == 120 <= MAX_CHUNKS


def test_a_negative_float_distance_says_which_mark_a_float_matrix_takes():
    with pytest.raises(ValueError, match=r"negative distance -1.0 at \(0, 1\); inf marks a missing edge in a float "
                                         r"matrix \(NO_EDGE, -1, does in an integer one\)"):
        tsp.solve(np.array([[0, -1.0, 1], [1, 0, 1], [1, 1, 0]]), variant="held_karp")
    with pytest.raises(ValueError, match=r"negative distance -2 at \(0, 1\); only -1 \(NO_EDGE\) marks"):
        tsp.solve(np.array([[0, -2, 1], [1, 0, 1], [1, 1, 0]]), variant="held_karp")


def test_a_planted_instance_is_named_by_an_integer_seed_only():
    assert tsp.planted_optimum(6, seed=3).name == "planted6_s3" == tsp.planted_optimum(6, seed=np.int64(3)).name
    assert tsp.planted_optimum(6, seed=np.random.default_rng(1)).name == "planted6" == tsp.planted_optimum(6).name
