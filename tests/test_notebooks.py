"""Every notebook: committed clean, driven by a `parameters` cell, and runs headless in quick mode."""
import json
import pathlib
import re

import pytest

from gpualgo import peers, run_notebooks

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _cells(path):
    return json.loads(path.read_text())["cells"]


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = json.loads(path.read_text())
    dirty = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, f"cells {dirty} carry outputs: clear them before committing"
    # a valid nbformat 4 code cell has both keys, empty (nbformat.write fails without them)
    bare = [i for i, c in enumerate(nb["cells"])
            if c["cell_type"] == "code" and not {"outputs", "execution_count"} <= set(c)]
    assert not bare, f"cells {bare} lack 'outputs' or 'execution_count': give them [] and null"
    assert "widgets" not in nb.get("metadata", {}), "widget state saved in the notebook"
    no_id = [i for i, c in enumerate(nb["cells"]) if "id" not in c]
    assert not no_id, f"cells {no_id} have no id (nbformat 4.5): run nbformat's normalize"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_parameters_cell(path):
    tagged = [c for c in _cells(path) if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, "exactly one cell must be tagged 'parameters'"
    src = "".join(tagged[0]["source"])
    assert "quick: bool" in src and "interactive: bool" in src
    first = _cells(path)[0]
    assert first["cell_type"] == "markdown" and "".join(first["source"]).startswith("# ")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_papermill_reads_every_parameter_with_its_type(path):
    # papermill must parse the cell: a comment holding '=' or a quote defeats its parser
    import papermill
    params = papermill.inspect_notebook(str(path))
    assert params["quick"]["inferred_type_name"] == "bool" and params["quick"]["default"] == "False"
    assert params["interactive"]["inferred_type_name"] == "bool"
    untyped = [k for k, v in params.items() if v["inferred_type_name"] in ("None", "", None)]
    assert not untyped, f"parameters without a type annotation: {untyped}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_headless_in_quick_mode(path, tmp_path):
    row = run_notebooks.execute(path, tmp_path, {"quick": True, "interactive": False})
    assert row["ok"], f"{path.name} failed: {row['error']} (see {row['executed']})"
    assert row["figures"] >= 1, "a notebook that draws no figure"
    executed = json.loads((tmp_path / "notebooks" / path.name).read_text())
    errors = [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors


def _outputs_text(executed: pathlib.Path) -> str:
    cells = json.loads(executed.read_text())["cells"]
    return "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                   for c in cells for o in c.get("outputs", []))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_without_the_peers(path, tmp_path):
    # as on a machine where lap, OR-tools, igraph and python-tsp are not installed
    row = run_notebooks.execute(path, tmp_path, {"quick": True, "interactive": False}, hide_peers=True)
    assert row["ok"], f"{path.name} fails without the optional peers: {row['error']} (see {row['executed']})"
    source = "".join("".join(c["source"]) for c in _cells(path))
    text = _outputs_text(tmp_path / "notebooks" / path.name)
    for name in sorted(set(re.findall(r"peers\.note\(\s*[\"'](\w+)[\"']", source))):
        assert peers.missing_text(name) in text, f"{path.name} does not say that {name} is missing"


# ---------------------------------------------------------------- the exercise notebooks

EXERCISE_NOTEBOOKS = sorted((ROOT / "notebooks" / "exercises").glob("*.ipynb"))


def test_exercise_notebooks_are_the_generated_ones(capsys):
    """The exercise notebooks are made from the exercises (their stubs, specs, hints, cases):
    `python -m gpualgo.exercises.notebooks --check` finds every committed one equal to its
    generated text; after a change to an exercise, `--write` makes them again."""
    from gpualgo.exercises import notebooks
    assert len(EXERCISE_NOTEBOOKS) >= 6
    code = notebooks.main(["--check", "--dir", str(ROOT / "notebooks" / "exercises")])
    assert code == 0, capsys.readouterr().out


@pytest.mark.parametrize("path", EXERCISE_NOTEBOOKS, ids=lambda p: p.name)
def test_exercise_notebook_clean_with_a_solutions_parameter(path):
    import papermill
    nb = json.loads(path.read_text())
    assert not [c for c in nb["cells"] if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert all("id" in c for c in nb["cells"])
    params = papermill.inspect_notebook(str(path))
    assert params["solutions"]["default"] == "False" and params["solutions"]["inferred_type_name"] == "bool"
    assert "<details>" in "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_an_exercise_notebook_with_its_starters_runs_headless_without_tracebacks(tmp_path):
    path = ROOT / "notebooks" / "exercises" / "04_dgs.ipynb"
    row = run_notebooks.execute(path, tmp_path, {"interactive": False, "solutions": False})
    assert row["ok"], row["error"]
    text = _outputs_text(tmp_path / "notebooks" / path.name)
    assert "Traceback" not in text and "dgs.row_max" in text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_gpu_cells_show_recorded_runs_without_a_gpu(path):
    """Every GPU version a notebook runs names where its runs were recorded, so that a
    reader without a GPU sees what it measured (nbtools.run_and_check's recorded_in)."""
    for c in _cells(path):
        src = "".join(c["source"]) if c["cell_type"] == "code" else ""
        for call in re.finditer(r"run_and_check\((?:[^()]|\([^()]*\))*\)", src):
            if re.search(r"""['"]gpu\w*['"]""", call.group(0)):
                assert "recorded_in=" in call.group(0), f"{path.name}: {call.group(0)[:120]}"


REPORT_NOTEBOOKS = [p for p in NOTEBOOKS if p.name[:2] in {"01", "02", "03", "04", "05"}]


@pytest.mark.parametrize("path", REPORT_NOTEBOOKS, ids=lambda p: p.name)
def test_the_reports_findings_are_tested_before_the_take_away(path):
    """The template: a section of the report's findings, computed by show_findings from a
    package FINDINGS table, just before the last section (what to take away)."""
    cells = _cells(path)
    heads = [(i, "".join(c["source"]).splitlines()[0]) for i, c in enumerate(cells)
             if c["cell_type"] == "markdown" and "".join(c["source"]).startswith("## ")]
    assert re.match(r"## \d+ · The report's findings, tested", heads[-2][1]), heads[-2][1]
    assert re.match(r"## \d+ · What to take away", heads[-1][1]), heads[-1][1]
    between = "".join("".join(c["source"]) for c in cells[heads[-2][0]:heads[-1][0]] if c["cell_type"] == "code")
    assert re.search(r"nbtools\.show_findings\(\w+\.FINDINGS", between)


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name[:2] in {"01", "02", "03", "04", "05"}],
                         ids=lambda p: p.name)
def test_every_problem_notebook_opens_on_the_template(path):
    """gpualgo/README.md's template: the title cell, a cell naming the source report and what you
    will learn, the parameters cell; numbered sections from "## 1 · The problem"."""
    cells = json.loads(path.read_text())["cells"]
    text = ["".join(c["source"]) for c in cells]
    assert text[0].startswith(f"# {path.name[:2]} · "), text[0][:60]
    assert text[1].startswith("**Source report:** ") and "**What you will learn**" in text[1], text[1][:80]
    assert "parameters" in cells[2]["metadata"].get("tags", [])
    sections = [ln for t, c in zip(text, cells) if c["cell_type"] == "markdown" for ln in t.splitlines()
                if ln.startswith("## ")]
    assert sections[0].startswith("## 1 · The problem"), sections[0]
    assert [s.split(" · ")[0] for s in sections] == [f"## {i}" for i in range(1, len(sections) + 1)], sections


@pytest.mark.parametrize("path", NOTEBOOKS + EXERCISE_NOTEBOOKS, ids=lambda p: p.name)
def test_parameters_are_checked_before_anything_runs(path):
    # the set-up cell checks every parameter as declared (nbtools.check_parameters) before the
    # first line that uses one: papermill's -p passes a value of any type through
    code = ["".join(c["source"]) for c in _cells(path) if c["cell_type"] == "code"]
    setup = code[1]
    assert "nbtools.check_parameters(globals()" in setup, path.name
    if "if quick:" in setup:
        assert setup.index("nbtools.check_parameters(") < setup.index("if quick:")


@pytest.mark.parametrize("params, message", [
    ({"n_agents": "abc"}, r"parameter 'n_agents' is declared int, got 'abc' \(str\)"),
    ({"block": 96}, r"block must be a power of two in 32..1024, got 96"),
    ({"reps": 0, "quick": False}, r"parameter 'reps' must be at least 1, got 0"),
])
def test_a_bad_parameter_is_refused_by_name_in_the_set_up_cell(params, message, tmp_path):
    # as papermill -p passes it, around run_notebooks' own check of the command line
    path = ROOT / "notebooks" / "05_coalition_dp.ipynb"
    row = run_notebooks.execute(path, tmp_path, {"quick": True, "interactive": False, **params})
    assert not row["ok"] and re.search(message, row["error"]), row["error"]
    executed = json.loads((tmp_path / "notebooks" / path.name).read_text())
    code = [c for c in executed["cells"] if c["cell_type"] == "code"]
    failed = [i for i, c in enumerate(code) if any(o.get("output_type") == "error" for o in c.get("outputs", []))]
    assert failed and failed[0] <= 2                    # the injected parameters, then the set-up cell
