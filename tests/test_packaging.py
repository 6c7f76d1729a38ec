"""The package's metadata: dependencies in step, kernels shipped, commands present."""
import pathlib
import re

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _name(req: str) -> str:
    return re.split(r"[<>=!~ \[;]", req.strip(), maxsplit=1)[0].lower()


def _conda_deps() -> set:
    names = set()
    text = (ROOT / "environment.yml").read_text()
    for line in text.split("\ndependencies:", 1)[1].splitlines():
        m = re.match(r"^\s+-\s+([A-Za-z0-9_.\-]+)", line)
        if m and not line.strip().startswith("- -e"):
            names.add(_name(m.group(1)))
    return names - {"python", "pip"}


def test_environment_yml_matches_pyproject():
    proj = PYPROJECT["project"]
    wanted = {_name(r) for r in proj["dependencies"]}
    for extra, reqs in proj["optional-dependencies"].items():
        if extra in ("cuda12", "cuda13", "cluster-gpu"):
            continue  # conda's single 'cupy' package covers both; dask-cuda comes from the rapidsai channel
        if extra == "cluster":   # conda-forge splits dask[distributed] into dask and distributed
            wanted |= {"dask", "distributed"}
            continue
        wanted |= {_name(r) for r in reqs}
    conda = _conda_deps()
    assert "cupy" in conda
    assert wanted == conda - {"cupy"}, f"only in pyproject: {wanted - conda}; only in environment.yml: {conda - wanted - {'cupy'}}"


def test_extras_and_package_data():
    proj = PYPROJECT["project"]
    extras = proj["optional-dependencies"]
    assert _name(extras["cuda12"][0]) == "cupy-cuda12x" and _name(extras["cuda13"][0]) == "cupy-cuda13x"
    assert "pytest" in {_name(r) for r in extras["test"]}
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["gpualgo.kernels"]
    assert "*.cu" in data and "*.cuh" in data
    assert (ROOT / "gpualgo" / "kernels" / "__init__.py").is_file()  # a package, so the data ships


def test_markers_registered():
    markers = " ".join(PYPROJECT["tool"]["pytest"]["ini_options"]["markers"])
    assert "gpu:" in markers and "slow:" in markers and "browser:" in markers and "multigpu:" in markers


def test_readme_commands_match_makefile_and_ci():
    readme = (ROOT / "README.md").read_text()
    setup = re.search(r"```(?:bash|sh)\n(.*?)```", readme, re.S).group(1)
    commands = [ln for ln in setup.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert commands == ["make run", "make test"], commands
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^run:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci
    # the browser test runs in CI: Chromium from apt, Playwright from the browser extra
    assert re.search(r"apt-get install -y\b.*\bchromium", ci) and ".[browser]" in ci
    assert "browser" in PYPROJECT["project"]["optional-dependencies"]


def test_test_files_have_unique_names():
    # tests/ has no __init__.py files: pytest imports each test file by its base name, so two
    # files of one name in different folders stop the whole collection
    import collections
    import pathlib
    names = collections.Counter(p.name for p in pathlib.Path(__file__).parent.rglob("*.py")
                                if p.name != "conftest.py")
    assert not [n for n, k in names.items() if k > 1], names.most_common(3)


def test_readme_tours_every_notebook():
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    missing = [p.name for p in sorted((root / "notebooks").glob("*.ipynb")) if f"notebooks/{p.name}" not in readme]
    assert not missing, f"the README's tour leaves out {missing}"


def test_no_undefined_names_in_the_package():
    """Code that only runs on a GPU is never executed by the tests here: a name that no longer
    exists (a helper renamed in one place) would only fail on a GPU. pyflakes reads every
    module without running it."""
    pytest.importorskip("pyflakes")
    from pyflakes import api, messages, reporter

    class Collect(reporter.Reporter):
        def __init__(self):
            super().__init__(None, None)
            self.found = []

        def flake(self, message):
            if isinstance(message, (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport)):
                self.found.append(str(message))

        def syntaxError(self, filename, msg, lineno, offset, text):
            self.found.append(f"{filename}:{lineno}: {msg}")

        def unexpectedError(self, filename, msg):
            self.found.append(f"{filename}: {msg}")
    r = Collect()
    api.checkRecursive([str(ROOT / "gpualgo"), str(ROOT / "tests")], r)
    assert not r.found, "\n".join(r.found)


#: the floors of gpualgo/README.md: imports only go down; a problem package imports no other
#: problem package, and floors 3 and 4 only from its bench.py
FLOORS = {"timing": 1, "guards": 1, "gpu": 1, "hostcopy": 1, "result": 1, "variants": 1, "peers": 1, "findings": 1, "cluster": 1, "textfile": 1,
          "assignment": 2, "maxflow": 2, "tsp": 2, "coalitions": 2,
          "results": 3, "bench": 3, "plots": 3, "exercises": 3, "limits": 3,
          "nbtools": 4, "run_notebooks": 4, "glance": 4}
PROBLEMS = ("assignment", "maxflow", "tsp", "coalitions")
PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "gpualgo"


def _package_imports(path):
    """``(line, module, names)`` for each import of a gpualgo module in ``path`` (at any depth
    of the file; relative imports resolved; ``names``: what a ``from`` import takes, else [])."""
    import ast
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name, []) for a in node.names if a.name.startswith("gpualgo"))
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            if mod.startswith("gpualgo"):
                yield node.lineno, mod, [a.name for a in node.names]


def test_imports_follow_the_floors_of_the_architecture_document():
    assert set(FLOORS) == {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file() and p.name != "kernels"
    }, "a module without a floor"   # kernels/: the .cu sources, no Python
    text = (PACKAGE / "README.md").read_text()
    assert all(f"`{m}.py`" in text or f"`{m}/`" in text for m in FLOORS), "the architecture document names every module"
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if path.name == "__init__.py":
            parts = parts[:-1]
        if len(parts) < 2 or parts[1] == "kernels":
            continue
        top, floor = parts[1], FLOORS[parts[1]]
        own_bench = top in PROBLEMS and path.name == "bench.py"
        imported = {m for _, mod, names in _package_imports(path)
                    for m in [mod] + [f"{mod}.{n}" for n in names]}   # "from . import bench" names a module
        for mod in sorted(imported):
            names = mod.split(".")
            if len(names) < 2 or names[1] not in FLOORS:
                continue
            other = names[1]
            if top in PROBLEMS and other in PROBLEMS and other != top:
                wrong.append(f"{path.relative_to(PACKAGE.parent)} imports the problem {mod}")
            elif top in PROBLEMS and other == top and names[-1] == "bench" and not own_bench:
                wrong.append(f"{path.relative_to(PACKAGE.parent)} imports its problem's bench.py (floor 3)")
            elif FLOORS[other] > floor and not (own_bench and FLOORS[other] == 3):
                wrong.append(f"{path.relative_to(PACKAGE.parent)} (floor {floor}) imports {mod} (floor {FLOORS[other]})")
    assert not wrong, "\n".join(sorted(wrong))


def test_every_name_imported_from_the_package_exists():
    """pyflakes does not see that ``from .gpu import _helper`` names something that is gone: in
    a function that runs only on a GPU (or a cluster) that fails only there. Every ``from
    gpualgo... import name``, at any depth of a file, must name an attribute or a submodule."""
    import importlib
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, mod, names in _package_imports(path):
            module = importlib.import_module(mod)
            for name in names:
                if name != "*" and not hasattr(module, name):
                    try:
                        importlib.import_module(f"{mod}.{name}")
                    except ImportError:
                        missing.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {mod} has no {name}")
    assert not missing, "\n".join(missing)


def test_every_problem_has_sanitizer_cases():
    # each problem (a package with a solve.py) runs every kernel under compute-sanitizer from the
    # GPU tests: tests/<problem>/<problem>_sanitizer_cases.py through tests/sanitize.py
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    problems = sorted(p.parent.name for p in (root / "gpualgo").glob("*/solve.py"))
    assert len(problems) >= 4, problems
    missing = [p for p in problems if not (root / "tests" / p / f"{p}_sanitizer_cases.py").exists()]
    assert not missing, missing
    callers = [p for p in problems if any(f'"{p}_sanitizer_cases.py"' in t.read_text()
                                          for t in (root / "tests" / p).glob("test_*.py"))]
    assert callers == problems
