"""The exercises: markers, starters, compile-only feedback, messages (CPU); every solution
passes, every starter fails and every listed mistake is caught with its message (GPU)."""
import concurrent.futures
import json
import pathlib
import re

import numpy as np
import pytest

from gpualgo import exercises, gpu, nbtools
from gpualgo.exercises import core

ROOT = pathlib.Path(__file__).resolve().parents[2]
ALL = exercises.all_exercises()
IDS = [e.id for e in ALL]


def test_fifteen_or_more_exercises_over_the_five_problems_and_four_tiers():
    assert len(ALL) >= 15
    by_problem = {}
    for e in ALL:
        by_problem.setdefault(e.id.split(".")[0], []).append(e)
    assert sorted(by_problem) == sorted(exercises.PROBLEMS)
    assert all(len(v) >= 3 for v in by_problem.values()), {k: len(v) for k, v in by_problem.items()}
    assert {e.tier for e in ALL} == {1, 2, 3, 4}


@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_markers_well_formed_and_the_stub_differs(ex):
    b, e = core.region(ex.file, ex.id)
    assert e > b + 1, "an empty region"
    assert exercises.solution(ex.id).strip() != exercises.starter(ex.id).strip()
    assert "TODO" in exercises.starter(ex.id)
    for name, (source, words) in ex.mistakes.items():
        assert source.strip() != exercises.solution(ex.id).strip(), name


def test_every_marker_belongs_to_a_registered_exercise():
    files = ["common.cuh"] + [p.name for p in (ROOT / "gpualgo" / "kernels").glob("*.cu")]
    marked = [i for f in files for i in core.markers(f)]
    assert sorted(marked) == sorted(IDS)
    bad = [l for f in files for l in gpu.kernel_source(f).splitlines()
           if "// exercise" in l and not core._MARK.match(l)]
    assert not bad, f"malformed marker lines: {bad}"


def test_displayed_kernels_do_not_show_the_markers():
    assert "// exercise" not in nbtools.kernel_text("tsp")
    assert "// exercise" not in nbtools.kernel_text("tsp", "unrank_kernel", helpers=True)
    assert "costs[i] = cost + W[prev * n];" in nbtools.kernel_text("tsp", "tour_cost_kernel")


def test_assembled_source_numbers_the_students_lines_from_one():
    text = exercises.assemble("tsp.tour_cost", "    // mine\n")
    lines = text.splitlines()
    k = lines.index('#line 1 "your_code"')
    assert lines[k + 1] == "    // mine" and lines[k + 2].startswith('#line ') and lines[k + 2].endswith('"tsp.cu"')
    # the line after the region keeps its number in tsp.cu (the end marker is the line before)
    n = int(lines[k + 2].split()[1])
    assert gpu.kernel_source("tsp").splitlines()[n - 2].strip() == "// exercise tsp.tour_cost: end"
    assert lines[k + 3] == gpu.kernel_source("tsp").splitlines()[n - 1]
    # a region in common.cuh: the header is inlined with the student's text in place
    text = exercises.assemble("tsp.block_argmin", "    // mine\n")
    assert '#line 1 "common.cuh"' in text and "    // mine" in text and "#pragma once" not in text
    assert "// exercise" not in text


def test_unknown_exercise_names_the_known_ones():
    with pytest.raises(ValueError, match="tsp.tour_cost"):
        exercises.get("tsp.nope")


@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_cases_are_small_and_fixed(ex):
    a, b = ex.cases(True), ex.cases(True)
    assert 1 <= len(a) <= 8 and [c.name for c in a] == [c.name for c in b]
    for c1, c2 in zip(a, b):
        assert len(c1.name) < 90
        for k, v in c1.data.items():
            if isinstance(v, np.ndarray):
                assert np.array_equal(v, c2.data[k]), f"{c1.name}: {k} differs between two calls"


needs_compiler = pytest.mark.skipif(exercises.compiler() is None,
                                    reason="no CUDA compiler: pip install -e '.[exercises]' (NVRTC) or nvcc on PATH")


@needs_compiler
def test_every_starter_and_every_solution_compiles():
    jobs = [(e, label, src) for e in ALL
            for label, src in (("starter", exercises.starter(e.id)), ("solution", exercises.solution(e.id)))]

    def build(job):
        e, label, src = job
        ok, log, backend = exercises.compile_only(exercises.assemble(e.id, src), core._options(e))
        return e.id, label, ok, log

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        failed = [(i, lab, log[:400]) for i, lab, ok, log in pool.map(build, jobs) if not ok]
    assert not failed, failed


@needs_compiler
def test_compile_error_points_at_the_students_line(capsys, monkeypatch):
    monkeypatch.setattr(gpu, "available", lambda: False)
    src = "    const int m = n - 1;\n    int oops = undefined_name + m;\n"
    r = exercises.check("tsp.tour_cost", src)
    out = capsys.readouterr().out
    assert r.passed is False and r.case == "compile" and r.compiled is False
    assert "line 2: error" in out and "undefined_name" in out and "int oops = undefined_name + m;" in out
    assert "Traceback" not in out


@needs_compiler
def test_without_a_gpu_a_correct_source_compiles_and_says_that_running_needs_one(capsys, monkeypatch):
    monkeypatch.setattr(gpu, "available", lambda: False)
    r = exercises.check("coalitions.atomic_max", exercises.solution("coalitions.atomic_max"))
    out = capsys.readouterr().out
    assert r.passed is None and r.compiled is True
    assert "compiles" in out and "needs a GPU" in out


def test_without_any_compiler_the_check_says_how_to_get_one(capsys, monkeypatch):
    monkeypatch.setattr(gpu, "available", lambda: False)
    monkeypatch.setattr(core, "_nvrtc", lambda: None)
    monkeypatch.setattr(core.shutil, "which", lambda name: None)
    r = exercises.check("dgs.row_max", exercises.starter("dgs.row_max"))
    out = capsys.readouterr().out
    assert r.passed is None and r.compiled is None and "pip install -e '.[exercises]'" in out


def test_an_empty_source_is_a_plain_failure(capsys):
    r = exercises.check("dgs.row_max", "   ")
    assert r.passed is False and "empty" in capsys.readouterr().out


# ---------------------------------------------------------------- verifiers on CPU-made outputs

def _case(ex_id, name_part):
    return next(c for c in exercises.get(ex_id).cases(True) if name_part in c.name)


def test_tour_cost_verifier():
    from gpualgo.exercises import tsp as ext
    c = _case("tsp.tour_cost", "n=7")
    good = ext._tour_cost_expected(c.data)
    ext._tour_cost_verify(c, good)
    bad = good.copy()
    bad[5] = core.padded_fill(np.int32)
    with pytest.raises(core.Failure, match=r"(?s)costs\[i=5\].*never written.*stride"):
        ext._tour_cost_verify(c, bad)


def test_block_argmin_verifier_names_the_first_warp_mistake():
    from gpualgo.exercises import tsp as ext
    c = _case("tsp.block_argmin", "last warp")
    cost, rank = c.data["cost"], c.data["rank"]
    ext._argmin_verify(c, (int(cost.min()), int(rank[cost == cost.min()].min())))
    w0 = np.array([i for i in range(len(cost)) if i % c.data["threads"] < 32])
    k = w0[np.argmin(cost[w0])]
    with pytest.raises(core.Failure, match="first warp"):
        ext._argmin_verify(c, (int(cost[k]), int(rank[k])))


def test_held_karp_reference_and_verifier():
    from gpualgo.exercises import tsp as ext
    from gpualgo.tsp import serial
    c = _case("tsp.held_karp_layer", "n=7")
    W = c.data["W"]
    dp = ext._hk_reference(W)
    m = len(W) - 1
    full = (1 << m) - 1
    best = min(dp[full, j] + W[j + 1, 0] for j in range(m))
    assert best == serial.solve_held_karp(W).length or best >= len(W) * 100  # missing edges: both infeasible
    ext._hk_verify(c, dp.copy())
    bad = dp.copy()
    bad[3, 1] += 1
    with pytest.raises(core.Failure, match=r"layer s=2: dp\[mask=3\]\[j=1\]"):
        ext._hk_verify(c, bad)


def test_unpad_catches_a_write_past_the_end():
    class D:
        def __init__(self, a):
            self.a = a

        def get(self):
            return self.a
    a = np.concatenate([np.arange(5, dtype=np.int32), np.full(core.PAD, -7, np.int32)])
    assert list(core.unpad("x", D(a), 5)) == [0, 1, 2, 3, 4]
    a[7] = 1
    with pytest.raises(core.Failure, match=r"x\[7\] was written.*bounds guard"):
        core.unpad("x", D(a), 5)


def test_auction_verifiers():
    from gpualgo.exercises import auction as exa
    c = _case("auction.top2", "ties")
    ref = exa._top2_reference(c.data["raw"], c.data["scale"], c.data["price"])
    exa._top2_verify(c, ref)
    bad = list(ref)
    bad[0] = (ref[0][0], ref[0][1], ref[0][2] + 1)
    with pytest.raises(core.Failure, match="person 0"):
        exa._top2_verify(c, bad)
    c = _case("auction.assign_winner", "all free")
    d = c.data
    owner = d["owner"].copy()
    owner[d["objs"]] = d["winners"]
    with pytest.raises(core.Failure, match="price"):
        exa._assign_verify(c, dict(price=d["price"], owner=owner, person_obj=None, counters=np.zeros(8), key=None,
                                   next=np.array([])))


def test_maxflow_and_coalitions_verifiers():
    from gpualgo.exercises import coalitions as exc
    from gpualgo.exercises import maxflow as exm
    c = _case("maxflow.queue_slot", "30%")
    flags = c.data["flags"]
    q = np.concatenate([np.flatnonzero(flags)[::-1], np.full(100, -7)]).astype(np.int32)
    exm._queue_verify(c, (int(flags.sum()), q))
    with pytest.raises(core.Failure, match="counter"):
        exm._queue_verify(c, (int(flags.sum()) - 3, q))
    c = _case("coalitions.atomic_max", "negative")
    k = len(c.data["start"])
    exp = np.array([c.data["vals"][s::k].max() for s in range(k)], np.float32)
    exc._atomic_verify(c, exp)
    with pytest.raises(core.Failure, match="negative"):
        exc._atomic_verify(c, c.data["start"].copy())
    c = _case("coalitions.warp_max", "groups of 4")
    g = c.data["group"]
    lanes = c.data["vals"].reshape(-1, g)
    exc._warp_verify(c, np.maximum(c.data["f"], lanes.max(axis=1)))
    with pytest.raises(core.Failure, match="did not cover"):
        exc._warp_verify(c, np.maximum(c.data["f"], lanes[:, :g // 2].max(axis=1)))
    # a plain store: each group's true maximum, but the larger f[c] already there is lost
    c = _case("coalitions.warp_max", "already larger")
    g, f = c.data["group"], c.data["f"]
    vals = np.concatenate([c.data["vals"], np.full(len(f) * g - len(c.data["vals"]), -np.inf, np.float32)])
    stored = vals.reshape(-1, g).max(axis=1)
    exc._warp_verify(c, np.maximum(f, stored))
    with pytest.raises(core.Failure, match="atomic maximum"):
        exc._warp_verify(c, stored)


def test_shared_matrix_failure_inside_the_solver_keeps_the_hint(monkeypatch):
    from gpualgo.exercises import tsp as ext
    from gpualgo.tsp import gpu as tsp_gpu
    from gpualgo.tsp.result import InconsistentTour

    def wrong(inst, block):
        raise InconsistentTour("gpu_shared_incremental: reported length 5 but the tour [0, 1] has length 7")
    monkeypatch.setattr(tsp_gpu, "shared_incremental", wrong)

    class Mod:
        text = "unused"
    with pytest.raises(core.Failure, match="is every entry of W loaded"):
        ext._shared_run(Mod(), _case("tsp.shared_matrix", "n=9"))


def test_dgs_verifiers():
    from gpualgo.exercises import dgs as exd
    from gpualgo.assignment.dgs import checks as dchecks
    c = _case("dgs.ade_row", "optimal")
    A, tau, holder, cur = c.data["state"]
    d, j = exd._ade_expected(A, tau, holder, cur)
    assert (d < 0).all()  # exchange-optimal: the own job (gain 0) would win if not skipped
    assert np.isclose(d.max(), dchecks.exchange_gains(A, tau)[0]) or d.max() <= dchecks.exchange_gains(A, tau)[1]
    exd._ade_verify(c, (d, j))
    with pytest.raises(core.Failure, match="out_d"):
        exd._ade_verify(c, (np.zeros_like(d), tau.copy()))


# ---------------------------------------------------------------- on a GPU

@pytest.fixture(scope="module")
def precompiled():
    """Compile every source the GPU tests check, in parallel, so the checks find them cached."""
    cp = gpu.require()
    jobs = [(e, s) for e in ALL for s in [exercises.solution(e.id), exercises.starter(e.id)]
            + [m[0] for m in e.mistakes.values()]]

    def build(job):
        e, s = job
        try:
            cp.RawModule(code=exercises.assemble(e.id, s), options=tuple(core._options(e)), **e.module_options).compile()
        except Exception:
            pass
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(build, jobs))
    return True


@pytest.mark.gpu
@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_solution_passes_and_starter_fails(ex, precompiled, capsys):
    r = exercises.check(ex.id, exercises.solution(ex.id), speed=False)
    assert r.passed is True, r.message
    r = exercises.check(ex.id, exercises.starter(ex.id), speed=False)
    out = capsys.readouterr().out
    assert r.passed is False and r.compiled is True, r.message
    assert out.count("FAIL") == 1 and "Traceback" not in out


MISTAKES = [(e, name) for e in ALL for name in e.mistakes]


@pytest.mark.gpu
@pytest.mark.parametrize("ex,name", MISTAKES, ids=[f"{e.id}:{n}" for e, n in MISTAKES])
def test_typical_mistake_is_caught_with_its_message(ex, name, precompiled):
    source, words = ex.mistakes[name]
    r = exercises.check(ex.id, source, speed=False)
    assert r.passed is False and r.compiled is True, r.message
    assert words in r.message, r.message


@pytest.mark.gpu
def test_speed_line_of_an_optimisation_exercise(precompiled):
    r = exercises.check("dgs.ade_cells_shared", exercises.solution("dgs.ade_cells_shared"))
    assert r.passed and "the suite's" in r.speed and "ms" in r.speed


def test_the_course_page_lists_every_exercise_and_both_tracks():
    page = (ROOT / "notebooks" / "exercises" / "README.md").read_text()
    for e in ALL:
        assert f"`{e.id}`" in page, e.id
        for name in e.mistakes:
            assert name in page, (e.id, name)
    assert "2 hours" in page and "6 hours" in page and "Grading" in page and "measure.bytes" in page


def test_the_notebooks_hold_every_exercise_with_its_starter_hints_and_check():
    from gpualgo.exercises import notebooks
    made = notebooks.generated()
    assert sorted(made) == sorted(p.name for p in (ROOT / "notebooks" / "exercises").glob("*.ipynb"))
    text = "".join(made.values())
    for e in ALL:
        nb = json.loads(made[next(n for n in made if n.split("_", 1)[1] == f"{e.id.split('.')[0]}.ipynb")])
        cells = ["".join(c["source"]) for c in nb["cells"]]
        k = next(i for i, c in enumerate(cells) if f"(`{e.id}`, tier {e.tier})" in c)
        assert e.signature in cells[k] and len(e.hints) >= 1 and all(h in cells[k] for h in e.hints), e.id
        assert cells[k + 1] == f"source_{e.id.split('.')[1]} = r'''\n{exercises.starter(e.id)}'''"
        assert f"exercises.check({e.id!r}, source_{e.id.split('.')[1]}" in cells[k + 2]
    assert text.count("result = exercises.check(") == len(ALL)


def test_the_notebook_check_names_the_first_differing_notebook_and_cell(tmp_path, capsys):
    from gpualgo.exercises import notebooks
    for name, text in notebooks.generated().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert notebooks.main(["--check", "--dir", str(tmp_path)]) == 0
    nb = json.loads((tmp_path / "04_dgs.ipynb").read_text())
    k = next(i for i, c in enumerate(nb["cells"]) if "".join(c["source"]).startswith("source_row_max = r"))
    nb["cells"][k]["source"][1] = "    // an older stub\n"
    (tmp_path / "04_dgs.ipynb").write_text(json.dumps(nb, indent=1))
    (tmp_path / "06_measuring.ipynb").unlink()
    capsys.readouterr()
    assert notebooks.main(["--check", "--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert re.search(rf"04_dgs.ipynb: cell {k} \(id {nb['cells'][k]['id']}\), line 2 of its source", out), out
    assert "06_measuring.ipynb" in out and "--write" in out
    assert notebooks.main(["--write", "--dir", str(tmp_path)]) == 0
    assert notebooks.differences(tmp_path) == []
    (tmp_path / "07_extra.ipynb").write_text("{}")
    assert notebooks.differences(tmp_path) == [f"{tmp_path / '07_extra.ipynb'}: not made by the generator "
                                               "(add it to NOTEBOOKS)"]


def test_a_new_exercise_gets_its_cells_with_ids_of_their_own():
    import dataclasses

    from gpualgo.exercises import notebooks
    nb = notebooks.NOTEBOOKS[1]
    new = dataclasses.replace(exercises.get("auction.top2"), id="auction.new_topic", title="Something new", tier=4,
                              hints=("one hint",))
    made = notebooks.build(nb, ALL + [new])
    cells = made["cells"]
    assert len(cells) == len(notebooks.build(nb)["cells"]) + 3
    assert "".join(cells[-4]["source"]).startswith("## 4 · Something new (`auction.new_topic`, tier 4)")
    assert "<details><summary>Hint</summary>\n\none hint\n\n</details>" in "".join(cells[-4]["source"])
    assert "4. `auction.new_topic` (tier 4, an optimisation): Something new." in "".join(cells[0]["source"])
    ids = [c["id"] for c in cells]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[0-9a-f]{8}", i) for i in ids)
    assert ids == [c["id"] for c in notebooks.build(nb, ALL + [new])["cells"]]  # the same on every run
    assert notebooks.unplaced(ALL) == []
    assert notebooks.unplaced(ALL + [dataclasses.replace(new, id="knapsack.fill")]) == ["knapsack.fill"]


def test_the_measuring_exercise_checks_a_byte_count(capsys):
    from gpualgo.exercises import measure
    assert measure.check_bytes(measure.bytes_model) and "PASS" in capsys.readouterr().out
    assert not measure.check_bytes(lambda count, n: count * n) and "expected" in capsys.readouterr().out
    assert measure.ncu_command().startswith("ncu --kernel-name tour_cost_kernel")


def test_compile_feedback_leaves_the_interpreters_one_byte_objects_alone():
    """NVRTC writes its log into the buffer it is given; a one-byte log in ``b" " * 1`` (the
    interpreter's shared object) once turned every later space printed into NUL."""
    ok, _, backend = core.compile_only('extern "C" __global__ void k() {}', [])
    if ok is None:
        pytest.skip("no NVRTC and no nvcc here")
    assert ok, backend
    assert " ".encode("ascii")[0] == 32 and "a b".encode("ascii") == bytes([97, 32, 98])
