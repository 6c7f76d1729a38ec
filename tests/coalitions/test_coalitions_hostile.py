"""Hostile input to coalition structure generation: readers, bids, estimates and the CPU
solves answer with a valid result or a clear ValueError/TypeError, quickly."""
import math
import time

import numpy as np
import pytest
from hypothesis import given, strategies as st

from gpualgo import coalitions as co
from hostile import FAST, answer_or_refusal, quick



# ------------------------------------------------------------------- the known bad inputs

def test_estimates_answer_at_once_for_absurd_n():
    assert "1..31" in quick(co.estimate_seconds, 10**9, "serial")
    assert "1..31" in quick(co.total_splits, 10**6)
    assert "rule" in quick(co.estimate_seconds, 10, "serial", "fast")
    assert co.total_splits(31) == (3**31 + 1) // 2 - 2**31     # DP's closed form, at the top n


def test_from_bids_refuses_prices_beyond_floats():
    assert "bid 0" in quick(co.from_bids, 3, [(1, 10**400)])
    assert "bid 1" in quick(co.from_bids, 4, [(1, 1.0), (2, 1e38)], dtype=np.float32)   # 4 * 1e38 > float32
    assert co.from_bids(3, [(1, 1e37)], dtype=np.float32)[1] == np.float32(1e37)


def test_from_bids_refuses_a_table_beyond_memory(monkeypatch):
    from gpualgo import guards
    monkeypatch.setattr(guards, "host_bytes", lambda: 2**20)
    assert "force=True" in quick(co.from_bids, 20, [])
    assert co.from_bids(20, [], force=True).shape == (2**20,)


def test_an_npy_header_that_parses_only_with_a_warning_is_refused_without_it(tmp_path):
    import warnings
    path = tmp_path / "v.npy"
    np.save(path, co.random_values(3, seed=1))
    raw = path.read_bytes()
    i = raw.index(b"'<f8'")
    path.write_bytes(raw[:i] + b"'<\\%'" + raw[i + 5:])     # an invalid escape in the header's literal
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert "not a .npy file numpy can read" in quick(co.read_values, path)
    assert not seen, [str(w.message) for w in seen]


def test_ragged_values_say_so():
    assert "rows of different lengths" in quick(co.validate_values, [[0, 1], [2]])
    assert "rows of different lengths" in quick(co.solve, [[0, 1], [2]], variant="serial")


def test_non_utf8_values_file_names_the_file_and_line(tmp_path):
    path = tmp_path / "v.txt"
    path.write_bytes(b"0\n1\n\xff\n")
    assert f"{path}: line 3: not UTF-8" in quick(co.read_values, path)


def test_npy_files_checked_before_loading(tmp_path):
    garbage = tmp_path / "g.npy"
    garbage.write_bytes(b"garbage" * 10)
    assert str(garbage) in quick(co.read_values, garbage)
    huge = tmp_path / "h.npy"
    with open(huge, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
        fh.write(b"\0" * 64)
    assert str(huge) in quick(co.read_values, huge)
    fits = tmp_path / "f.npy"
    with open(fits, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (2**20,)})
        fh.write(b"\0" * 64)
    assert "bytes of data" in quick(co.read_values, fits)
    pickled = tmp_path / "p.npy"
    np.save(pickled, np.array([0, "a"], dtype=object), allow_pickle=True)
    assert "dtype object" in quick(co.read_values, pickled)


@pytest.mark.parametrize("seed", ["x", 1.5, -1, True, np.bool_(True), [1, 2]])
def test_random_values_refuse_a_seed_by_name(seed):
    # before: "x" and 1.5 raised numpy's TypeError naming no argument, True drew the values of seed 1
    with pytest.raises(ValueError, match=r"^seed must be None, a non-negative integer or a numpy Generator, got "):
        co.random_values(3, seed=seed)


def test_random_values_keep_their_valid_seeds():
    assert co.random_values(4, seed=2).tolist() == co.random_values(4, seed=np.int64(2)).tolist()
    assert co.random_values(4, seed=np.random.default_rng(5)).tolist() == \
        co.random_values(4, seed=np.random.default_rng(5)).tolist()
    assert co.random_values(3, seed=np.random.SeedSequence(1)).shape == (8,)


@pytest.mark.parametrize("kwargs, match", [
    (dict(distribution=["uniform"]), r"^unknown distribution \['uniform'\]; known: "),
    (dict(distribution=None), r"^unknown distribution None; known: "),
    (dict(dtype="junk"), r"^dtype must be float32 or float64, got 'junk'"),
    (dict(dtype=object()), r"^dtype must be float32 or float64, got <object object"),
])
def test_random_values_name_a_bad_distribution_or_dtype(kwargs, match):
    # before: a list raised TypeError "unhashable type", a dtype numpy does not know its TypeError
    with pytest.raises(ValueError, match=match):
        co.random_values(3, seed=1, **kwargs)


# -------------------------------------------------------------------- property tests

NUMBER_TEXT = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                        st.integers(-2**1100, 2**1100).map(str),
                        st.sampled_from(["nan", "inf", "-inf", "1e400", "-0", "0x10", "1_0", "", "# x"]))


#: a value function written out as text (v(empty) = 0, then 2**n - 1 finite values): a file the
#: reader must answer with those values
WRITTEN = st.integers(1, 4).flatmap(lambda n: st.lists(
    st.floats(-1e6, 1e6).map(repr), min_size=2**n - 1, max_size=2**n - 1).map(lambda rest: ["0.0"] + rest))


@FAST
@given(st.one_of(st.tuples(WRITTEN, st.just(b""), st.just(True)),
                 st.tuples(st.lists(st.one_of(NUMBER_TEXT, st.text(max_size=10)), max_size=17),
                           st.binary(max_size=10), st.just(False))))
def test_read_values_text(tmp_path_factory, file):
    lines, tail, written = file
    path = tmp_path_factory.mktemp("v") / "v.txt"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass") + tail)

    def check(v):
        co.validate_values(v)
        if written:
            assert v.tolist() == [float(w) for w in lines]
    out = answer_or_refusal(lambda: co.read_values(path), check)
    assert out is not None or not written, "a value function written as text was refused"


@FAST
@given(st.integers(1, 5), st.integers(0, 200), st.binary(max_size=16), st.sampled_from([np.float32, np.float64, np.int8]))
def test_read_values_npy_mutated(tmp_path_factory, n, cut, junk, dtype):
    path = tmp_path_factory.mktemp("v") / "v.npy"
    v = co.random_values(n, seed=n)
    np.save(path, v.astype(dtype))
    raw = path.read_bytes()
    k = len(raw) - cut if cut < len(raw) else 0
    path.write_bytes(raw[:k] + junk + raw[k + len(junk):])
    answer_or_refusal(lambda: co.read_values(path), lambda w: co.validate_values(w))


PRICES = st.one_of(st.integers(-10, 10**400), st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from(["1", None, 1e38, 3.4e38, True]))
BUNDLES = st.one_of(st.integers(-3, 2**70), st.lists(st.integers(-2, 40), max_size=4),
                    st.sampled_from([1.0, "ab", None, True, (), [True]]))


@FAST
@given(st.one_of(st.integers(-3, 40), st.sampled_from([2.0, "3", None, True])),
       st.lists(st.tuples(BUNDLES, PRICES), max_size=5), st.sampled_from([np.float64, np.float32]))
def test_from_bids(n, bids, dtype):
    def check(v):
        co.validate_values(v)
    if isinstance(n, int) and n > 20:    # tables this large may be drawn here: only ask for the refusals
        return
    answer_or_refusal(lambda: co.from_bids(n, bids, dtype=dtype), check)


VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-2**70, 2**70),
                   st.sampled_from([0.0, 1e308, -1e308, 3e38]))


@st.composite
def value_functions(draw):
    kind = draw(st.sampled_from(["array", "ragged", "odd", "dtype"]))
    if kind == "ragged":
        return [draw(st.lists(VALUES, max_size=3)) for _ in range(draw(st.integers(0, 3)))]
    if kind == "odd":
        return draw(st.lists(VALUES, max_size=9))
    if kind == "dtype":
        return draw(st.sampled_from([np.array(["a", "b"]), np.ones(4, bool), np.ones(4, np.float16),
                                     np.ones(4, complex), np.array([0, None]), np.zeros((2, 2)), np.zeros(())]))
    n = draw(st.integers(1, 5))
    vals = [0.0] + draw(st.lists(VALUES, min_size=2**n - 1, max_size=2**n - 1))
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, object]))
    with np.errstate(all="ignore"):
        try:
            return np.array(vals, dtype=np.float64).astype(dtype)
        except (OverflowError, ValueError):
            return np.array(vals, dtype=object)


@FAST
@given(value_functions(), st.sampled_from([("serial", {}), ("serial", {"rule": "idp"}), ("serial", {"rule": "odp"}),
                                           ("serial_odp", {}), ("serial", {"rule": "x"}),
                                           ("serial_odp", {"rule": "dp"})]))
def test_cpu_solves(values, version):
    variant, opts = version

    def check(r):
        v, n = co.validate_values(values)
        assert co.check_partition(r.partition, n) == r.partition
        assert math.isfinite(r.value)
        best = co.brute_force(v)[0]
        assert abs(r.value - best) <= co.tolerance(v.dtype) * n * max(1.0, float(np.abs(v).max()))
    answer_or_refusal(lambda: co.solve(values, variant=variant, **opts), check)


@FAST
@given(st.one_of(st.integers(1, 31), st.integers(-5, 10**12), st.sampled_from([2.5, "3", None, True, float("nan")])),
       st.sampled_from(["serial", "serial_odp", "gpu_odp", "nope"]), st.sampled_from([None, "dp", "odp", "x"]))
def test_estimates(n, variant, rule):
    t0 = time.perf_counter()
    answer_or_refusal(lambda: co.estimate_seconds(n, variant, rule), lambda s: s >= 0)
    answer_or_refusal(lambda: co.total_splits(n, rule or "dp"), lambda s: s >= 0)
    assert time.perf_counter() - t0 < 1


def test_big_endian_npy_reads_back(tmp_path):
    path = tmp_path / "be.npy"
    v = co.random_values(4, seed=2)
    np.save(path, v.astype(">f8"))
    assert np.array_equal(co.read_values(path), v)


def test_a_table_too_large_is_refused_before_its_values_are_converted():
    # 64 MiB of int8 would become 512 MiB of float64, for a run refused by its size alone
    v = np.zeros(1 << 26, dtype=np.int8)
    co.estimate_seconds(26, "serial")    # the estimate's numba functions, loaded once, outside the timing
    assert "n=26 agents evaluates" in quick(co.solve, v, variant="serial")
    assert "n=26 agents evaluates" in quick(co.solve, v.astype(np.float32), variant="serial_odp")


def test_gpu_option_values_are_refused_alike_with_and_without_a_gpu():
    v = co.random_values(4, seed=1)
    for variant in co.VARIANTS:
        if "block" in co.VARIANTS[variant].options:
            assert "block" in quick(co.solve, v, variant=variant, block=7)
    assert "low_bits" in quick(co.solve, v, variant="gpu_odp", low_bits=99)


def test_a_directory_is_not_a_file_of_values(tmp_path):
    for name in ("v.txt", "v.npy"):
        (tmp_path / name).mkdir()
        assert "a directory" in quick(co.read_values, tmp_path / name)


def test_reading_as_float32_a_value_beyond_its_range_names_it(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("0\n1\n1e39\n2\n")
    assert co.read_values(path)[2] == 1e39
    assert f"{path}: values[2] = 1e+39 is beyond the largest float32" in quick(co.read_values, path, dtype=np.float32)
    path.write_text("0\n1\n-inf\n2\n")     # no format writes inf: refused as it is read
    assert f"{path}: line 3: '-inf' is not a number" in quick(co.read_values, path, dtype=np.float32)
    path.write_text("0\n1\n-1e400\n2\n")
    assert f"{path}: line 3: '-1e400' is beyond the range of a float" in quick(co.read_values, path)


def test_integers_a_float64_total_would_round_are_refused_in_text_and_bids(tmp_path):
    """9007199254740993 = 2**53 + 1 read as float64 is 2**53: the optimum found would be another's."""
    path = tmp_path / "v.txt"
    path.write_text("0\n9007199254740993\n1\n9007199254740993\n")
    assert f"{path}: line 2: 9007199254740993: a partition adds up to n=2 such integers" in quick(co.read_values, path)
    path.write_text("0\n9.007199254740993e15\n1\n2\n")      # as a decimal: the rounding is accepted
    assert co.read_values(path)[1] == 2.0**53
    assert "integer price 9007199254740993" in quick(co.from_bids, 2, [([0], 2**53 + 1), ([1], 1)])
    for price in ("5", b"5", True, np.bool_(False)):
        assert "the price must be a number" in quick(co.from_bids, 2, [([0], price)])


def test_a_gpu_version_without_a_gpu_says_so_before_reading_the_values(monkeypatch):
    import importlib
    from gpualgo import gpu
    if gpu.available():
        return
    mod = importlib.import_module("gpualgo.coalitions.solve")
    monkeypatch.setattr(mod, "validate_values", lambda *a, **k: (_ for _ in ()).throw(AssertionError("read")))
    try:
        co.solve(np.zeros(1 << 10), variant="gpu_odp")
    except gpu.GPUUnavailableError:
        pass
    else:
        raise AssertionError("a GPU version ran without a GPU")


def test_size_helpers_refuse_sizes_that_are_not_sizes():
    for call, words in ((lambda: co.popcounts(40), "in 1..31, got 40"), (lambda: co.popcounts(-1), "got -1"),
                        (lambda: co.table_bytes(-1), ">= 0, got -1"), (lambda: co.table_bytes(2.5), "got 2.5")):
        assert words in quick(call)
    assert co.table_bytes(40, np.float32, tables=1) == 4 << 40      # an estimate beyond MAX_AGENTS is still given


@pytest.mark.parametrize("values", [np.array([0, 1, 1, 0], dtype=bool), [False, True, True, True]])
def test_a_bool_table_is_no_value_function(values):
    # before: True and False were read as values 1 and 0; the other problems refuse bool input
    for make in (lambda: co.solve(values, variant="serial"), lambda: co.validate_values(values)):
        with pytest.raises(ValueError, match=r"values must be numbers, got dtype bool \(a bool table is not read"):
            make()


def test_python_integers_beyond_64_bits_are_named():
    with pytest.raises(ValueError, match=r"values holds integers beyond 64 bits \(such as 1180591620717411303424\)"):
        co.validate_values([0, 2**70, 1, 2])
