"""The shared contract every problem uses: the version table and its dispatch, the result's
common behaviour, the guards, the bench row schema and quick values, the notebook helper."""
from dataclasses import dataclass, field

import numpy as np
import pytest

from gpualgo import bench, gpu, guards, nbtools, variants
from gpualgo.result import TIMES, Result
from gpualgo.variants import Variant


@dataclass
class ToyResult(Result):
    value: int
    variant: str
    stats: dict = field(default_factory=dict)
    objective_name = "sum"

    @property
    def objective(self):
        return self.value


def _double(x, reps=1):
    return ToyResult(value=2 * x * reps, variant="serial")


def _gpu_double(x, reps=1, block=256):  # pragma: no cover - never reached without a GPU
    return ToyResult(value=2 * x * reps, variant="gpu_double")


TABLE = variants.table(Variant("serial", _double, {"reps"}),
                       Variant("gpu_double", "tests.test_contract:_gpu_double", {"reps", "block"}, gpu=True))


def toy_solve(x, variant="serial", **options):
    return variants.call(TABLE, variant, x, what="toy", **options)


# ------------------------------------------------------------------------ variants


def test_call_runs_the_version_and_fills_the_common_stats():
    r = toy_solve(3, reps=2)
    assert r.objective == 12 and r.variant == "serial"
    assert r.stats["total_ms"] >= 0 and r.stats["device"] == gpu.cpu_label()
    assert r.summary().startswith("serial: sum 12; ") and "ms in all" in r.summary()


def test_the_callers_checks_count_in_total_and_prepare_time():
    import time
    started = time.perf_counter() - 0.05          # as if solve's own checks had taken 50 ms
    r = variants.call(TABLE, "serial", 3, started=started)
    assert r.stats["check_ms"] >= 50 and r.stats["total_ms"] >= r.stats["check_ms"]
    assert "prepare_ms" not in r.stats          # a version that reports none gets none
    r = toy_solve(3)
    assert "check_ms" not in r.stats


@pytest.mark.parametrize("problem", ["assignment", "dgs", "maxflow", "tsp", "coalitions"])
def test_every_solve_counts_its_input_check(monkeypatch, problem):
    """Each problem's solve times its own checks of the input into total_ms (a slow check, made
    slower here, shows up there)."""
    import importlib
    import time
    from gpualgo import assignment, coalitions, maxflow, tsp
    slow = 0.06

    def slower(fn):
        def wrapped(*a, **k):
            time.sleep(slow)
            return fn(*a, **k)
        return wrapped
    if problem in ("assignment", "dgs"):
        mod = importlib.import_module("gpualgo.assignment.solve")
        monkeypatch.setattr(mod.problem, "as_matrix", slower(mod.problem.as_matrix))
        r = assignment.solve(np.arange(16).reshape(4, 4) % 5, algorithm="auction" if problem == "assignment" else "dgs",
                             variant="serial")
    elif problem == "maxflow":
        mod = importlib.import_module("gpualgo.maxflow.solve")
        monkeypatch.setattr(mod, "check_network", slower(mod.check_network))
        r = maxflow.solve(maxflow.from_edges(3, [0, 1], [1, 2], [2, 1]), variant="serial")
    elif problem == "tsp":
        mod = importlib.import_module("gpualgo.tsp.solve")
        monkeypatch.setattr(mod, "as_instance", slower(mod.as_instance))
        r = tsp.solve(np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]]), variant="held_karp")
    else:
        mod = importlib.import_module("gpualgo.coalitions.solve")
        monkeypatch.setattr(mod, "validate_values", slower(mod.validate_values))
        r = coalitions.solve(np.array([0.0, 1.0, 1.0, 3.0]), variant="serial")
    assert r.stats["check_ms"] >= 1e3 * slow * 0.9
    assert r.stats["total_ms"] >= r.stats["check_ms"]


def test_unknown_variant_and_option_name_what_is_known():
    with pytest.raises(ValueError, match=r"unknown variant 'gpu' of toy; known: \['serial', 'gpu_double'\]"):
        toy_solve(1, variant="gpu")
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['block'\] for serial; it takes \['reps'\]"):
        toy_solve(1, block=32)
    with pytest.raises(ValueError, match="unknown variant"):
        toy_solve(1, variant=["serial"])    # not a name at all


def test_a_gpu_version_without_a_gpu_is_refused_before_it_is_imported():
    if gpu.available():
        pytest.skip("a GPU is present")
    with pytest.raises(gpu.GPUUnavailableError, match="needs a CUDA GPU"):
        toy_solve(1, variant="gpu_double")


def test_table_refuses_duplicates_and_misnamed_gpu_versions():
    with pytest.raises(ValueError, match="listed twice"):
        variants.table(Variant("serial", _double), Variant("serial", _double))
    with pytest.raises(ValueError, match="named gpu_"):
        Variant("fast", _double, gpu=True)
    with pytest.raises(ValueError, match="named gpu_"):
        Variant("gpu_fast", _double)


def test_every_problem_uses_the_contract():
    import importlib
    solves = {p: importlib.import_module(f"gpualgo.{p}.solve") for p in ("assignment", "maxflow", "tsp", "coalitions")}
    tables = [*solves["assignment"].ALGORITHMS.values()] + [solves[p].VARIANTS for p in ("maxflow", "tsp", "coalitions")]
    for t in tables:
        assert isinstance(t, dict) and t and all(isinstance(v, Variant) for v in t.values())
    assert set(TIMES) == {"total_ms", "prepare_ms", "check_ms", "exec_ms", "kernel_ms"}
    for p in ("maxflow", "tsp", "coalitions"):
        results = importlib.import_module(f"gpualgo.{p}.result")
        assert any(isinstance(c, type) and issubclass(c, Result) and c is not Result for c in vars(results).values())
        kernels = importlib.import_module(f"gpualgo.{p}.gpu").KERNELS      # importable without a GPU
        assert set(kernels) == {v for v in solves[p].VARIANTS if v.startswith("gpu")}


#: one value each GPU version cannot run with, per launch option: refused with a ValueError
#: that names the option, before a GPU is asked for (a machine without one gets the same)
BAD_LAUNCH = {"block": 7, "bid_threads": 100, "assign_threads": 2048, "grid_factor": 0, "rounds_per_graph": 3,
              "warps_per_block": 0, "blocks_per_sm": 0, "rounds_per_check": 5, "tail_max": 33, "batch": 0,
              "cycle": 0, "tile": 3, "ops": 0, "gr_max_iters": 0, "gr_alpha": 0.0, "gr_balance": -1.0,
              "per_thread": 3, "share": 1, "low_bits": 13, "tiles_per_block": 0, "trace_capacity": 0, "devices": 0}


def _gpu_tables():
    import importlib
    solves = {p: importlib.import_module(f"gpualgo.{p}.solve") for p in ("assignment", "maxflow", "tsp", "coalitions")}
    for name, t in solves["assignment"].ALGORITHMS.items():
        yield name, t
    for p in ("maxflow", "tsp", "coalitions"):
        yield p, solves[p].VARIANTS


def test_every_gpu_version_checks_its_launch_options_before_asking_for_a_gpu(monkeypatch):
    monkeypatch.setattr(gpu, "available", lambda: False)
    monkeypatch.setattr(gpu, "require", lambda: pytest.fail("a GPU was asked for before the options were checked"))
    tried = set()
    for problem, table in _gpu_tables():
        for v in (v for v in table.values() if v.gpu):
            assert v.checks is not None, f"{problem}/{v.name} has no checks"
            for option in sorted(v.options & set(BAD_LAUNCH)):
                with pytest.raises(ValueError, match=option):
                    v.check_values({option: BAD_LAUNCH[option]})
                tried.add(option)
            v.check_values({})
    assert tried == set(BAD_LAUNCH), f"no version takes {set(BAD_LAUNCH) - tried}"
    with pytest.raises(ValueError, match="block must be a multiple of 32"):
        variants.call(dict(_gpu_tables())["tsp"], "gpu_unrank", None, block=7)



def _tiny_instances():
    """A tiny instance per problem, and the problem's public solve."""
    import numpy as np

    from gpualgo import assignment, coalitions, maxflow, tsp
    B = np.arange(64, dtype=np.int32).reshape(8, 8) % 7 + 1
    yield "auction", B, lambda x, v, **o: assignment.solve(x, algorithm="auction", variant=v, **o)
    yield "dgs", B, lambda x, v, **o: assignment.solve(x, algorithm="dgs", variant=v, **o)
    yield "maxflow", maxflow.genrmf(2, 2, seed=1), maxflow.solve
    yield "tsp", tsp.random_euclidean(6, seed=1), tsp.solve
    yield "coalitions", coalitions.random_values(5, "uniform", seed=1), coalitions.solve


@pytest.mark.gpu
def test_on_a_gpu_every_bad_launch_option_is_refused_and_the_gpu_still_answers():
    """The same refusals through each problem's public solve on a real GPU: a ValueError naming
    the option, no launch (the next call with good options gives the serial version's answer)."""
    tables = dict(_gpu_tables())
    for problem, x, solve in _tiny_instances():
        table = tables[problem]
        serial = solve(x, next(v for v in table if not table[v].gpu))
        for v in (v for v in table.values() if v.gpu):
            if v.name == "gpu_odp_multi":   # its own test: needs every GPU of the host
                continue
            for option in sorted(v.options & set(BAD_LAUNCH)):
                with pytest.raises(ValueError, match=option):
                    solve(x, v.name, **{option: BAD_LAUNCH[option]})
            good = solve(x, v.name)
            assert good.variant == v.name, (problem, v.name, good.variant)
            if problem in ("auction", "dgs"):   # DGS is a heuristic, the auction's eps may be loose
                from gpualgo.assignment import checks
                checks.check_assignment(x, good.assignment)
            else:   # exact versions: the serial version's optimum
                assert abs(good.objective - serial.objective) <= 1e-5 * max(1.0, abs(serial.objective)), \
                    (problem, v.name, good.objective, serial.objective)

def test_launch_option_guards():
    assert guards.threads(64) == 64 and guards.threads(512, allowed=(256, 512)) == 512
    for bad in (7, 0, 2048, 64.0, True, "64", None):
        with pytest.raises(ValueError, match="block must be a multiple of 32 in 32..1024"):
            guards.threads(bad)
    with pytest.raises(ValueError, match="tile must be one of 1, 2, 4"):
        guards.threads(3, "tile", allowed=(1, 2, 4))
    assert guards.power_of_two(16, "p", 1, 64) == 16
    for bad in (0, 12, 128, 16.0, False):
        with pytest.raises(ValueError, match=r"p must be a power of two in 1..64"):
            guards.power_of_two(bad, "p", 1, 64)
    import numpy as np
    assert guards.integer(np.int64(3), "k") == 3
    for bad in (np.bool_(True), 0, 1.5, "2"):
        with pytest.raises(ValueError, match="k must be an integer >= 1"):
            guards.integer(bad, "k")


# -------------------------------------------------------------------------- guards


def test_time_guard_states_the_estimate_and_how_to_insist():
    with pytest.raises(ValueError, match=r"toy run: about 2\.0 h \(limit 3 min\); go smaller, or pass force=True"):
        guards.time(7200.0, "toy run", limit=180.0, hint="go smaller")
    guards.time(7200.0, "toy run", limit=180.0, force=True)
    guards.time(100.0, "toy run", limit=180.0)


@pytest.mark.parametrize("call, words", [
    (lambda v: guards.integer(v, "block", 32, 1024), "block must be an integer in 32..1024"),
    (lambda v: guards.threads(v), "block must be a multiple of 32 in 32..1024"),
    (lambda v: guards.threads(v, "tile", allowed=(1, 2)), "tile must be one of 1, 2"),
    (lambda v: guards.power_of_two(v, "p", 1, 64), "p must be a power of two in 1..64"),
    (lambda v: guards.one_of(v, "upload", ("pageable", "mapped")), "upload must be one of 'pageable', 'mapped'"),
    (lambda v: guards.flag(v, "scaling"), "scaling must be True or False"),
    (lambda v: guards.rng(-v), "seed must be None, a non-negative integer or a numpy Generator"),
])
def test_a_value_of_300_digits_is_named_cut_short(call, words):
    # before: the message printed all 301 digits of 10**300
    with pytest.raises(ValueError) as info:
        call(10**300)
    msg = str(info.value)
    assert msg.startswith(words + ", got ") and msg.endswith(("... (301 characters)", "... (302 characters)")), msg
    assert len(msg) < 160


@pytest.mark.parametrize("bad", ["no", None, 1, 0.0, "False"])
def test_force_is_true_or_false_only(bad):
    # a truthy string insisted, and None or 0 quietly did not
    for call in (lambda: guards.time(1.0, "run", limit=2.0, force=bad),
                 lambda: guards.memory(1, "run", force=bad, where="host")):
        with pytest.raises(ValueError, match=r"force must be True or False, got"):
            call()
    assert guards.insist(np.True_) is True and guards.insist(False) is False


def test_memory_guard_on_the_host():
    have = guards.host_bytes()
    assert have > 0
    with pytest.raises(ValueError, match=r"huge needs about .* of host memory .*pass force=True"):
        guards.memory(10 * have, "huge", where="host")
    guards.memory(10 * have, "huge", where="host", force=True)
    guards.memory(1024, "tiny", where="host")
    with pytest.raises(ValueError, match="where must be"):
        guards.memory(1, "x", where="disk")


def test_memory_guard_on_the_gpu_needs_one():
    if gpu.available():
        pytest.skip("a GPU is present")
    with pytest.raises(gpu.GPUUnavailableError):
        guards.memory(1, "x", where="GPU")


def test_gib_reads_well():
    assert guards.gib(1.5 * 2**30) == "1.5 GiB"
    assert guards.gib(3 * 2**20) == "3.0 MiB" and guards.gib(2**45) == "32.0 TiB"
    assert guards.gib(10) == "0.0 KiB"


# --------------------------------------------------------------------------- bench


def test_row_has_the_shared_columns_after_the_case_fields():
    r = toy_solve(2)
    row = bench.row(r, rep=1, verified=True, n=2, family="toy")
    assert list(row)[:2] == ["n", "family"] and tuple(list(row)[2:]) == bench.ROW_COLUMNS
    assert row["objective"] == 4 and row["verified"] is True and row["kernel_ms"] is None
    peer = bench.peer_row("scipy", 4, 1.5, n=2, family="toy")
    assert tuple(list(peer)[2:]) == bench.ROW_COLUMNS and peer["exec_ms"] == 1.5 and "scipy" in peer["device"]


def test_quick_values_replace_the_defaults_and_overrides_win():
    p = bench.Preset("toy", {"sizes": [1000, 2000], "reps": 5}, lambda p: [], needs_gpu=False,
                     quick={"sizes": [8]})
    assert bench._params(p, {})["sizes"] == [1000, 2000]
    assert bench._params(p, {"quick": True}) == {"sizes": [8], "reps": 5, "quick": True}
    assert bench._params(p, {"quick": "true", "sizes": 16})["sizes"] == [16]
    with pytest.raises(ValueError, match="unknown parameter"):
        bench.Preset("toy", {"reps": 1}, lambda p: [], quick={"rep": 1})


def test_warm_up_runs_each_cpu_version_once_untimed():
    calls = []

    def solve(x, variant, **opts):
        calls.append((x, variant, opts))
    bench.warm_up(solve, 1, ["serial", "gpu_x"], block=64)
    expected = [(1, "serial", {"block": 64})]
    if gpu.available():
        expected.append((1, "gpu_x", {"block": 64}))
    assert calls == expected


def test_warm_up_allocates_the_upload_buffers_with_a_gpu_version_only(monkeypatch):
    # a tiny instance's upload is below PIN_BYTES: the warm-up allocates the staging buffers
    # itself, so that the first timed run of a large instance does not pay for them
    staged = []
    monkeypatch.setattr(gpu, "available", lambda: True)
    monkeypatch.setattr(gpu, "warm_uploads", lambda: staged.append(1) or 0.0)
    bench.warm_up(lambda x, variant: None, 1, ["serial"])
    assert staged == []
    bench.warm_up(lambda x, variant: None, 1, ["serial", "gpu_a", "gpu_b"])
    assert staged == [1]
    monkeypatch.setattr(gpu, "available", lambda: False)
    bench.warm_up(lambda x, variant: None, 1, ["gpu_a"])
    assert staged == [1]


# ------------------------------------------------------------------------ nbtools


def test_run_and_check_prints_the_summary_and_the_check(capsys):
    r = nbtools.run_and_check(toy_solve, 5, "serial", lambda r: "equal to 2x", warm=1, show=("device",), reps=1)
    out = capsys.readouterr().out
    assert r.objective == 10 and out.startswith("serial: sum 10") and "; equal to 2x" in out and "device CPU" in out


def test_run_and_check_raises_when_the_check_fails():
    def wrong(r):
        assert r.objective == 11, f"objective {r.objective}, expected 11"
    with pytest.raises(AssertionError, match="expected 11"):
        nbtools.run_and_check(toy_solve, 5, "serial", wrong)


def test_run_and_check_says_plainly_when_no_gpu(capsys):
    if gpu.available():
        pytest.skip("a GPU is present")
    assert nbtools.run_and_check(toy_solve, 5, "gpu_double", lambda r: "") is None
    assert "gpu_double: no GPU here" in capsys.readouterr().out


def test_kernel_text_with_helpers_shows_the_device_functions_called():
    text = nbtools.kernel_text("common.cuh", "block_top2", helpers=True)
    assert text.rstrip().endswith("}") and "void block_top2" in text
    assert text.index("void warp_top2") < text.index("void block_top2")   # callees first
    assert nbtools.kernel_helpers("common.cuh", "top2_merge") == []


def test_show_kernels_lists_each_version():
    assert "| `gpu_a` | `k1`, `k2` |" in nbtools.show_kernels({"gpu_a": ("k1", "k2")})


def test_a_one_line_function_above_is_not_part_of_the_next():
    text = nbtools.kernel_text("maxflow", "ld_int")
    assert text.count("__device__") == 1 and "ld_int" in text and "ld_cap" not in text
    full = nbtools.kernel_text("maxflow", "vertex_centric_kernel", helpers=True)
    assert full.count("cap_t ld_cap(") == 1      # each helper once


def test_repeat_runs_a_quick_baseline_three_times_and_a_slow_one_once():
    calls = []
    assert len(bench.repeat(calls.append, 1)) == 3 and calls == [1, 1, 1]
    assert len(bench.repeat(calls.append, 2, below_s=0.0)) == 1      # "slow": one run only
    assert [r for r, _ in bench.repeat(lambda: 7, reps=5)] == [7] * 5
