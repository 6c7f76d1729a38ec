"""The notebook runner: one line per notebook, a summary, HTML copies, no third-party noise."""
import base64
import json
import pathlib

import pytest

# the notebook tools are in the test extra; a machine with only the GPU stack skips this file,
# and so does one with the test extra alone (the HTML copies need nbconvert, of the notebooks extra)
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("papermill")
pytest.importorskip("nbconvert", reason="nbconvert (the notebooks extra) writes the HTML copies")

from gpualgo import run_notebooks

FIGURE = """import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import Image, display
fig, ax = plt.subplots(figsize=(2, 2))
ax.plot([0, 1], [0, scale]); ax.set_title("a line")
import io
buf = io.BytesIO(); fig.savefig(buf, format="png"); plt.close(fig)
display(Image(buf.getvalue()))
print("scale", scale)
"""


def _notebook(path: pathlib.Path, title: str, body: str) -> pathlib.Path:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("quick: bool = False\ninteractive: bool = True\nscale: int = 1")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {title}\n\nA test notebook."), params,
                nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """One run of the command line over a notebook that works and one that fails."""
    src = tmp_path_factory.mktemp("nbs")
    good = _notebook(src / "a_good.ipynb", "A good notebook", FIGURE)
    bad = _notebook(src / "b_bad.ipynb", "A <bad> notebook", "raise RuntimeError('this cell fails on purpose')")
    out = tmp_path_factory.mktemp("out")
    return out, [good, bad]


def test_runner_lines_summary_and_html(ran, capfd):
    out, paths = ran
    rc = run_notebooks.main([str(p) for p in paths] + ["--out", str(out), "-p", "scale", "3"])
    captured = capfd.readouterr()
    assert rc == 1  # one notebook failed
    lines = captured.out.strip().splitlines()
    assert len(lines) == 4, captured.out  # GPU line, one line per notebook, the summary
    assert lines[1].startswith("a_good.ipynb") and " ok " in lines[1] and "1 figures" in lines[1]
    assert lines[2].startswith("b_bad.ipynb") and "FAILED" in lines[2] and "fails on purpose" in lines[2]
    assert lines[3].startswith("2 notebooks, 1 ok, 1 failed") and "index.html" in lines[3]
    # no third-party noise: the kernel's start-up warnings stay out of the terminal
    assert "running over TCP" not in captured.err and "WARNING" not in captured.err, captured.err

    html_dir = out / "html"
    good = (html_dir / "a_good.html").read_text()
    assert "data:image/png;base64," in good and "scale 3" in good  # figure embedded, parameter applied
    png = good.split("data:image/png;base64,", 1)[1].split('"', 1)[0]
    assert base64.b64decode(png).startswith(b"\x89PNG")
    assert "fails on purpose" in (html_dir / "b_bad.html").read_text()  # where a failed run stopped
    index = (html_dir / "index.html").read_text()
    assert '<a href="a_good.html">A good notebook</a>' in index
    assert '<a href="b_bad.html">A &lt;bad&gt; notebook</a>' in index
    assert index.count("<tr>") == 3 and ">FAILED<" in index and ">ok<" in index
    assert sorted(p.name for p in (out / "figures" / "a_good").iterdir()) == ["fig-01.png"]
    executed = json.loads((out / "notebooks" / "a_good.ipynb").read_text())
    assert any("scale = 3" in "".join(c["source"]) for c in executed["cells"])  # papermill's injected cell


def test_a_failed_html_copy_does_not_stop_the_run(tmp_path, capfd, monkeypatch):
    good = _notebook(tmp_path / "c_good.ipynb", "Another good notebook", "print('fine')")

    def no_templates(executed, html_dir):
        raise ValueError("No template sub-directory with name 'lab' found")
    monkeypatch.setattr(run_notebooks, "write_html", no_templates)
    rc = run_notebooks.main([str(good), "--out", str(tmp_path / "out")])
    lines = capfd.readouterr().out.strip().splitlines()
    assert rc == 0
    assert lines[1].startswith("c_good.ipynb") and " ok " in lines[1] and "no HTML copy: No template" in lines[1]
    assert lines[2].startswith("1 notebooks, 1 ok, 0 failed")
    assert "Another good notebook" in (tmp_path / "out" / "html" / "index.html").read_text()


def test_the_kernels_own_log_stays_out_of_the_runner_output(tmp_path, capfd):
    nb = _notebook(tmp_path / "d_noisy.ipynb", "A noisy kernel",
                   "import os\nos.write(2, b'kernel noise on its standard error\\n')\nprint('cell output')")
    rc = run_notebooks.main([str(nb), "--out", str(tmp_path / "out")])
    captured = capfd.readouterr()
    assert rc == 0 and "kernel noise" not in captured.err + captured.out
    assert "kernel noise" in (tmp_path / "out" / "logs" / "d_noisy.log").read_text()


def test_out_naming_a_file_or_a_missing_notebook_is_an_error_before_anything_runs(tmp_path, capfd):
    afile = tmp_path / "results.txt"
    afile.write_text("keep me")
    nb = _notebook(tmp_path / "e.ipynb", "E", "print(1)")
    assert run_notebooks.main([str(nb), "--out", str(afile)]) == 2
    assert "is a file" in capfd.readouterr().err and afile.read_text() == "keep me"
    assert run_notebooks.main([str(tmp_path / "nope.ipynb"), "--out", str(tmp_path / "o")]) == 2
    assert "no such notebook" in capfd.readouterr().err and not (tmp_path / "o").exists()


def test_make_run_executes_the_exercise_notebooks_with_the_solutions(tmp_path):
    root = tmp_path / "notebooks"
    (root / "exercises").mkdir(parents=True)
    a = _notebook(root / "01_a.ipynb", "A", "print(1)")
    b = _notebook(root / "exercises" / "01_ex.ipynb", "Ex", "print(1)")
    assert run_notebooks.default_notebooks(root) == [a, b]
    assert run_notebooks.parameters_for(b, {"quick": True}) == {"quick": True, "solutions": True}
    assert run_notebooks.parameters_for(b, {"solutions": False}) == {"solutions": False}
    assert run_notebooks.parameters_for(a, {"quick": True}) == {"quick": True}


def test_a_parameter_no_notebook_takes_or_of_the_wrong_type_is_refused_before_anything_runs(tmp_path, capfd):
    nb = _notebook(tmp_path / "f.ipynb", "F", "print(scale)")
    out = tmp_path / "o"
    assert run_notebooks.main([str(nb), "--out", str(out), "-p", "quik", "True"]) == 2
    err = capfd.readouterr().err
    assert "unknown parameter 'quik'" in err and "'quick'" in err and not out.exists()
    for value, kind in (("abc", "str"), ("2.5", "float"), ("True", "bool")):
        assert run_notebooks.main([str(nb), "--out", str(out), "-p", "scale", value]) == 2
        err = capfd.readouterr().err
        assert "parameter 'scale' is declared int in f.ipynb" in err and f"({kind})" in err and not out.exists()
    assert run_notebooks.main([str(nb), "--out", str(out), "-p", "quick", "1"]) == 2
    assert "parameter 'quick' is declared bool" in capfd.readouterr().err


def test_declared_parameters_read_the_tagged_cell(tmp_path):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("a: int = 1\nb: float = 0.5  # a comment\nc = 'x'\nd = [1, 2]\ne = len('ab')")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_code_cell("z: int = 0"), params]
    nbformat.write(nb, tmp_path / "g.ipynb")
    assert run_notebooks.declared_parameters(tmp_path / "g.ipynb") == {
        "a": "int", "b": "float", "c": "str", "d": "list", "e": None}
    run_notebooks.check_parameters([tmp_path / "g.ipynb"], {"b": 2, "d": "anything", "e": 3.5})  # int for float
    with pytest.raises(ValueError, match="unknown parameter 'z'"):     # not in the tagged cell
        run_notebooks.check_parameters([tmp_path / "g.ipynb"], {"z": 1})


def test_every_notebook_declares_its_parameters_with_their_types():
    paths = run_notebooks.default_notebooks()
    assert paths
    for path in paths:
        declared = run_notebooks.declared_parameters(path)
        assert declared.get("quick") == "bool" and declared.get("interactive") == "bool", path
        assert all(kind in ("bool", "int", "float", "str") for kind in declared.values()), (path, declared)
