"""Work on a Dask cluster, on CPU workers: a sweep gives the rows of a sequential run and
resumes an unfinished file, the TSP brute force across workers gives the sequential tour
whatever the chunking, the notebook runner runs notebooks in parallel, and a worker lost
mid-task costs nothing but time. One cluster of two worker processes serves the module."""
import json
import os
import re
import subprocess
import sys
import types

import numpy as np
import pytest

from gpualgo import bench, cluster, results, tsp

pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")


@pytest.fixture(scope="module")
def client():
    c = cluster.client("local-cpu", n_workers=2)
    yield c
    cluster.close(c)


def _same_content(a, b):
    """Two sweeps' rows, equal but for their times and where they ran."""
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert bench.content(ra) == bench.content(rb)


# ----------------------------------------------------------------------- no cluster needed

def test_the_package_imports_without_dask():
    code = ("import sys, gpualgo, gpualgo.bench, gpualgo.cluster, gpualgo.tsp, gpualgo.coalitions, "
            "gpualgo.run_notebooks, gpualgo.nbtools; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'dask_cuda')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.stdout.strip() == "[]"


def test_without_dask_a_cluster_is_refused_with_how_to_install(monkeypatch, capsys):
    monkeypatch.setattr(cluster, "unavailable_reason", lambda: "dask.distributed is not installed (test)")
    with pytest.raises(cluster.ClusterUnavailableError, match="not installed"):
        cluster.client("local")
    assert bench.main(["coalitions", "--preset", "cpu", "--quick", "--cluster", "local"]) == 2
    assert "a cluster needs Dask" in capsys.readouterr().err


def test_tsp_chunk_counts_and_splits():
    for n in range(3, 10):
        for sym in (True, False):
            for mf in range(max(1, n - 5), 10):
                assert tsp.distributed.chunk_count(n, sym, mf) == tsp.make_plan(n, sym, mf).n_chunks
    assert tsp.distributed.refine(12, True, 100) == 8      # 55 chunks of 9! -> 495 chunks of 8!
    for n_chunks, tasks in ((10, 3), (5, 9), (1, 4), (1000, 7)):
        ranges = tsp.distributed.split(n_chunks, tasks)
        assert ranges[0][0] == 0 and ranges[-1][1] == n_chunks and len(ranges) == min(tasks, n_chunks)
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        assert max(e - s for s, e in ranges) - min(e - s for s, e in ranges) <= 1


# ---------------------------------------------------------------------------- the sweeps

def test_a_sweep_on_the_cluster_gives_the_sequential_rows(client, tmp_path):
    for algo, overrides in (("coalitions", {"serial_max": 8}), ("tsp", {"peers_max": 0, "hk_max": 7,
                                                                         "serial_hk_max": 7})):
        seq = bench.run_preset(algo, "cpu", progress=False, quick=True, **overrides)
        rows = bench.run_preset(algo, "cpu", out=tmp_path / algo, progress=False, quick=True, cluster=client,
                                **overrides)
        _same_content(seq, rows)
        assert all(r["worker_host"] and r["worker_gpu"] is None for r in rows)
        rec = results.read(tmp_path / algo, "cpu")
        _same_content(rec.rows, seq)
        assert rec.meta["progress"]["complete"] and len(rec.meta["cluster"]["workers"]) == 2
        assert [i for i, _, _ in rec.meta["cases_recorded"]] == list(range(rec.meta["progress"]["cases"]))


@pytest.fixture
def toy_suite(monkeypatch, tmp_path):
    """A CPU suite whose case 1 fails while the file ``broken`` exists, and whose every case
    leaves a file behind each time it runs (so a test sees which cases ran)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    broken = tmp_path / "broken"
    mod = types.ModuleType("toy_cluster_suite")

    def cases(p):
        for n in p["sizes"]:
            def run(n=n):
                count = len(list(runs.glob(f"n{n}-*")))
                (runs / f"n{n}-{count}").touch()
                if n == 1 and broken.exists():
                    raise RuntimeError("case n=1 fails on purpose")
                return [{"n": n, "square": n * n}, {"n": n, "square": -n * n}]
            yield bench.Case(f"n={n}", run)

    mod.PRESETS = {"squares": bench.Preset("squares", {"sizes": [0, 1, 2, 3]}, cases, needs_gpu=False)}
    monkeypatch.setitem(sys.modules, "toy_cluster_suite", mod)
    monkeypatch.setitem(bench.SUITES, "toy", "toy_cluster_suite")
    return runs, broken


@pytest.mark.parametrize("on_cluster", [False, True], ids=["sequential", "cluster"])
def test_an_unfinished_sweep_is_resumed_and_only_its_missing_cases_run(toy_suite, tmp_path, client, on_cluster):
    runs, broken = toy_suite
    where = client if on_cluster else None
    broken.touch()
    with pytest.raises(RuntimeError, match="fails on purpose"):
        bench.run_preset("toy", "squares", out=tmp_path / "o", progress=False, cluster=where)
    rec = results.read(tmp_path / "o", "squares")
    recorded = [i for i, _, _ in rec.meta["cases_recorded"]]
    assert not rec.meta["progress"]["complete"] and 1 not in recorded
    assert recorded == [0] if not on_cluster else recorded == sorted(recorded)
    counts = {n: len(list(runs.glob(f"n{n}-*"))) for n in range(4)}
    broken.unlink()
    rows = bench.run_preset("toy", "squares", out=tmp_path / "o", progress=False, cluster=where)
    for n in range(4):    # the recorded cases did not run again, the others ran once more
        assert len(list(runs.glob(f"n{n}-*"))) == counts[n] + (n not in recorded), n
    assert [(r["n"], r["square"]) for r in rows] == [(n, s * n * n) for n in range(4) for s in (1, -1)]
    rec = results.read(tmp_path / "o", "squares")
    assert rec.meta["progress"]["complete"] and [(r["n"], r["square"]) for r in rec.rows] == \
        [(r["n"], r["square"]) for r in rows]
    # finished: a rerun measures everything again, into .new, renamed over the old (as many rows)
    bench.run_preset("toy", "squares", out=tmp_path / "o", progress=False, cluster=where)
    assert len(list(runs.glob("n0-*"))) == 2
    # other parameters: never mixed with the recorded cases
    broken.touch()
    with pytest.raises(RuntimeError):
        bench.run_preset("toy", "squares", out=tmp_path / "p", progress=False, sizes=[1])
    broken.unlink()
    bench.run_preset("toy", "squares", out=tmp_path / "p", progress=False, sizes=[0, 1])
    assert [r["n"] for r in results.read(tmp_path / "p", "squares").rows] == [0, 0, 1, 1]


def test_the_command_line_runs_a_sweep_on_a_running_scheduler(client, tmp_path, capsys):
    rc = bench.main(["coalitions", "--preset", "cpu", "--quick", "--set", "serial_max=6", "--out", str(tmp_path),
                     "--scheduler", client.scheduler.address])
    assert rc == 0 and "wrote" in capsys.readouterr().out
    rec = results.read(tmp_path, "cpu")
    assert rec.meta["cluster"]["scheduler"] == client.scheduler.address and rec.rows[0]["worker_host"]


def test_on_a_cluster_a_refused_case_stops_the_sweep_before_any_case_runs(client, monkeypatch, tmp_path):
    """The checks run as one task on a worker (whose memory the cases would use), before any
    case is submitted: nothing runs, nothing is written, and the error names the case."""
    runs = tmp_path / "runs"
    runs.mkdir()
    mod = types.ModuleType("toy_checked_suite")

    def cases(p):
        for n in p["sizes"]:
            def run(n=n):
                (runs / f"n{n}").touch()
                return [{"n": n}]

            def check(n=n):
                if n > 100:
                    raise ValueError(f"n={n} is too large here (checked in process {os.getpid()})")
            yield bench.Case(f"n={n}", run, check)

    mod.PRESETS = {"squares": bench.Preset("squares", {"sizes": [1, 2]}, cases, needs_gpu=False)}
    monkeypatch.setitem(sys.modules, "toy_checked_suite", mod)
    monkeypatch.setitem(bench.SUITES, "toy", "toy_checked_suite")
    with pytest.raises(ValueError, match=r"toy/squares with sizes=\[1, 500\]: case 'n=500' is refused before the "
                                         r"sweep starts: n=500 is too large here \(checked in process (\d+)\)") as err:
        bench.run_preset("toy", "squares", out=tmp_path / "o", progress=False, cluster=client, sizes=[1, 500])
    worker_pid = int(re.search(r"process (\d+)", str(err.value)).group(1))
    assert worker_pid != os.getpid() and worker_pid in client.run(os.getpid).values()
    assert not any(runs.iterdir()) and not (tmp_path / "o").exists()
    assert [r["n"] for r in bench.run_preset("toy", "squares", progress=False, cluster=client)] == [1, 2]
    assert sorted(f.name for f in runs.iterdir()) == ["n1", "n2"]


# ------------------------------------------------------------------------------- the TSP

def test_distributed_tsp_is_the_sequential_tour_whatever_the_chunking(client, rng):
    for n in (6, 10):
        inst = tsp.random_euclidean(n, seed=int(rng.integers(1 << 30)))
        ref = tsp.solve(inst, variant="serial_bruteforce")
        assert ref.length == tsp.solve(inst, variant="held_karp").length
        for tasks in (1, 3, 7, 40):
            r = tsp.solve_on_cluster(inst, client, tasks=tasks)
            assert r.length == ref.length and r.tour.tolist() == ref.tour.tolist(), (n, tasks)
            assert r.stats["tasks"] <= tasks and r.stats["permutations"] == ref.stats["permutations"]
    r = tsp.solve_on_cluster(inst, client, tasks=6)
    assert r.stats["workers"] == 2 and r.stats["device"].startswith("2 x CPU")
    assert {t["worker"] for t in r.stats["where"]} == set(client.scheduler_info()["workers"])


def test_warm_reaches_every_worker(client):
    from gpualgo.tsp import distributed
    assert distributed.warm(client) == 2
    with pytest.raises(ValueError, match="unknown variant"):
        distributed.warm(client, "held_karp")


def test_distributed_tsp_ties_asymmetric_and_infeasible(client):
    equal = np.ones((8, 8), dtype=np.int64)
    np.fill_diagonal(equal, 0)          # every tour ties: the first one wins everywhere
    asym = tsp.random_asymmetric(8, seed=4)
    for inst in (equal, asym):
        ref = tsp.solve(inst, variant="serial_bruteforce")
        for tasks in (1, 13):
            r = tsp.solve_on_cluster(inst, client, tasks=tasks)
            assert r.tour.tolist() == ref.tour.tolist() and r.length == ref.length
    star = np.full((6, 6), tsp.NO_EDGE, dtype=np.int64)   # a star: no tour at all
    np.fill_diagonal(star, 0)
    star[0, 1:] = star[1:, 0] = 1
    r = tsp.solve_on_cluster(star, client, tasks=3)
    assert not r.feasible and r.tour is None
    assert tsp.solve_on_cluster(np.zeros((1, 1), dtype=np.int64), client).tour.tolist() == [0]
    with pytest.raises(ValueError, match="unknown variant"):
        tsp.solve_on_cluster(asym, client, variant="held_karp")
    with pytest.raises(ValueError, match="tasks must be"):
        tsp.solve_on_cluster(asym, client, tasks=0)


# ---------------------------------------------------------------------------- notebooks

def test_the_notebook_runner_on_a_cluster(client, tmp_path, capfd):
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("papermill")
    from gpualgo import run_notebooks
    paths = []
    for name, body in (("a_slow", "import time\ntime.sleep(1)\nprint('slow', scale)"),
                       ("b_bad", "raise RuntimeError('this cell fails on purpose')")):
        nb = nbformat.v4.new_notebook()
        params = nbformat.v4.new_code_cell("quick: bool = False\ninteractive: bool = True\nscale: int = 1")
        params.metadata["tags"] = ["parameters"]
        nb.cells = [nbformat.v4.new_markdown_cell(f"# {name}"), params, nbformat.v4.new_code_cell(body)]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
        paths.append(str(tmp_path / f"{name}.ipynb"))
    rc = run_notebooks.main(paths + ["--out", str(tmp_path / "out"), "-p", "scale", "3",
                                     "--cluster", client.scheduler.address])
    lines = capfd.readouterr().out.strip().splitlines()
    assert rc == 1 and len(lines) == 4, lines
    assert lines[1].startswith("a_slow.ipynb") and " ok " in lines[1]          # the notebooks' order
    assert lines[2].startswith("b_bad.ipynb") and "fails on purpose" in lines[2]
    assert lines[3].startswith("2 notebooks, 1 ok, 1 failed")
    assert "slow 3" in (tmp_path / "out" / "html" / "a_slow.html").read_text()
    assert (tmp_path / "out" / "html" / "index.html").read_text().count("<tr>") == 3


# ------------------------------------------------------------- a worker lost mid-task (last)

def test_a_lost_worker_costs_nothing_but_time(client, tmp_path):
    inst = tsp.random_euclidean(11, seed=7)
    ref = tsp.solve(inst, variant="serial_bruteforce")
    flag = tmp_path / "lost-in-tsp"
    cluster.lose_one_worker(client, flag)
    r = tsp.solve_on_cluster(inst, client, tasks=8)
    assert flag.exists(), "no worker was lost"
    assert r.tour.tolist() == ref.tour.tolist() and r.length == ref.length

    seq = bench.run_preset("coalitions", "cpu", progress=False, quick=True, serial_max=8)
    flag = tmp_path / "lost-in-sweep"
    cluster.lose_one_worker(client, flag)
    rows = bench.run_preset("coalitions", "cpu", out=tmp_path / "o", progress=False, quick=True, serial_max=8,
                            cluster=client)
    assert flag.exists(), "no worker was lost"
    _same_content(seq, rows)
    assert len(results.read(tmp_path / "o", "cpu").rows) == len(seq)
    json.dumps(results.read(tmp_path / "o", "cpu").meta)


# ------------------------------------------------------------------- the recorded two-GPU runs

def test_recorded_two_gpu_runs_and_their_goals():
    """What notebook 06 prints from the two-H200 records: the sweep's speed-up with the same rows,
    the coalition DP's at n = 29 (both goals met), the brute force's at n = 16 (missed, recorded
    before the in-phase ranges) and n = 17 exact on two GPUs."""
    from gpualgo import results
    from gpualgo.coalitions import analysis as ca
    from gpualgo.tsp import analysis as ta
    cmp = bench.compare_sweeps(results.read("tsp", "sweep"), results.read("tsp", "two_gpus/sweep"))
    assert cmp["same"] and cmp["rows"] == 96 and cmp["workers"] == 2 and cmp["goal"] == "met"
    assert 1.8 <= cmp["speedup"] < 1.81
    tsp_lines = ta.cluster_lines(results.read("tsp", "multigpu").rows)
    assert tsp_lines[0].startswith("n = 16: 1 worker(s) 5.70 s (median of 3); 2 worker(s) 4.83 s (median of 3)")
    assert tsp_lines[0].endswith("verified against Held-Karp; goal 1.8x on 2: missed]")
    assert tsp_lines[1].startswith("n = 17: 2 worker(s) 40.58 s") and "verified" in tsp_lines[1]
    co = ca.multigpu_lines(results.read("coalitions", "multigpu").rows)
    assert "1.83x on 2 GPUs (the same partition and DP value" in co[1] and co[1].endswith("goal 1.6x: met)")
    assert co[2].startswith("n = 31 on 2 GPU(s): 55.6 s, exact") and "9.0 GiB of tables on each GPU" in co[2]
    assert co[3].startswith("the largest n the 2 GPUs hold: n = 34")
    # an unmet speed-up is called missed
    rows = [dict(n=9, workers=w, total_ms=t, verified=True, device="x") for w, t in ((1, 10.0), (2, 6.0))]
    assert ta.cluster_lines(rows)[0].endswith("goal 1.8x on 2: missed]")
    rows[1]["total_ms"] = 5.0
    assert ta.cluster_lines(rows)[0].endswith("goal 1.8x on 2: met]")
