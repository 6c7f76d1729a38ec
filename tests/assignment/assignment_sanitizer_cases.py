"""Small cases for compute-sanitizer: every GPU version of the auction (the eps-scaling tail's
options too) and of DGS, each against an independent answer."""
import numpy as np
from gpualgo import assignment as A

rng = np.random.default_rng(5)
cases = [A.uniform_instance(160, 160, 1, 10000, seed=rng), A.uniform_instance(200, 200, 1, 3, seed=rng),
         A.uniform_instance(40, 70, 0, 2, seed=rng), A.geom_instance(96, 96, seed=rng).astype(np.int32),
         A.report_instance(150, 170, 0.3, seed=rng, limit=100)]
for B in cases:
    opt = A.reference_objective(B)
    for variant in A.VARIANTS["auction"][1:]:
        r = A.solve(B, variant=variant)
        A.check_assignment(B, r.assignment)
        assert r.objective == opt, (variant, B.shape)
    for opts in (dict(tail_max=4), dict(tail_max=32), dict(tail_shared=False)):
        assert A.solve(B, variant="gpu_eps_scaling", **opts).objective == opt, opts
    for variant in A.VARIANTS["dgs"][1:]:
        r = A.solve(B, algorithm="dgs", variant=variant)
        A.check_assignment(B, r.assignment)
        assert r.objective <= opt, (variant, B.shape)
print("sanitizer cases ok")
