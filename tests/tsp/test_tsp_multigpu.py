"""The brute force across the GPUs of a local Dask cluster (one worker per GPU, dask-cuda):
the sequential tour, whatever the chunking and with a worker lost mid-solve. Skipped unless
two GPUs are visible and dask-cuda is installed."""
import numpy as np
import pytest

from gpualgo import cluster, tsp

pytestmark = pytest.mark.multigpu


@pytest.fixture(scope="module")
def gpus():
    pytest.importorskip("dask_cuda", reason="dask-cuda (the cluster-gpu extra) starts one worker per GPU")
    c = cluster.client("local", n_workers=2)
    yield c
    cluster.close(c)


def test_two_gpu_workers_each_pinned_to_its_gpu(gpus):
    info = cluster.describe(gpus)["workers"]
    assert sorted(w["worker_gpu"] for w in info) == [0, 1]


@pytest.mark.parametrize("variant", ["gpu_unrank", "gpu_shared_incremental"])
def test_gpu_brute_force_on_two_gpus_is_the_sequential_tour(gpus, variant, rng):
    for n in (6, 9, 12):
        inst = tsp.random_euclidean(n, seed=int(rng.integers(1 << 30)))
        ref = tsp.solve(inst, variant=variant)
        assert ref.length == tsp.solve(inst, variant="gpu_held_karp").length
        for tasks in (1, 2, 5, 33):
            r = tsp.solve_on_cluster(inst, gpus, variant=variant, tasks=tasks)
            assert r.tour.tolist() == ref.tour.tolist() and r.length == ref.length, (n, tasks)
    equal = np.ones((9, 9), dtype=np.int64)
    np.fill_diagonal(equal, 0)
    assert tsp.solve_on_cluster(equal, gpus, variant=variant, tasks=7).tour.tolist() == \
        tsp.solve(equal, variant=variant).tour.tolist()


def test_a_gpu_worker_lost_mid_solve(gpus, tmp_path):
    inst = tsp.random_euclidean(14, seed=3)
    ref = tsp.solve(inst, variant="gpu_shared_incremental")
    flag = tmp_path / "lost"
    cluster.lose_one_worker(gpus, flag)
    r = tsp.solve_on_cluster(inst, gpus, variant="gpu_shared_incremental", tasks=16)
    assert flag.exists() and r.tour.tolist() == ref.tour.tolist() and r.length == ref.length
