"""Hostile input to the assignment problem: every reader, generator and CPU solve answers
with a valid result or a clear ValueError/TypeError, quickly, and never allocates first."""
import math
import time

import numpy as np
import pytest
from hypothesis import given, strategies as st

from gpualgo import assignment as A
from gpualgo.assignment import problem
from hostile import DOCUMENTED, FAST, answer_or_refusal, quick



# ------------------------------------------------------------------- the known bad inputs

@pytest.mark.parametrize("gen", [A.report_instance, A.uniform_instance, A.geom_instance])
def test_generators_refuse_absurd_sizes_before_allocating(gen):
    msg = quick(gen, 10**9)
    assert "PiB of host memory" in msg and "force=True" in msg


def test_batch_config_refuses_an_absurd_instance(tmp_path):
    cfg = tmp_path / "b.cfg"
    cfg.write_text("1\n1000000000 1000000000 1\n")
    assert f"{cfg}: line 2:" in quick(A.read_batch_config, cfg)
    assert "force=True" in quick(A.generate_batch, cfg, tmp_path / "out")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_non_utf8_config_names_the_file_and_line(tmp_path):
    cfg = tmp_path / "b.cfg"
    cfg.write_bytes(b"1\n3 3 1\n\xff\xfe 3 1\n")
    assert f"{cfg}: line 3: not UTF-8" in quick(A.read_batch_config, cfg)


def test_instance_header_claiming_huge_sizes(tmp_path):
    path = tmp_path / "i.bin"
    path.write_bytes(np.array([2**31 - 1, 2**31 - 1], "<i4").tobytes() + b"\0" * 16)
    assert "truncated" in quick(A.read_instance, path)


def test_solve_refuses_overflowing_and_bad_options():
    B = A.report_instance(5, seed=1)
    A.solve(B, variant="serial")  # the solvers' modules loaded before any refusal is timed (traced
                                  # allocations make a first import take about a second)
    assert "eps" in quick(A.solve, B, variant="serial", eps=10**400)
    assert "max_rounds" in quick(A.solve, B, variant="serial", max_rounds=2**70)
    assert "max_rounds" in quick(A.solve, B, variant="serial", max_rounds=-1)
    assert "max_rounds" in quick(A.solve, B, variant="serial", max_rounds=0)
    assert "eps_start" in quick(A.solve, B, variant="serial", scaling=True, eps_start=-1)
    assert "eps_factor" in quick(A.solve, B, variant="serial", scaling=True, eps_factor=1.5)
    assert "record_rounds" in quick(A.solve, B, variant="serial", record_rounds=-1)
    assert "host memory" in quick(A.solve, B, variant="serial", record_rounds=10**15, max_rounds=10**15)
    assert "eps" in quick(A.solve, B, variant="serial", eps=1e-300)
    assert "time_limit" in quick(A.solve, B, algorithm="dgs", variant="serial", time_limit=10**400)


def test_float32_benefits_beyond_the_grid_are_refused_without_a_warning():
    import warnings
    B = np.array([[3e38, 1.5], [2.5, 1.0]], dtype=np.float32)   # B / grid overflows float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="exceeds 2\\*\\*30"):
            A.solve(B, variant="serial", eps=1e-3)


def test_a_huge_eps_is_a_valid_eps_optimal_answer():
    B = A.report_instance(6, seed=2)
    r = A.solve(B, variant="serial", eps=1e300)
    A.check_assignment(B, r.assignment)
    assert r.objective >= A.reference_objective(B) - 6 * 1e300


def test_geom_refuses_scales_that_overflow_int64():
    assert "int64" in quick(A.geom_instance, 3, scale=1e300)
    assert "finite" in quick(A.geom_instance, 3, side=float("inf"))
    assert "finite" in quick(A.geom_instance, 3, scale=float("nan"))
    assert A.geom_instance(3, side=1e9, scale=1e9).min() >= 0


def test_dgs_and_auction_share_the_range_rule():
    # integer benefits: one check (problem.check_range), each algorithm's bound
    for alg, bound in (("auction", "2**30"), ("dgs", "2**50")):
        B = np.array([[2**63 - 1, 1], [1, 1]], dtype=np.int64)
        assert bound in quick(A.solve, B, algorithm=alg, variant="serial")
    # float benefits whose sums overflow: DGS used to return an infinite objective
    B = np.array([[1e308, -1e308, 0], [-1e308, 1e308, 5], [3, -1e308, 1e308]])
    assert "stay finite" in quick(A.solve, B, algorithm="dgs", variant="serial")


def test_masked_and_sparse_matrices_are_refused_not_read_as_dense():
    # np.asarray drops a mask and scipy stores no missing edges: both used to be solved as
    # plain matrices, the masked entry (0, 1) then taken as a benefit of 100
    import scipy.sparse as sp
    M = np.ma.masked_array([[1, 100], [100, 1]], mask=[[0, 1], [0, 0]])
    for alg in ("auction", "dgs"):
        assert "B.astype(float).filled(-np.inf)" in quick(A.solve, M, algorithm=alg, variant="serial")
        assert "B.filled(-np.inf)" in quick(A.solve, M.astype(float), algorithm=alg, variant="serial")
        for S in (sp.csr_matrix(np.eye(3)), sp.coo_array(np.eye(3))):
            assert "sparse matrix" in quick(A.solve, S, algorithm=alg, variant="serial")
        r = A.solve(np.ma.masked_array([[1, 100], [100, 1]]), algorithm=alg, variant="serial")  # nothing masked
        assert r.assignment.tolist() == [1, 0] and r.objective == 200
    r = A.solve(M.astype(float).filled(-np.inf), variant="serial")
    assert r.assignment.tolist() == [0, 1] and r.objective == 2


def test_object_arrays_of_integers():
    B = np.array([[5, 1, 7], [1, 2, 9]], dtype=object)      # integers within int64: solved
    for alg in ("auction", "dgs"):
        assert A.solve(B, algorithm=alg, variant="serial").objective == A.reference_objective(B.astype(np.int64))
    assert "beyond 64 bits (such as 18446744073709551616)" in quick(
        A.solve, np.array([[2**64, 1], [1, 2]], dtype=object), variant="serial")
    assert "numeric" in quick(A.solve, np.array([[True, 1], [1, 2]], dtype=object), variant="serial")


def test_a_wide_matrix_padded_for_eps_scaling_is_refused_before_allocating():
    # eps-scaling pads m x n to n x n: 4 TB for a 4 MB matrix of one person
    B = np.ones((1, 10**6), dtype=np.int32)
    msg = quick(A.solve, B, variant="serial", scaling=True)
    assert "padded to 1000000 x 1000000" in msg and "host memory" in msg and "force=True" in msg
    assert A.solve(B, variant="serial").objective == 1           # unpadded: no copy at all
    assert problem.prepare_bytes(1, 10**6, np.int32, square=True) >= 4 * 10**12
    assert problem.prepare_bytes(3, 4, np.int32) == 0 and problem.prepare_bytes(3, 4, np.int64) == 48


def test_algorithm_of_the_wrong_type():
    assert "unknown algorithm" in quick(A.solve, np.ones((2, 2)), algorithm=["auction"])


def test_ragged_lists_say_so():
    for alg in ("auction", "dgs"):
        assert "rows of different lengths" in quick(A.solve, [[1, 2], [3]], algorithm=alg, variant="serial")
    assert "beyond 64 bits" in quick(A.solve, [[1, 2**70], [3, 4]], variant="serial")


@pytest.mark.parametrize("answer, match", [
    ([0], r"^assignment has 1 entry but B has 2 rows \(persons\): one object per person$"),
    ([0, 1, 2], r"^assignment has 3 entries but B has 2 rows \(persons\)"),
    ([], r"^assignment has 0 entries but B has 2 rows"),
    ([[0, 1]], r"^assignment has shape \(1, 2\), expected \(2,\)"),
    ([0, 5], r"^person 1 has object 5, outside \[0, 3\)"),
    ([-1, 0], r"^person 0 has object -1, outside \[0, 3\)"),
    ([0.0, 1.0], r"^assignment must hold integers, got float64"),
])
def test_objective_of_an_answer_that_does_not_fit_the_matrix(answer, match):
    # before: an answer of 3 entries raised numpy's IndexError ("shape mismatch"), one of a
    # single entry was broadcast to every row (12 for [0]), and -1 was read as the last object
    B = np.array([[7, 3, 1], [5, 4, 2]])
    with pytest.raises(ValueError, match=match):
        A.objective(B, answer)
    assert A.objective(B, [0, 1]) == 11 and A.objective(B.astype(float), np.array([2, 0], np.uint8)) == 6


@pytest.mark.parametrize("seed", ["x", 1.5, -1, True, np.bool_(False), [1, 2]])
@pytest.mark.parametrize("make", [lambda s: A.report_instance(3, seed=s), lambda s: A.report_instance(3, density=0.5, seed=s),
                                  lambda s: A.uniform_instance(3, seed=s), lambda s: A.geom_instance(3, seed=s),
                                  lambda s: A.solve(np.arange(6).reshape(2, 3), algorithm="dgs", variant="serial",
                                                    seed=s)])
def test_a_seed_is_none_an_integer_or_a_generator(make, seed):
    # before: True drew the instance (and DGS's start) of seed 1; the generators' messages
    # carried numpy's own text after the argument's
    with pytest.raises(ValueError, match=r"^seed must be None, a non-negative integer or a numpy Generator, got "):
        make(seed)


def test_generators_keep_their_valid_seeds():
    same = A.report_instance(4, density=0.5, seed=3)
    assert np.array_equal(same, A.report_instance(4, density=0.5, seed=np.int64(3)))
    assert np.array_equal(A.uniform_instance(3, seed=np.random.default_rng(7)),
                          A.uniform_instance(3, seed=np.random.default_rng(7)))
    assert A.geom_instance(2, 3, seed=np.random.SeedSequence(1)).shape == (2, 3)
    assert A.geom_instance(2, seed=None).shape == (2, 2)


@pytest.mark.parametrize("call, match", [
    (lambda: A.report_instance(3, density=True), r"^density must be a number in \(0, 1\], got True"),
    (lambda: A.report_instance(3, density=np.bool_(True)), r"^density must be a number in \(0, 1\], got np\.True_"),
    (lambda: A.report_instance(3, density="0.5"), r"^density must be a number in \(0, 1\], got '0\.5'"),
    (lambda: A.geom_instance(3, side=True), r"^side must be a positive finite number, got True"),
    (lambda: A.geom_instance(3, scale=np.bool_(True)), r"^scale must be a positive finite number, got np\.True_"),
    (lambda: A.geom_instance(3, side="5"), r"^side must be a positive finite number, got '5'"),
    (lambda: A.uniform_instance(3, low=True), r"^low must be an integer, got True"),
])
def test_a_bool_is_no_number_of_a_generator(call, match):
    # before: density=True drew a full matrix, side=True and scale=True points in the unit square
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("call", [lambda: A.report_instance(10**300), lambda: A.uniform_instance(-10**300),
                                  lambda: A.geom_instance(3, 10**300), lambda: A.report_instance(3, limit=10**300)])
def test_a_size_of_300_digits_is_named_cut_short(call):
    # before: the refusal printed every digit of the size
    msg = quick(call)
    assert "... (30" in msg and len(msg) < 300, msg


# -------------------------------------------------------------------- property tests

NUMBERS = st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, -1, 2**31, -(2**31), 2**63, 1e300, float("nan"), float("-inf")]))


#: a header (m, n) and 4*m*n random bytes after it: files the reader must answer
WELL_FORMED = st.tuples(st.integers(1, 5), st.integers(1, 5)).flatmap(
    lambda mn: st.binary(min_size=4 * mn[0] * mn[1], max_size=4 * mn[0] * mn[1])
    .map(lambda body: np.array(mn, "<i4").tobytes() + body))


def _as_written(data):
    """What a file's bytes hold (numpy, independent of the reader): None unless well formed."""
    if len(data) < 8:
        return None
    m, n = (int(v) for v in np.frombuffer(data[:8], "<i4"))
    if m < 1 or n < 1 or len(data) != 8 + 4 * m * n:
        return None
    vals = np.frombuffer(data[8:], "<i4").reshape(m, n)
    return np.where(vals == np.iinfo(np.int32).min, -np.inf, vals.astype(np.float64))


@FAST
@given(st.one_of(st.binary(max_size=200), WELL_FORMED))
def test_read_instance_random_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("i") / "x.bin"
    path.write_bytes(data)
    want = _as_written(data)

    def same(B):
        assert want is not None, "a file that is not well formed was read"
        assert B.shape == want.shape and np.array_equal(np.asarray(B, dtype=np.float64), want)
    if answer_or_refusal(lambda: A.read_instance(path), same) is None:
        assert want is None, "a well-formed file was refused"


@FAST
@given(st.integers(1, 4), st.integers(0, 3), st.integers(0, 40), st.binary(max_size=8))
def test_read_instance_mutated_valid_file(tmp_path_factory, m, extra, cut, junk):
    path = tmp_path_factory.mktemp("i") / "x.bin"
    A.write_instance(path, A.report_instance(m, m + extra, density=0.7, seed=m))
    raw = path.read_bytes()
    path.write_bytes(raw[:max(0, len(raw) - cut)] + junk)
    answer_or_refusal(lambda: A.read_instance(path), lambda B: B.shape == (m, m + extra))


LINE = st.one_of(st.text(max_size=30),
                 st.builds(lambda a, b, c: f"{a} {b} {c}", NUMBERS, NUMBERS, NUMBERS),
                 st.builds(lambda a, b: f"{a} {b}", NUMBERS, NUMBERS),
                 st.sampled_from(["1 1 1", "3 4 0.5", "nan nan nan", "1e3 5 1", "# c", ""]))


@FAST
@given(st.lists(LINE, max_size=5), st.binary(max_size=20))
def test_read_batch_config(tmp_path_factory, lines, tail):
    path = tmp_path_factory.mktemp("c") / "b.cfg"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass") + tail)
    answer_or_refusal(lambda: A.read_batch_config(path))


#: arguments every generator must answer (m <= n, a positive limit, high or scale, or a density)
SENSIBLE = st.integers(1, 10).flatmap(lambda m: st.tuples(
    st.just(m), st.one_of(st.none(), st.integers(m, m + 6)), st.one_of(st.integers(1, 300), st.floats(0.05, 1.0))))


@FAST
@given(st.one_of(SENSIBLE, st.tuples(NUMBERS, st.one_of(st.none(), NUMBERS), NUMBERS)),
       st.sampled_from(["report", "uniform", "geom"]))
def test_generators(args, kind):
    m, n, p = args

    def run():
        if kind == "report":
            return A.report_instance(m, n, density=p if isinstance(p, float) else 1.0, seed=1,
                                     limit=p if isinstance(p, int) else 100)
        if kind == "uniform":
            return A.uniform_instance(m, n, low=-5, high=p, seed=1)
        return A.geom_instance(m, n, side=10.0, scale=p, seed=1)

    def small(B):
        assert B.shape == (m, m if n is None else n) and B.shape[0] <= B.shape[1]
    cells = abs(m) * abs(m if n is None else n) if isinstance(m, int) and isinstance(n, (int, type(None))) else 0
    if cells > 10**13:   # beyond any host: refused at once, before drawing
        t0 = time.perf_counter()
        with pytest.raises(DOCUMENTED):
            run()
        assert time.perf_counter() - t0 < 1
        return
    if cells > 10**5:    # could fit: too slow to draw here
        return
    answer_or_refusal(run, small)


MATRIX_VALUES = st.one_of(st.integers(-2**40, 2**40), st.floats(allow_nan=True, allow_infinity=True),
                          st.sampled_from([0, 1, -1, 2**62, 2**63 - 1, float("-inf"), 1e308, 0.5]))


@st.composite
def matrices(draw):
    kind = draw(st.sampled_from(["array", "ragged", "empty", "dtype", "shape"]))
    if kind == "ragged":
        return [draw(st.lists(MATRIX_VALUES, max_size=3)) for _ in range(draw(st.integers(0, 3)))]
    if kind == "empty":
        return draw(st.sampled_from([[], [[]], np.zeros((0, 3)), np.zeros((2, 0)), np.zeros(())]))
    if kind == "dtype":
        return draw(st.sampled_from([np.array([["a", "b"]]), np.ones((2, 2), bool), np.ones((1, 1), np.float16),
                                     np.ones((2, 2), complex), np.array([[None, 1]]), np.ones((2, 2), np.uint64)]))
    if kind == "shape":
        return np.zeros(draw(st.sampled_from([(3,), (2, 2, 2), (3, 2)])))
    m = draw(st.integers(1, 4))
    n = draw(st.integers(m, 5))
    dtype = draw(st.sampled_from([np.int32, np.int64, np.float64, np.uint8, np.float32]))
    vals = draw(st.lists(MATRIX_VALUES, min_size=m * n, max_size=m * n))
    with np.errstate(all="ignore"):
        try:
            return np.array(vals, dtype=np.float64).reshape(m, n).astype(dtype)
        except (OverflowError, ValueError):
            return np.array(vals, dtype=object).reshape(m, n)


def _valid(B):
    def check(r):
        A.check_assignment(np.asarray(B), r.assignment)
        assert math.isfinite(r.objective)
    return check


@FAST
@given(matrices(), st.sampled_from([None, 1, 0.5, 1e-3, 1e300, 0, -1, float("nan"), "x"]), st.booleans())
def test_auction_serial(B, eps, scaling):
    answer_or_refusal(lambda: A.solve(B, variant="serial", eps=eps, scaling=scaling, max_rounds=10**6), _valid(B))


@FAST
@given(matrices(), st.sampled_from(["random", "greedy", "bad"]), st.sampled_from([0, 1, -1, 2**70, "x"]))
def test_dgs_serial(B, init, seed):
    answer_or_refusal(lambda: A.solve(B, algorithm="dgs", variant="serial", init=init, seed=seed, time_limit=5),
                       _valid(B))


@FAST
@given(st.one_of(NUMBERS, st.sampled_from([1.5, "3", None, True])),
       st.one_of(NUMBERS, st.none(), st.sampled_from([1.5, "3", True])),
       st.one_of(NUMBERS, st.sampled_from([1.5, "3", None, True])))
def test_auction_options(max_rounds, eps_start, eps_factor):
    B = A.report_instance(4, seed=3)
    try:
        answer_or_refusal(lambda: A.solve(B, variant="serial", scaling=True, max_rounds=max_rounds,
                                           eps_start=eps_start, eps_factor=eps_factor), _valid(B))
    except RuntimeError as exc:   # the documented end of a run that reached a small max_rounds
        assert str(exc).startswith("no convergence within max_rounds=") and max_rounds < 100


def test_check_range_is_the_one_rule():
    with pytest.raises(ValueError, match=r"\|b\| < 2\*\*30"):
        problem.check_range(2.0**63, 2**30, "for exact arithmetic")
    problem.check_range(2.0**29, 2**30, "for exact arithmetic")


def test_dgs_trace_capacity_refused_before_allocating():
    B = A.report_instance(4, seed=1)
    assert "trace_capacity" in quick(A.solve, B, algorithm="dgs", variant="serial", trace_capacity=10**12)


def test_auction_refuses_float_benefits_whose_sum_overflows():
    # found by test_auction_serial: the objective was inf
    B = np.zeros((4, 4))
    B[2, 2], B[3, 3] = 1e308, 7.9e307
    assert "stay finite" in quick(A.solve, B, variant="serial", eps=1e300)


@pytest.mark.parametrize("algorithm, variant, options, match", [
    ("auction", "gpu_eps_scaling", dict(max_rounds=-1), "max_rounds"),
    ("auction", "gpu_eps_scaling", dict(max_rounds=2**63), "max_rounds"),
    ("auction", "gpu_sparse", dict(eps_factor=1), "eps_factor"),
    ("auction", "gpu_eps_scaling", dict(eps_start=0), "eps_start"),
    ("auction", "gpu_v1", dict(max_rounds=0), "max_rounds"),
    ("dgs", "gpu", dict(max_rounds=2**31), "max_rounds"),
    ("dgs", "gpu", dict(time_limit=-1), "time_limit"),
    ("dgs", "gpu_de_global", dict(init="best"), "init"),
    ("dgs", "gpu_mixed", dict(seed=-3), "seed"),
])
def test_every_option_a_gpu_version_shares_with_the_serial_one_is_refused_before_a_gpu_is_asked_for(
        algorithm, variant, options, match):
    # without a GPU these ended in GPUUnavailableError, with one in a RuntimeError after a round
    assert match in quick(A.solve, np.ones((4, 4)), algorithm=algorithm, variant=variant, **options)


@pytest.mark.parametrize("value", [2.0**31, -2.0**31, 2.0**32])
def test_float32_beyond_int32_is_refused_by_the_writer(tmp_path, value):
    """In float32 the int32 limits round to +-2**31, which passed the check and became the
    missing-edge stand-in."""
    with pytest.raises(ValueError, match="to fit int32"):
        A.write_instance(tmp_path / "x.bin", np.array([[value, 1], [1, 1]], np.float32))


@pytest.mark.parametrize("algorithm, options", [("auction", dict(scaling="no")), ("auction", dict(scaling=1)),
                                                ("dgs", dict(phases="no"))])
def test_a_flag_is_true_or_false(algorithm, options):
    B = np.arange(16).reshape(4, 4) % 5
    with pytest.raises(ValueError, match="must be True or False"):
        A.solve(B, algorithm=algorithm, variant="serial", **options)


@pytest.mark.parametrize("view", [lambda: np.broadcast_to(np.int32(1), (10**6, 10**6)),
                                  lambda: np.zeros((2, 10**6), np.int32)[:, ::2].T[:10**5]])
def test_an_int32_view_that_must_be_copied_counts_its_copy(view):
    """Only a C-contiguous int32 matrix is used as it is; a broadcast or strided view is copied,
    and a copy of 3.6 TiB is refused at once."""
    B = view()
    assert problem.prepare_bytes(*B.shape, np.int32, contiguous=False) == 4 * B.size
    if B.size >= 10**12:
        assert "needs about 3.6 TiB" in quick(A.solve, B, variant="serial")


def test_a_price_war_says_what_ends_it():
    B = np.array([[2**20, 2**20, 0]] * 3)
    with pytest.raises(RuntimeError, match="scaling=True ends them"):
        A.solve(B, variant="serial", max_rounds=1000)
    assert A.solve(B, variant="serial", scaling=True).objective == 2**21


def test_an_eps_too_fine_for_the_range_points_to_the_exact_run():
    B = np.array([[0, 2**30 - 1], [1, 0]])
    with pytest.raises(ValueError, match=r"use a smaller range or a larger eps; for integer benefits eps=None already "
                                         r"gives the exact optimum"):
        A.solve(B, variant="serial", eps=0.001)
    assert A.solve(B, variant="serial").objective == 2**30


@pytest.mark.parametrize("eps", [-5, 0, float("nan"), float("inf"), "0.1", True])
def test_dgs_ignores_eps_but_refuses_a_bad_one(eps):
    B = A.uniform_instance(4, 4, 1, 9, seed=3)
    with pytest.raises(ValueError, match="eps must be a positive"):
        A.solve(B, "dgs", variant="serial", eps=eps)
    assert A.solve(B, "dgs", variant="serial", eps=0.5).objective == A.solve(B, "dgs", variant="serial").objective
