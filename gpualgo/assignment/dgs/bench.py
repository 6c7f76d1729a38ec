"""Benchmark presets of Deep Greedy Switching (``python -m gpualgo.bench dgs --preset NAME``).

``report``   the paper's experiments on dense GEOM instances (points in a square, benefit =
             distance), averaged over seeds: one full difference evaluation on the CPU, the
             GPU global-memory kernel and the GPU shared-memory kernel (transfers included);
             total time of serial, mixed and full-GPU DGS against size; the exact GPU
             auction (gpu_eps_scaling) on the same instances, for the speed-up.
``gap``      beyond the paper: the optimality gap of every run against the exact optimum
             (gpu_eps_scaling, itself checked with scipy where n <= scipy_max), on four
             families (geom, uniform, the auction report's instances, ties); plus the anytime
             trace (objective against time) of serial and full-GPU DGS on one instance per
             family, beside the auction's time to the optimum.
``targets``  the goals, every solver run 3 times (once when a run takes a minute or more):
             n = 4096 full GPU against serial (the ratio measured side by side),
             and sizes up to 16384 with each version's time and gap beside the exact GPU
             auction, scipy and lap (serial and mixed DGS up to ``cpu_max``, scipy up to
             ``scipy_max``, lap up to ``lap_max``: on GEOM instances both take seconds at
             n = 4096, see ``data/results/dgs/``).
``selection``  the two selections of the full-GPU version (``selection="mutual"``, ours, and
             ``"check_conflicts"``, the paper's Check-Conflicts) on GEOM and uniform instances,
             each run ``reps`` times on each instance, beside the exact optimum
             (gpu_eps_scaling, certified by its dual bound); rows add ``selection`` and
             ``conflicts`` (the candidates Check-Conflicts dropped).
``serial_phases``  on the CPU only (no GPU needed): serial DGS from a random and from a greedy
             start on the same GEOM and uniform instances, with the time of its phases
             (``phases=True``: ``eval_ms`` the full difference evaluations, ``switch_ms`` the
             switching phases, ``reeval_ms`` the re-evaluations within them, ``start_ms`` the
             start), beside scipy's optimum (checked with lap where lap is installed).

Every preset takes ``quick=True`` (its ``Preset.quick`` sizes).  Rows (:func:`gpualgo.bench.row`):
``variant`` (serial, gpu_mixed, gpu, gpu_eps_scaling, scipy, lap, or de_cpu / de_global /
de_shared for the evaluation timings), ``total_ms`` (the whole solve, uploads included),
``exec_ms`` (the algorithm alone, the matrix already in place; for the GPU auction and
full-GPU DGS ``kernel_ms`` too), ``objective``, ``verified`` (DGS: checked valid and
exchange-optimal by :func:`gpualgo.assignment.dgs.checks.check_result`; the auction: its
optimum equal to scipy's where scipy ran; scipy and lap: their optimum equal to the
auction's), ``device``; then ``optimum``, ``gap`` (relative, ``(opt - obj) / opt``),
``switches``, ``rounds`` (the full-GPU version's rounds; the full evaluation passes of the
others) and ``start_objective``; ``de_ms`` for one evaluation.  The ``gap`` preset adds
``kind="trace"`` rows: one point of the anytime trace each (``switches``, ``objective``,
``t_ms``, ``gap``). The files under ``data/results/dgs/`` were recorded before this schema and
migrated (their JSON says how): they have no ``prepare_ms``, ``verified`` or ``device`` column,
and full-GPU DGS and the auction have ``kernel_ms`` there but no ``exec_ms``.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import bench, gpu, peers
from ...timing import timed
from .. import checks, instances
from ..solve import solve
from . import gpu as dgs_gpu
from . import serial as dgs_serial
from .analysis import gap
from .checks import check_result

__all__ = ["PRESETS", "FAMILIES", "PHASE_COLUMNS", "make_instance", "check_instance", "dgs_row", "evaluation_row"]

FAMILIES = ("geom", "uniform", "report", "ties")

#: family -> (its generator, the generator's check, their parameters besides the size and the seed)
_GENERATORS = {
    "geom": (instances.geom_instance, instances.check_geom_instance, {}),
    "uniform": (instances.uniform_instance, instances.check_uniform_instance, dict(low=1, high=10000)),
    "report": (instances.report_instance, instances.check_report_instance, dict(density=1.0)),
    "ties": (instances.uniform_instance, instances.check_uniform_instance, dict(low=0, high=3)),
}


def _generator(family: str):
    if family not in _GENERATORS:
        raise ValueError(f"unknown family {family!r}; known: {FAMILIES}")
    return _GENERATORS[family]


def make_instance(family: str, n: int, seed: int) -> np.ndarray:
    """A dense ``n x n`` int32 instance of a family: ``geom`` (distances between random points
    in a 1000 x 1000 square, rounded), ``uniform`` (integers in [1, 10000]), ``report`` (the
    auction report's generator at density 1), ``ties`` (integers in [0, 3]: many ties)."""
    make, _, options = _generator(family)
    B = make(n, n, seed=seed, **options)
    return B.astype(np.int32) if family == "geom" else B


def check_instance(family: str, n: int) -> None:
    """The refusals :func:`make_instance` would make for ``family`` at size ``n`` (its
    generator's check: a bad size, arrays too large for the host's memory), drawing nothing."""
    _, check, options = _generator(family)
    check(n, n, **options)


def _case_check(family: str, n: int, variants, cpu_pass: bool = False):
    """The check of a case (:class:`gpualgo.bench.Case`) on an ``n x n`` instance of ``family``
    solved by the DGS ``variants``: the instance's generator, then the float64 copies every
    version but the full-GPU one (which takes an integer matrix to the GPU as it is) makes on
    the host (:func:`gpualgo.assignment.dgs.serial.check_size`), as does the CPU evaluation
    pass (``cpu_pass``). GPU memory (the exact auction's, the GPU versions') only the run can know."""
    def check():
        check_instance(family, n)
        if cpu_pass or any(v != "gpu" for v in variants):
            dgs_serial.check_size(n, n)
    return check


#: the two algorithms' solve (``bench.warm_up`` and the cases call them)
solve_dgs = functools.partial(solve, algorithm="dgs")
solve_auction = functools.partial(solve, algorithm="auction")


def _warm_up(variants) -> None:
    """Compile what a case will time (the DGS versions and the exact GPU auction) on a tiny
    instance, so that no measurement pays for it."""
    tiny = make_instance("uniform", 32, 0)
    bench.warm_up(solve_dgs, tiny, variants)
    bench.warm_up(solve_auction, tiny, ["gpu_eps_scaling"])


def _seed(base, n, k):
    return int(base) * 1_000_003 + int(n) * 101 + k


def dgs_row(B, r, opt, rep: int, same_as=None, **fields) -> dict:
    """The row of a DGS run ``r`` on ``B``: checked now (:func:`check_result`, which raises on
    a wrong answer), so ``verified`` is True; then the DGS columns against the optimum ``opt``
    (None when unknown).  ``same_as``: a run of the same version already checked on ``B``; when
    ``r`` returned its very assignment and objective, that check stands for ``r``'s."""
    if same_as is None or not (np.array_equal(r.assignment, same_as.assignment) and r.objective == same_as.objective):
        check_result(B, r)
    s = r.stats
    out = bench.row(r, rep=rep, verified=True, **fields)
    out.update(optimum=opt, gap=gap(r.objective, opt) if opt is not None else np.nan, switches=s["switches"],
               rounds=s.get("rounds", s.get("passes")), start_objective=s["initial_objective"])
    return out


def evaluation_row(kind: str, ms: float, rep: int, **fields) -> dict:
    """The row of one full difference evaluation (:func:`gpualgo.assignment.dgs.gpu.de_pass`)
    of ``kind`` ``"cpu"``, ``"global"`` or ``"shared"``: the row schema's columns (no solve,
    so no solve times) and its time as ``de_ms``."""
    out = dict(fields, variant=f"de_{kind}", rep=rep, **{c: None for c in bench.ROW_COLUMNS[2:]})
    out.update(device=gpu.cpu_label() if kind == "cpu" else gpu.device_name(), de_ms=ms)
    return out


def _exact(B, fields, rep: int, check_scipy: bool, reps: int = 1):
    """Rows of the exact GPU auction (and scipy when asked, which must agree; without scipy the
    auction's prices certify its optimum); returns (rows, optimum). Each is run ``reps`` times
    (:func:`gpualgo.bench.repeat`: once when a run takes a minute or more); the first run's row
    has ``rep``, the next ones ``rep + 1``, ..."""
    if B.shape[0] <= 4096:  # warm the allocator for this size (negligible against larger solves)
        solve_auction(B, variant="gpu_eps_scaling")
    runs = [r for r, _ in bench.repeat(solve_auction, B, variant="gpu_eps_scaling", reps=reps)]
    for r in runs:
        checks.check_assignment(B, r.assignment)
    opt = runs[0].objective
    if any(r.objective != opt for r in runs):
        raise RuntimeError(f"gpu_eps_scaling's runs disagree on {fields}: {[r.objective for r in runs]}")
    rows = []
    if check_scipy:
        for i, (x, t) in enumerate(bench.repeat(peers.scipy_assignment, B, reps=reps)):
            ref = checks.objective(B, x)
            if ref != opt:
                raise RuntimeError(f"gpu_eps_scaling {opt} != scipy {ref} on {fields}")
            rows.append(dict(bench.peer_row("scipy", ref, t, rep=rep + i, verified=True, **fields),
                             optimum=opt, gap=0.0))
    else:   # no scipy at this size: the auction's own prices prove its optimum (duality gap below 1)
        try:
            checks.certify(B, runs[0])
        except ValueError as exc:
            raise RuntimeError(f"gpu_eps_scaling's optimum not certified on {fields}: {exc}") from None
    rows[:0] = [dict(bench.row(r, rep=rep + i, verified=True, **fields), optimum=opt, gap=0.0,
                     verified_by="scipy" if check_scipy else "dual bound") for i, r in enumerate(runs)]
    return rows, opt


def _report_cases(p):
    for n in p["sizes"]:
        for k in range(p["instances"]):
            def run(n=n, k=k):
                _warm_up(p["variants"])
                seed = _seed(p["seed"], n, k)
                B = make_instance("geom", n, seed)
                fields = dict(algorithm="dgs", family="geom", n=n, seed=seed)
                rows = []
                for kind in ("cpu", "global", "shared"):
                    if kind != "cpu" and n > p["de_gpu_max"]:
                        continue
                    rows.append(evaluation_row(kind, dgs_gpu.de_pass(B, kind, seed=seed)["ms"], k, **fields))
                exact, opt = _exact(B, fields, k, False)
                rows += exact
                for v in p["variants"]:
                    rows.append(dgs_row(B, solve_dgs(B, variant=v, seed=seed), opt, k, **fields))
                return rows
            yield bench.Case(f"geom n={n} #{k}", run, _case_check("geom", n, p["variants"], cpu_pass=True))


def _gap_cases(p):
    for fam in p["families"]:
        for n in p["sizes"]:
            variants = [v for v in p["variants"]
                        if v not in ("gpu_de_global", "gpu_de_shared") or n <= p["de_variants_max"]]
            for k in range(p["instances"]):
                def run(fam=fam, n=n, k=k, variants=variants):
                    _warm_up(variants)
                    seed = _seed(p["seed"], n, k)
                    B = make_instance(fam, n, seed)
                    fields = dict(algorithm="dgs", family=fam, n=n, seed=seed, kind="run")
                    rows, opt = _exact(B, fields, k, n <= p["scipy_max"])
                    for v in variants:
                        r = solve_dgs(B, variant=v, seed=seed)
                        rows.append(dgs_row(B, r, opt, k, **fields))
                        if k == 0 and n == max(p["sizes"]) and v in ("serial", "gpu"):
                            s = r.stats
                            for sw, ob, ms in zip(s["trace_switches"], s["trace_objective"], s["trace_ms"]):
                                rows.append(dict(algorithm="dgs", family=fam, n=n, seed=seed, kind="trace",
                                                 variant=v, rep=k, switches=int(sw), objective=float(ob),
                                                 t_ms=float(ms), optimum=opt, gap=gap(ob, opt)))
                    return rows
                yield bench.Case(f"{fam} n={n} #{k}", run, _case_check(fam, n, variants))


def _targets_cases(p):
    """Every solver ``reps`` times on one instance (:func:`gpualgo.bench.repeat`: once when a run
    takes a minute or more); ``rep`` counts the runs, ``instance`` the instances."""
    lap = peers.available("lap")
    reps = p["reps"]
    for fam in p["families"]:
        for n in p["sizes"]:
            cpu_ok = n <= p["cpu_max"]
            variants = [v for v in p["variants"] if v == "gpu" or cpu_ok]
            for k in range(p["instances"]):
                def run(fam=fam, n=n, k=k, cpu_ok=cpu_ok, variants=variants):
                    _warm_up(variants)
                    seed = _seed(p["seed"], n, k)
                    B = make_instance(fam, n, seed)
                    fields = dict(algorithm="dgs", family=fam, n=n, seed=seed, instance=k)
                    rows, opt = _exact(B, fields, 0, cpu_ok and n <= p["scipy_max"], reps=reps)
                    if lap and cpu_ok and n <= p["lap_max"]:
                        for i, (x, t) in enumerate(bench.repeat(peers.lap_assignment, B, reps=reps)):
                            obj = checks.objective(B, x)
                            rows.append(dict(bench.peer_row("lap", obj, t, rep=i, verified=obj == opt, **fields),
                                             optimum=opt, gap=gap(obj, opt)))
                    for v in variants:
                        for i, (r, _) in enumerate(bench.repeat(solve_dgs, B, variant=v, seed=seed, reps=reps)):
                            rows.append(dgs_row(B, r, opt, i, **fields))
                    return rows
                yield bench.Case(f"{fam} n={n} #{k}", run, _case_check(fam, n, variants))


def _selection_runs(B, opt, selection: str, reps: int, seed: int, fields: dict) -> list[dict]:
    """The rows of ``reps`` runs of full-GPU DGS with ``selection`` on ``B`` (the first checked
    in full, each later one too unless it returned the first's assignment: both selections are
    deterministic), with the candidates Check-Conflicts dropped as ``conflicts``."""
    rows, first = [], None
    for i, (r, _) in enumerate(bench.repeat(solve_dgs, B, variant="gpu", seed=seed, selection=selection, reps=reps)):
        rows.append(dict(dgs_row(B, r, opt, i, same_as=first, **fields, selection=selection),
                         conflicts=r.stats.get("conflicts")))
        first = first if first is not None else r
    return rows


def _selection_cases(p):
    """Per family, size and instance: the exact optimum, then each selection ``reps`` times."""
    for fam in p["families"]:
        for n in p["sizes"]:
            for k in range(p["instances"]):
                def run(fam=fam, n=n, k=k):
                    _warm_up(["gpu"])
                    for selection in p["selections"]:
                        bench.warm_up(solve_dgs, make_instance("uniform", 32, 0), ["gpu"], selection=selection)
                    seed = _seed(p["seed"], n, k)
                    B = make_instance(fam, n, seed)
                    fields = dict(algorithm="dgs", family=fam, n=n, seed=seed, instance=k)
                    rows, opt = _exact(B, fields, 0, False)
                    for selection in p["selections"]:
                        rows += _selection_runs(B, opt, selection, p["reps"], seed, fields)
                    return rows
                yield bench.Case(f"{fam} n={n} #{k}", run, _case_check(fam, n, ["gpu"]))


#: the columns of serial DGS's phases (``phases=True``) a ``serial_phases`` row adds
PHASE_COLUMNS = ("start_ms", "eval_ms", "switch_ms", "reeval_ms")


def _optimum(B, fields, rep: int):
    """scipy's optimum, as a row and a number, without a GPU: checked against lap's where lap is
    installed (a disagreement raises), else recorded unverified."""
    x, t = timed(peers.scipy_assignment, B)
    opt = checks.objective(B, x)
    by = None
    if peers.available("lap"):
        other = checks.objective(B, peers.lap_assignment(B))
        if other != opt:
            raise RuntimeError(f"scipy {opt} != lap {other} on {fields}")
        by = "lap"
    row = dict(bench.peer_row("scipy", opt, t, rep=rep, verified=by is not None, **fields), optimum=opt, gap=0.0,
               verified_by=by)
    return row, opt


def _phases_cases(p):
    for fam in p["families"]:
        for n in p["sizes"]:
            for k in range(p["instances"]):
                def run(fam=fam, n=n, k=k):
                    tiny = make_instance("uniform", 32, 0)
                    for init in p["inits"]:    # compiles what is timed, the timed phases included
                        solve_dgs(tiny, variant="serial", init=init, phases=True)
                    seed = _seed(p["seed"], n, k)
                    B = make_instance(fam, n, seed)
                    fields = dict(algorithm="dgs", family=fam, n=n, seed=seed)
                    ref, opt = _optimum(B, fields, k)
                    rows = [ref]
                    for init in p["inits"]:
                        r = solve_dgs(B, variant="serial", init=init, seed=seed, phases=True)
                        row = dgs_row(B, r, opt, k, **fields, init=init)
                        row.update({c: r.stats[c] for c in PHASE_COLUMNS}, passes=r.stats["passes"])
                        rows.append(row)
                    return rows
                yield bench.Case(f"{fam} n={n} #{k}", run, _case_check(fam, n, ["serial"]))


PRESETS = {
    "report": bench.Preset(
        "the paper's experiments on dense GEOM instances: evaluation time CPU / GPU global / GPU shared, "
        "total time of serial, mixed and full-GPU DGS, the exact GPU auction for the speed-up",
        dict(sizes=[512, 1024, 2048, 4096, 8192], instances=3, seed=2010, de_gpu_max=8192,
             variants=["serial", "gpu_mixed", "gpu"]),
        _report_cases, quick=dict(sizes=[64, 128], instances=1)),
    "gap": bench.Preset(
        "optimality gap of every version against the exact optimum (gpu_eps_scaling, checked with scipy), "
        "four families, and the anytime trace",
        dict(sizes=[256, 1024, 4096], families=list(FAMILIES), instances=3, seed=2011, scipy_max=4096,
             de_variants_max=256, variants=["serial", "gpu_de_global", "gpu_de_shared", "gpu_mixed", "gpu"]),
        _gap_cases, quick=dict(sizes=[64, 128], instances=1)),
    "targets": bench.Preset(
        "n = 4096 full GPU vs serial, and sizes up to 16384: every version's time and gap beside the exact "
        "GPU auction, scipy and lap",
        dict(sizes=[1024, 2048, 4096, 8192, 16384], families=["geom", "uniform"], instances=1, reps=3, seed=2012,
             cpu_max=8192, scipy_max=2048, lap_max=4096, variants=["serial", "gpu_mixed", "gpu"]),
        _targets_cases, quick=dict(sizes=[128, 256], instances=1, reps=2, cpu_max=512)),
    "selection": bench.Preset(
        "the full-GPU version's two selections, mutual pairs and the paper's Check-Conflicts, on GEOM and uniform "
        "instances: time and gap to the exact optimum (gpu_eps_scaling, certified by its dual bound)",
        dict(sizes=[1024, 2048, 4096, 8192], families=["geom", "uniform"], instances=1, reps=3, seed=2014,
             selections=list(dgs_gpu.SELECTIONS)),
        _selection_cases, quick=dict(sizes=[128, 256], reps=2)),
    "serial_phases": bench.Preset(
        "CPU only: serial DGS from a random and from a greedy start on GEOM and uniform instances, the time of "
        "its difference evaluation and of its switching, its gap to scipy's optimum (checked with lap)",
        dict(sizes=[256, 512, 1024, 2048], families=["geom", "uniform"], instances=3, seed=2013,
             inits=["random", "greedy"]),
        _phases_cases, needs_gpu=False, quick=dict(sizes=[64, 128], instances=1)),
}
