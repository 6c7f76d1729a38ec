"""Value functions, files, bids, validation and the independent checks."""
import numpy as np
import pytest

from gpualgo import coalitions as co


@pytest.mark.parametrize("dist", sorted(co.DISTRIBUTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_distributions_shape_seed_dtype(dist, dtype):
    v = co.random_values(10, dist, seed=5, dtype=dtype)
    assert v.shape == (1024,) and v.dtype == dtype and v[0] == 0 and np.isfinite(v).all()
    assert np.array_equal(v, co.random_values(10, dist, seed=5, dtype=dtype))
    assert not np.array_equal(v, co.random_values(10, dist, seed=6, dtype=dtype))


def test_distribution_laws():
    n = 14
    size = co.popcounts(n).astype(float)
    u = co.random_values(n, "uniform", seed=1)
    assert (u[1:] >= 0).all() and (u[1:] <= size[1:]).all()
    assert abs(np.mean(u[1:] / size[1:]) - 0.5) < 0.01
    nr = co.random_values(n, "normal", seed=1)
    assert (nr >= 0).all() and abs(np.mean(nr[1:] / size[1:]) - 10) < 0.01
    nd = co.random_values(n, "ndcs", seed=1)
    assert (nd < 0).any()                      # NDCS has negative values: solvers must cope
    z = (nd[1:] - size[1:]) / np.sqrt(size[1:])
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05
    mu = co.random_values(n, "modified_uniform", seed=1)
    assert (mu[1:] <= 10 * size[1:] + 50).all() and (mu[1:] > 10 * size[1:]).any()
    ab = co.random_values(n, "agent_based", seed=1)
    assert (ab >= 0).all() and (ab[1:] > 0).all()


def test_popcounts():
    pc = co.popcounts(5)
    assert [int(pc[m]) for m in (0, 1, 3, 7, 31, 21)] == [0, 1, 2, 3, 5, 3]


@pytest.mark.parametrize("bad, msg", [
    (np.zeros(6), "power of two"),
    (np.zeros(1), "power of two"),
    (np.ones(8), "must be 0"),
    (np.array([0, 1, np.nan, 2.0]), "finite"),
    (np.array([0, 1, np.inf, 2.0]), "finite"),
    (np.zeros((2, 2)), "1-D"),
    (np.array(["0", "1"]), "float32 or float64"),
])
def test_validation_errors(bad, msg):
    with pytest.raises(ValueError, match=msg):
        co.validate_values(bad)
    with pytest.raises(ValueError, match=msg):
        co.solve(bad, variant="serial")


def test_integers_become_float64():
    v, n = co.validate_values(np.array([0, 3, 4, 5]))
    assert v.dtype == np.float64 and n == 2


def test_memory_refusal_names_the_estimate(monkeypatch):
    from gpualgo import guards
    monkeypatch.setattr(guards, "host_bytes", lambda: 1 << 20)
    with pytest.raises(ValueError, match=r"on n=18 agents as float64 needs about 2.5 MiB of host memory "
                                         r"and 1.0 MiB can be had now; float32 needs less"):
        co.random_values(18, seed=1)
    monkeypatch.setattr(guards, "host_bytes", lambda: 2 << 20)
    v64 = co.random_values(17, seed=1, force=True)
    with pytest.raises(ValueError, match=r"n=17 agents as float64 needs about 2.0 MiB .*; float32 halves it, "
                                         r"or pass force=True"):
        co.solve(v64, variant="serial")
    co.solve(v64.astype(np.float32), variant="serial", rule="idp")   # float32 fits: 1 MiB tables
    assert co.table_bytes(17, np.float32) == co.table_bytes(17, np.float64) // 2


def test_time_refusal():
    v = np.zeros(1 << 26, dtype=np.float32)
    with pytest.raises(ValueError, match="splits"):
        co.solve(v, variant="serial")


def test_bad_arguments():
    with pytest.raises(ValueError, match="distribution"):
        co.random_values(4, "zipf")
    with pytest.raises(ValueError, match="n \\(agents\\)"):
        co.random_values(0)
    with pytest.raises(ValueError, match="dtype"):
        co.random_values(3, dtype=np.int32)
    v = co.random_values(3, seed=1)
    with pytest.raises(ValueError, match="unknown variant"):
        co.solve(v, variant="nope")
    with pytest.raises(ValueError, match="unknown option"):
        co.solve(v, variant="serial", block=32)
    with pytest.raises(ValueError, match="rule"):
        co.solve(v, variant="serial", rule="fast")


@pytest.mark.parametrize("suffix", [".txt", ".npy"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_files_round_trip(tmp_path, suffix, dtype):
    v = co.random_values(7, "ndcs", seed=3, dtype=dtype)
    path = co.write_values(tmp_path / f"v{suffix}", v)
    back = co.read_values(path, dtype=dtype)
    assert back.dtype == dtype and np.array_equal(back, v)
    if suffix == ".txt":
        lines = path.read_text().splitlines()
        assert len(lines) == 128 and float(lines[5]) == float(v[5])


def test_text_file_errors(tmp_path):
    p = tmp_path / "v.txt"
    p.write_text("# four coalitions\n0\n1.5\n\nabc\n2\n")
    with pytest.raises(ValueError, match=r"v.txt: line 5: .* is not a number"):
        co.read_values(p)
    p.write_text("0\n1\n2\n")
    with pytest.raises(ValueError, match="power of two"):
        co.read_values(p)
    p.write_text("1\n1\n")
    with pytest.raises(ValueError, match="must be 0"):
        co.read_values(p)
    p.write_text("0 # empty\n1\n\n2\n3.25\n")
    assert co.read_values(p).tolist() == [0, 1, 2, 3.25]


def test_from_bids_is_winner_determination():
    bids = [({0, 1}, 5.0), ([2], 1.0), (0b100, 2.5), ({0}, 2.0), ({1, 2}, 4.0), (0b111, 6.0)]
    v = co.from_bids(3, bids)
    assert v[0b011] == 5 and v[0b100] == 2.5 and v[0b010] == 0 and v[0b111] == 6
    value, parts, _ = co.brute_force(v)
    assert value == 7.5 and parts == [0b011, 0b100]
    r = co.solve(v, variant="serial")
    assert r.value == 7.5 and r.partition == [0b011, 0b100]
    for bad, msg in [([({5}, 1.0)], "items"), ([(0, 1.0)], "empty"), ([({0}, -1)], "price"),
                     ([({0}, float("nan"))], "price")]:
        with pytest.raises(ValueError, match=msg):
            co.from_bids(3, bad)


def test_check_partition():
    assert co.check_partition([0b0011, 0b1100], 4) == [3, 12]
    for bad, msg in [([0b0011, 0b0110, 0b1000], "two coalitions"), ([0b0011], "no coalition"),
                     ([0, 0b1111], "empty"), ([0b10000, 0b1111], "beyond"),
                     ([1.5, 0b1110], "integer bitmask"), ([True, 0b1110], "integer bitmask"),
                     (["3", 0b1100], "integer bitmask"), (np.array([3.0, 12.0]), "integer bitmask")]:
        with pytest.raises(ValueError, match=msg):
            co.check_partition(bad, 4)
    v = np.arange(16, dtype=float)
    assert co.partition_value(v, [1, 2, 12]) == 15.0
    assert co.check_partition(np.array([3, 12], dtype=np.uint32), 4) == [3, 12]


def test_brute_force_counts_every_partition():
    assert [co.bell(k) for k in range(8)] == [1, 1, 2, 5, 15, 52, 203, 877]
    for n in (1, 2, 5, 9):
        _, parts, count = co.brute_force(co.random_values(n, seed=n))
        assert count == co.bell(n)
        co.check_partition(parts, n)
    with pytest.raises(ValueError, match="refused"):
        co.brute_force(np.zeros(1 << 12))


def test_brute_force_small_by_hand():
    # 3 agents: v({0,1}) = 5 beats everything else; {2} alone adds 1
    v = np.array([0, 1, 1, 5, 1, 2, 2, 5.5])
    value, parts, _ = co.brute_force(v)
    assert value == 6 and parts == [0b011, 0b100]


def test_shipped_instances():
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2] / "data" / "instances" / "coalitions"
    a = co.read_values(root / "normal_n8_seed1.txt")
    assert np.array_equal(a, co.random_values(8, "normal", seed=1))
    b = co.read_values(root / "ndcs_n10_seed2_float32.npy")
    assert b.dtype == np.float32 and np.array_equal(b, co.random_values(10, "ndcs", seed=2, dtype=np.float32))
    for v in (a, b):
        assert abs(co.solve(v, variant="serial").value - co.brute_force(v)[0]) < 1e-3


def _plain(n, dist, seed):
    """Each distribution written out from its definition with the same random draws, one
    agent or one coalition at a time (float64)."""
    rng = np.random.default_rng(seed)
    masks = range(1 << n)
    size = np.array([bin(m).count("1") for m in masks], dtype=float)
    if dist == "uniform":
        v = size * rng.random(1 << n)
    elif dist == "normal":
        v = np.maximum(0.0, size * rng.normal(10.0, 0.1, 1 << n))
    elif dist == "ndcs":
        v = rng.normal(size, np.sqrt(size))
    elif dist == "modified_uniform":
        v = rng.uniform(0.0, 10.0, 1 << n) * size
        bonus = np.flatnonzero(rng.random(1 << n) < 0.2)
        v[bonus] += rng.uniform(0.0, 50.0, len(bonus))
    else:
        power = rng.uniform(0.0, 10.0, n)
        v = np.zeros(1 << n)
        for i in range(n):
            members = [m for m in masks if m >> i & 1]
            v[members] += rng.uniform(0.0, 2.0 * power[i], len(members))
    v[0] = 0
    return v


@pytest.mark.parametrize("dist", sorted(co.DISTRIBUTIONS))
def test_generators_follow_their_definition(dist):
    for n, seed in [(1, 4), (3, 0), (7, 11), (10, 2)]:
        plain = _plain(n, dist, seed)
        assert np.array_equal(co.random_values(n, dist, seed=seed), plain)
        v32 = co.random_values(n, dist, seed=seed, dtype=np.float32)
        if dist != "uniform":   # uniform draws float32 numbers directly
            assert np.array_equal(v32, plain.astype(np.float32))


def test_uniform_instances_are_those_of_the_recorded_results():
    # the recorded runs name (distribution, n, seed, dtype): the same instances today
    from gpualgo import results
    rows = [r for r in results.read("coalitions", "report").rows
            if r["variant"] == "serial" and r["n"] <= 14]
    assert rows
    for r in rows:
        v = co.random_values(r["n"], r["distribution"], seed=r["seed"], dtype=np.dtype(r["dtype"]))
        if r["n"] <= 11:
            assert abs(co.brute_force(v)[0] - r["objective"]) <= 1e-9 * r["objective"]
        assert abs(co.solve(v, variant="serial").value - r["objective"]) <= 1e-9 * r["objective"]


@pytest.mark.parametrize("dist", sorted(co.DISTRIBUTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_generation_refused_below_its_measured_peak(dist, dtype, monkeypatch):
    import tracemalloc

    from gpualgo import guards
    n = 18
    tracemalloc.start()
    v = co.random_values(n, dist, seed=1, dtype=dtype)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del v
    need = co.generation_bytes(n, dist, dtype)
    assert peak <= need <= 1.3 * peak, (peak, need)
    monkeypatch.setattr(guards, "host_bytes", lambda: peak)
    with pytest.raises(ValueError, match=f"as {np.dtype(dtype).name} needs about .* of host memory"):
        co.random_values(n, dist, seed=1, dtype=dtype)
    co.random_values(n, dist, seed=1, dtype=dtype, force=True)


def test_float32_reaches_further_in_the_dp_tables():
    for n in (20, 28):
        assert co.table_bytes(n, np.float32) == co.table_bytes(n, np.float64) // 2
    assert co.generation_bytes(25, "uniform", np.float32) < co.generation_bytes(25, "uniform", np.float64)


def test_negative_values_are_allowed():
    v, n = co.validate_values(np.array([0, -1.0, -2.0, -4.0]))
    assert n == 2
    r = co.solve(v, variant="serial")
    assert r.partition == [1, 2] and r.value == -3.0


@pytest.mark.parametrize("v", [np.array([0, 3e38, 3e38, 3e38], dtype=np.float32),
                               np.array([0, -2e38, 1, 1], dtype=np.float32),
                               np.array([0, 1e308, 1e308, 1.0])])
def test_values_whose_sums_overflow_are_refused(v):
    with pytest.raises(ValueError, match="could pass the largest " + v.dtype.name):
        co.validate_values(v)
    with pytest.raises(ValueError, match="scale the values down"):
        co.solve(v, variant="serial")
    co.validate_values(v / 4)     # n = 2 values of a quarter of it fit


def test_file_errors_name_the_file(tmp_path):
    p = tmp_path / "counts.txt"
    p.write_text("0\n1\n2\n")
    with pytest.raises(ValueError, match=r"counts.txt: the length of values must be a power of two.*got 3"):
        co.read_values(p)
    q = tmp_path / "odd.npy"
    np.save(q, np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"odd.npy: values\[0\]"):
        co.read_values(q)
    for word in ("nan", "inf", "-Infinity", "1_0", "\u0662"):     # Python's float() takes every one of these
        p.write_text(f"0\n1\n{word}\n2\n")
        with pytest.raises(ValueError, match=rf"counts.txt: line 3: '{word}' is not a number"):
            co.read_values(p)


@pytest.mark.parametrize("bid, msg", [(({0},), "pair"), ((True, 1.0), "bundle"), ((1.0, 2.0), "bundle"),
                                      (("ab", 1.0), "bundle"), ((5, "x"), "price"), (([True], 1.0), "items"),
                                      ((None, 1.0), "bundle"), (7, "pair")])
def test_malformed_bids(bid, msg):
    with pytest.raises(ValueError, match=f"bid 0: .*{msg}"):
        co.from_bids(3, [bid])


def test_integers_that_float64_would_round_are_refused():
    # {0, 1} together earn 2**54 + 1, one more than the singletons: float64 holds 2**54
    v = np.array([0, 2**53, 2**53, 2**54 + 1], dtype=np.int64)
    for bad in (v, v.astype(np.uint64), np.array([0, 2**64 - 1], dtype=np.uint64)):
        with pytest.raises(ValueError, match=r"values\[\d\] = \d+: .* could pass 2\*\*53"):
            co.solve(bad, variant="serial")
    assert co.solve(v.astype(np.float64), variant="serial").value == 2.0**54    # floats: rounding accepted
    w = np.array([0, 2**51 + 1, 2**51, 2**52])                                   # n * 2**52 = 2**53: exact
    r = co.solve(w, variant="serial")
    assert r.partition == [1, 2] and r.value == 2**52 + 1


def test_big_endian_and_masked_values():
    v = co.random_values(5, "ndcs", seed=4)
    for dtype in (">f8", ">f4"):
        w = v.astype(dtype)
        r = co.solve(w, variant="serial")
        assert r.stats["dtype"] == np.dtype(dtype).newbyteorder("=").name
        assert r.partition == co.solve(w.astype(np.dtype(dtype).newbyteorder("=")), variant="serial").partition
    masked = np.ma.masked_array(v, mask=np.arange(32) == 3)
    with pytest.raises(ValueError, match="masked entries"):
        co.solve(masked, variant="serial")
    assert co.solve(np.ma.masked_array(v), variant="serial").value == co.solve(v, variant="serial").value


def test_text_file_with_a_byte_order_mark(tmp_path):
    p = tmp_path / "v.txt"
    p.write_bytes(b"\xef\xbb\xbf# from a spreadsheet\r\n0\r\n1.5\r\n2\r\n4\r\n")
    assert co.read_values(p).tolist() == [0, 1.5, 2, 4]
    p.write_bytes(b"0\n\xef\xbb\xbf1\n2\n4\n")     # only the file's first bytes may be one
    with pytest.raises(ValueError, match=r"v.txt: line 2: .* is not a number"):
        co.read_values(p)


def test_text_file_with_old_mac_line_ends(tmp_path):
    # a file whose lines end at \r alone was one line, a comment: no values at all
    p = tmp_path / "v.txt"
    p.write_bytes(b"# four coalitions\r0\r1.5\r2\r4\r")
    assert co.read_values(p).tolist() == [0, 1.5, 2, 4]
    p.write_bytes(b"# four coalitions\r0\r1.5\rtwo\r4\r")
    with pytest.raises(ValueError, match=r"v.txt: line 4: 'two' is not a number"):
        co.read_values(p)
