"""Small cases for compute-sanitizer: every GPU version of the TSP against the serial Held-Karp,
on complete, sparse and asymmetric instances."""
from gpualgo import tsp

for n, seed in ((5, 1), (8, 2)):
    for inst in (tsp.random_euclidean(n, seed=seed), tsp.random_graph(n, density=0.6, seed=seed),
                 tsp.random_asymmetric(n, seed=seed, high=30)):
        ref = tsp.solve(inst, variant="held_karp").length
        for variant in ("gpu_host_chunks", "gpu_unrank", "gpu_shared_incremental", "gpu_held_karp"):
            assert tsp.solve(inst, variant=variant).length == ref, (variant, n)
        assert tsp.solve(inst, variant="gpu_shared_incremental", symmetric=False).length == ref
print("sanitizer cases ok")
