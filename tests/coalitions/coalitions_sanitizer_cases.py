"""Small cases for compute-sanitizer: every GPU variant, and the ODP tiles with every rule, both
value types and several tile sizes, blocks and tiles per block (the top ODP levels, where a tile
allows only some low sizes, included), and gpu_odp's bound."""
import numpy as np
from gpualgo import coalitions as co


def close(a, b, dtype):
    """The GPU tests' tolerance (test_gpu_coalitions._close; this script runs alone, without pytest's path)."""
    return abs(a - b) <= (2e-5 if dtype == np.float32 else 1e-9) * max(1.0, abs(b))


for n, dtype in ((1, np.float32), (4, np.float64), (9, np.float32), (13, np.float64), (14, np.float32)):
    v = co.random_values(n, "ndcs", seed=n, dtype=dtype)
    ref = co.solve(v, variant="serial").value
    for variant in ("gpu_report", "gpu_shared_splits", "gpu_odp"):
        assert close(co.solve(v, variant=variant).value, ref, dtype), (n, variant)
    for opts in (dict(low_bits=min(n, 2)), dict(low_bits=min(n, 5), block=64), dict(rule="dp"), dict(rule="idp"),
                 dict(low_bits=min(n, 11), tiles_per_block=2)):
        assert close(co.solve(v, variant="gpu_odp", **opts).value, ref, dtype), (n, opts)
# uniform values: gpu_odp's bound takes the top levels (its kernels, and report_kernel on the kept list)
for n, dtype in ((12, np.float32), (15, np.float64)):
    v = co.random_values(n, "uniform", seed=n, dtype=dtype)
    r = co.solve(v, variant="gpu_odp")
    assert r.stats["bounded"], n
    assert close(r.value, co.solve(v, variant="serial").value, dtype), (n, "bound")
print("sanitizer cases ok")
