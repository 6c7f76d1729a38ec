"""The report's tuning steps as options of the GPU versions: their values are refused before a
GPU is asked for, and version (a)'s host writes the same orders in every layout and index type
(no GPU needed; the GPU runs are in test_gpu_tsp.py)."""
import numpy as np
import pytest

from gpualgo import tsp
from gpualgo.tsp import enumeration
from gpualgo.tsp import gpu as tsp_gpu
from gpualgo.tsp.solve import check

BAD = [("gpu_host_chunks", "index", "int8"), ("gpu_host_chunks", "host_buffer", "zero-copy"),
       ("gpu_host_chunks", "matrix", "local"), ("gpu_host_chunks", "layout", "row"),
       ("gpu_host_chunks", "reduce", "gpu"), ("gpu_unrank", "matrix", "constant"),
       ("gpu_shared_incremental", "matrix", True), ("gpu_shared_incremental", "incremental", 0),
       ("gpu_shared_incremental", "incremental", "no")]


@pytest.mark.parametrize("variant,option,value", BAD)
def test_bad_values_are_refused_naming_the_option_without_a_gpu(variant, option, value):
    with pytest.raises(ValueError, match=rf"^{option} must be one of"):
        check(8, variant, **{option: value})
    with pytest.raises(ValueError, match=rf"^{option} must be one of"):
        tsp.solve(tsp.random_euclidean(6, seed=0), variant=variant, **{option: value})


@pytest.mark.parametrize("variant,option", [("gpu_unrank", "incremental"), ("gpu_unrank", "reduce"),
                                            ("gpu_shared_incremental", "layout"), ("serial_bruteforce", "matrix")])
def test_a_version_takes_only_its_own_steps(variant, option):
    with pytest.raises(ValueError, match="unknown option"):
        check(8, variant, **{option: tsp_gpu.TUNING[option][0]})


def test_every_value_of_every_step_is_accepted():
    for variant, options in (("gpu_host_chunks", ("index", "host_buffer", "matrix", "layout", "reduce")),
                             ("gpu_unrank", ("matrix",)), ("gpu_shared_incremental", ("matrix", "incremental"))):
        for option in options:
            for value in tsp_gpu.TUNING[option]:
                check(10, variant, **{option: value})


def test_flags_are_the_kernels_and_only_they(monkeypatch):
    seen = []
    monkeypatch.setattr(tsp_gpu.gpu, "load_module", lambda name, defines=None, **kw: seen.append(defines))
    tsp_gpu._module(np.int32, ("A_CITY_MAJOR",))
    assert seen[-1]["A_CITY_MAJOR"] == 1 and "A_INT32_ORDERS" not in seen[-1]
    with pytest.raises(ValueError, match="unknown tuning flag"):
        tsp_gpu._module(np.int32, ("CITY_MAJOR",))


@pytest.mark.parametrize("dtype", [np.uint8, np.int32])
@pytest.mark.parametrize("city_major", [False, True])
@pytest.mark.parametrize("n,symmetric,max_free,batch", [(7, False, 20, 100), (8, True, 3, 37), (2, False, 20, 1)])
def test_host_writes_the_plans_orders_in_every_layout(dtype, city_major, n, symmetric, max_free, batch):
    plan = enumeration.make_plan(n, symmetric, max_free)
    m = n - 1
    chunk, local, done = 0, 0, 0
    while done < plan.total:
        cnt = min(batch, plan.total - done)
        flat = np.full(batch * m, 255, dtype)
        view = flat[:cnt * m].reshape(m, cnt).T if city_major else flat[:cnt * m].reshape(cnt, m)
        chunk, local = tsp_gpu._fill_orders(n, plan.prefix, plan.last, plan.f, plan.k, chunk, local, cnt, view)
        got = flat[:cnt * m].reshape(m, cnt).T if city_major else flat[:cnt * m].reshape(cnt, m)
        expected = np.array([plan.tour_of_rank(done + j)[1:] for j in range(cnt)])
        np.testing.assert_array_equal(got, expected)
        assert (flat[cnt * m:] == 255).all()      # nothing written past the batch
        done += cnt
