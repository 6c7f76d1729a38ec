"""Generators, the binary instance format and the batch generator."""
import numpy as np
import pytest

from gpualgo import assignment as A
from gpualgo.assignment import instances


@pytest.mark.parametrize("m,n,density", [(40, 40, 1.0), (30, 50, 0.1), (60, 60, 0.3), (1, 5, 0.01)])
def test_report_instance_has_a_full_assignment(m, n, density, rng):
    B = A.report_instance(m, n, density, seed=rng, limit=50)
    assert B.shape == (m, n)
    finite = B[np.isfinite(B)] if B.dtype.kind == "f" else B.ravel()
    assert finite.min() >= 1 and finite.max() <= 50
    assert np.array_equal(finite, np.rint(finite))
    assert A.max_matching_size(B) == m  # the permutation drawn first
    if density == 1.0:
        assert B.dtype == np.int32
    else:
        assert np.isneginf(B).any()


def test_report_instance_density_and_seed():
    B = A.report_instance(400, 400, 0.1, seed=7)
    frac = np.isfinite(B).mean()
    assert 0.09 < frac < 0.115
    assert np.array_equal(B, A.report_instance(400, 400, 0.1, seed=7))
    assert not np.array_equal(B, A.report_instance(400, 400, 0.1, seed=8))


def test_uniform_and_geom(rng):
    U = A.uniform_instance(30, 40, low=0, high=3, seed=rng)
    assert U.shape == (30, 40) and U.min() >= 0 and U.max() <= 3 and U.dtype == np.int32
    G = A.geom_instance(20, 25, side=100.0, scale=10.0, seed=1)
    assert G.dtype == np.int64 and G.shape == (20, 25)
    assert G.min() >= 0 and G.max() <= np.ceil(np.sqrt(2) * 100 * 10)


@pytest.mark.parametrize("bad", [dict(m=0), dict(m=5, n=3), dict(m=3, density=0), dict(m=3, density=1.5),
                                 dict(m=3, limit=0)])
def test_generator_rejects_bad_parameters(bad):
    with pytest.raises(ValueError):
        A.report_instance(**bad)


def test_file_roundtrip(tmp_path, rng):
    for B in (A.report_instance(7, 9, 0.4, seed=rng), A.uniform_instance(5, 5, seed=rng, low=-100, high=100)):
        path = A.write_instance(tmp_path / "x.bin", B)
        assert path.stat().st_size == 8 + 4 * B.size
        header = np.frombuffer(path.read_bytes()[:8], dtype="<i4")
        assert tuple(header) == B.shape
        C = A.read_instance(path)
        assert C.shape == B.shape
        assert np.array_equal(np.isneginf(C), np.isneginf(np.asarray(B, float)))
        assert np.array_equal(np.where(np.isfinite(C), C, 0), np.where(np.isfinite(B), B, 0))


def test_file_layout_is_little_endian_int32(tmp_path):
    B = np.array([[1, 2, 3], [4, -np.inf, 6]])
    raw = A.write_instance(tmp_path / "y.bin", B).read_bytes()
    vals = np.frombuffer(raw, dtype="<i4")
    assert list(vals[:2]) == [2, 3]
    assert list(vals[2:]) == [1, 2, 3, 4, np.iinfo(np.int32).min, 6]


def test_corrupt_files(tmp_path):
    good = A.write_instance(tmp_path / "g.bin", A.uniform_instance(4, 6, seed=0)).read_bytes()
    cases = {"short.bin": good[:5], "trunc.bin": good[:-4], "trail.bin": good + b"\0\0\0\0",
             "neg.bin": np.array([-3, 4], "<i4").tobytes()}
    for name, data in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(ValueError, match=name):
            A.read_instance(p)


def test_write_rejects_non_integers(tmp_path):
    with pytest.raises(ValueError):
        A.write_instance(tmp_path / "z.bin", np.array([[1.5, 2.0]]))
    with pytest.raises(ValueError):
        A.write_instance(tmp_path / "z.bin", np.array([[2**40, 2]]))


def test_write_refuses_what_numpy_would_read_as_dense(tmp_path):
    # a masked benefit used to be written as a benefit, and read back as one
    import scipy.sparse as sp
    M = np.ma.masked_array([[1, 100], [100, 1]], mask=[[0, 1], [0, 0]])
    with pytest.raises(ValueError, match="masked entry"):
        A.write_instance(tmp_path / "m.bin", M)
    with pytest.raises(ValueError, match="sparse matrix"):
        A.write_instance(tmp_path / "s.bin", sp.csr_matrix(np.eye(2)))
    assert not (tmp_path / "m.bin").exists() and not (tmp_path / "s.bin").exists()
    C = A.read_instance(A.write_instance(tmp_path / "f.bin", M.astype(float).filled(-np.inf)))
    assert np.array_equal(C, [[1, -np.inf], [100, 1]])


def test_batch_config(tmp_path):
    cfg = tmp_path / "batch.cfg"
    cfg.write_text("# example\n42 500\n\n10 12 0.5\n8 8 1   # dense\n")
    seed, limit, specs = A.read_batch_config(cfg)
    assert (seed, limit, specs) == (42, 500, [(10, 12, 0.5), (8, 8, 1.0)])
    paths = A.generate_batch(cfg, tmp_path / "out")
    assert len(paths) == 2
    B0 = A.read_instance(paths[0])
    assert B0.shape == (10, 12) and np.nanmax(np.where(np.isfinite(B0), B0, np.nan)) <= 500
    again = A.generate_batch(cfg, tmp_path / "out2")
    assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in again]


def test_batch_config_default_limit_and_errors(tmp_path):
    cfg = tmp_path / "a.cfg"
    cfg.write_text("3\n4 4 1\n")
    assert A.read_batch_config(cfg)[1] == instances.DEFAULT_LIMIT
    for text, line in [("x\n", 1), ("1 2 3\n", 1), ("1\n4 4\n", 2), ("1\n5 4 1\n", 2), ("1\n4 4 0\n", 2), ("", None)]:
        cfg.write_text(text)
        with pytest.raises(ValueError, match=f"a.cfg: line {line}:" if line else "empty"):
            A.read_batch_config(cfg)


def test_batch_config_saved_by_notepad_and_comments_with_odd_breaks(tmp_path):
    cfg = tmp_path / "n.cfg"
    cfg.write_bytes("\ufeff42 500\r\n# sizes\u2028and\x0cdensities\r\n10 12 0.5\r\n8 8 1\r\n".encode())
    assert A.read_batch_config(cfg) == (42, 500, [(10, 12, 0.5), (8, 8, 1.0)])
    cfg.write_bytes("42\r# sizes\u2028and\x0cdensities\r10 12 0.5\r8 8 7\r".encode())
    with pytest.raises(ValueError, match=r"n\.cfg: line 4: density 7\.0 not in"):
        A.read_batch_config(cfg)


def test_readers_refuse_a_directory(tmp_path):
    for read in (A.read_batch_config, A.read_instance):
        with pytest.raises(ValueError, match=f"{tmp_path.name}: is a directory"):
            read(tmp_path)


def test_shipped_instances_and_config():
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2] / "data" / "instances" / "assignment"
    files = sorted(root.glob("*.bin"))
    assert files, "the suite ships example instances"
    for f in files:
        B = A.read_instance(f)
        assert A.max_matching_size(B) == B.shape[0]
    assert A.read_batch_config(root / "example_batch.cfg")[2]
