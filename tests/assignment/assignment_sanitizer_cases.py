"""Small cases for compute-sanitizer: every GPU version of the auction (the eps-scaling tail's
options too) and of DGS, each against an independent answer. Kept small: the round-by-round
versions launch kernels every round, and the sanitizer slows every launch."""
import numpy as np
from gpualgo import assignment as A
from gpualgo.assignment.auction import gpu as auction_gpu

rng = np.random.default_rng(5)
cases = [A.uniform_instance(24, 24, 1, 100, seed=rng), A.report_instance(20, 30, 0.3, seed=rng, limit=50)]
for B in cases:
    opt = A.reference_objective(B)
    for variant in A.VARIANTS["auction"][1:]:
        r = A.solve(B, variant=variant)
        A.check_assignment(B, r.assignment)
        assert r.objective == opt, (variant, B.shape)
    for variant in A.VARIANTS["dgs"][1:] if np.isfinite(B).all() else ():   # DGS takes complete matrices
        r = A.solve(B, algorithm="dgs", variant=variant)
        A.check_assignment(B, r.assignment)
        assert r.objective <= opt, (variant, B.shape)
for opts in (dict(tail_max=4), dict(tail_max=32), dict(tail_shared=False), dict(persistent=True),
             dict(persistent=True, tail_max=4), dict(persistent=not auction_gpu.PERSISTENT)):
    assert A.solve(cases[0], variant="gpu_eps_scaling", **opts).objective == A.reference_objective(cases[0]), opts
for variant in ("gpu_eps_scaling", "gpu_sparse"):     # the bulk rounds of both row layouts, in one launch
    assert A.solve(cases[1], variant=variant, persistent=True, tail_max=2).objective == A.reference_objective(cases[1])
print("sanitizer cases ok")
