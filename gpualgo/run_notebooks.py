"""Execute every notebook headless: ``python -m gpualgo.run_notebooks [--quick] [--out build]``.

For each ``notebooks/*.ipynb``, then each exercise notebook ``notebooks/exercises/*.ipynb``
(with ``solutions=True``: the suite's own code fills in every exercise, so each check runs end
to end on a GPU and compiles without one), it runs papermill with ``interactive=False`` (and
``quick=True`` with ``--quick``), writes the executed copy to ``OUT/notebooks/``, saves
every figure it drew as ``OUT/figures/<notebook>/fig-NN.png``, writes a readable copy as
``OUT/html/<notebook>.html`` (figures embedded) and ``OUT/html/index.html`` linking them
with the summary table.  It prints one line per notebook and a summary.  Extra papermill parameters: ``-p NAME VALUE`` (repeatable);
a name that none of the notebooks' ``parameters`` cells declares, or a value of another type than
the cell declares (``n: int = 1108``), is refused before anything runs (exit status 2).
``--hide-peers`` runs the kernels as if the optional CPU peers (``gpualgo.peers``) were
not installed, which is how the tests prove that a missing peer never stops a notebook.
``--cluster local|ADDR`` runs the notebooks in parallel, one per worker of a Dask cluster
(:mod:`gpualgo.cluster`: ``local`` is one worker per GPU here, or CPU workers without a GPU;
the workers of a remote cluster must see the same files), with the same lines (in the
notebooks' order), summary, HTML copies and exit status.
Exit status 1 when a notebook failed.
"""
from __future__ import annotations

import argparse
import ast
import base64
import contextlib
import datetime
import html
import json
import os
import pathlib
import sys
import tempfile
import time

from . import gpu, nbtools, peers

__all__ = ["default_notebooks", "declared_parameters", "check_parameters", "parameters_for", "execute", "execute_on_cluster", "hidden_peers", "save_figures",
           "write_html", "write_index", "main"]


def save_figures(executed: pathlib.Path, fig_dir: pathlib.Path) -> int:
    """Write the PNG outputs of an executed notebook to ``fig_dir``; return how many."""
    nb = json.loads(executed.read_text())
    fig_dir.mkdir(parents=True, exist_ok=True)
    for old in fig_dir.glob("fig-*.png"):
        old.unlink()
    count = 0
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            png = out.get("data", {}).get("image/png")
            if png:
                count += 1
                data = "".join(png) if isinstance(png, list) else png
                (fig_dir / f"fig-{count:02d}.png").write_bytes(base64.b64decode(data))
    return count


_HIDE_PEERS = '''"""Written by gpualgo.run_notebooks --hide-peers: the optional peers look uninstalled."""
import sys


class _HiddenPeers:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {names!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (hidden by --hide-peers)", name=name)
        return None


sys.meta_path.insert(0, _HiddenPeers())
'''


@contextlib.contextmanager
def hidden_peers():
    """Kernels started inside this block cannot import the optional peers.

    A ``sitecustomize.py`` put first on ``PYTHONPATH`` (which the kernel process inherits)
    makes importing any top-level package of :data:`gpualgo.peers.PEERS` raise
    ModuleNotFoundError, as if it were not installed.  This process is not affected.
    """
    names = sorted({module.partition(".")[0] for module, _, _ in peers.PEERS.values()})
    old = os.environ.get("PYTHONPATH")
    with tempfile.TemporaryDirectory(prefix="gpualgo-nopeers-") as tmp:
        pathlib.Path(tmp, "sitecustomize.py").write_text(_HIDE_PEERS.format(names=names))
        os.environ["PYTHONPATH"] = os.pathsep.join([tmp] + ([old] if old else []))
        try:
            yield names
        finally:
            if old is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = old


#: the kernel's own log shows errors only: its start-up warning about unencrypted local TCP
#: sockets says nothing about the notebook (everything a cell prints goes to the notebook)
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=ERROR"]


@contextlib.contextmanager
def _stderr_to(path: pathlib.Path):
    """Send this process's standard error, and so that of the kernels it starts, to ``path``
    (the kernel's own log lines, such as its note on the interrupt papermill sends when it
    shuts the kernel down, are not the runner's news; a failure is reported on its line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "wb") as fh:
        os.dup2(fh.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def execute(nb_path: pathlib.Path, out: pathlib.Path, parameters: dict, kernel: str = "python3",
            hide_peers: bool = False) -> dict:
    """Run one notebook with papermill; return a summary row (name, ok, seconds, figures, error).

    ``hide_peers``: run it as if no optional peer were installed (see :func:`hidden_peers`).
    What the kernel writes to its standard error goes to ``out/logs/<notebook>.log``.
    """
    import papermill

    executed = out / "notebooks" / nb_path.name
    executed.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    row = {"notebook": nb_path.name, "source": str(nb_path), "ok": True, "error": "",
           "log": str(out / "logs" / (nb_path.stem + ".log"))}
    try:
        with hidden_peers() if hide_peers else contextlib.nullcontext(), _stderr_to(pathlib.Path(row["log"])):
            papermill.execute_notebook(str(nb_path), str(executed), parameters=parameters, kernel_name=kernel,
                                       language="python", cwd=str(nb_path.parent), progress_bar=False,
                                       extra_arguments=KERNEL_ARGUMENTS)
    except Exception as exc:  # papermill raises PapermillExecutionError with the cell's traceback
        row["ok"] = False
        row["error"] = (str(exc).strip().splitlines() or [type(exc).__name__])[-1][:160]
    row["seconds"] = time.perf_counter() - t0
    row["figures"] = save_figures(executed, out / "figures" / nb_path.stem) if executed.exists() else 0
    row["executed"] = str(executed)
    return row


def _execute_task(item) -> dict:
    """One notebook as a task of a cluster: :func:`execute`, then where it ran."""
    from .cluster import where
    nb_path, out, parameters, hide_peers = item
    row = execute(pathlib.Path(nb_path), pathlib.Path(out), parameters, hide_peers=hide_peers)
    row.update(where())
    return row


def execute_on_cluster(paths, out: pathlib.Path, parameters: dict, cluster="local", hide_peers: bool = False,
                       on_done=None) -> list:
    """:func:`execute` for every notebook of ``paths``, each a task of a Dask cluster
    (``cluster``: see :func:`gpualgo.cluster.client`); their rows in the order of ``paths``.
    ``on_done(index, row)`` is called as each one finishes. Paths are made absolute: the
    workers of a remote cluster must see the same files."""
    from . import cluster as _cluster
    items = [(str(pathlib.Path(p).resolve()), str(pathlib.Path(out).resolve()),
              parameters_for(pathlib.Path(p), parameters), hide_peers) for p in paths]
    with _cluster.session(cluster) as c:
        return _cluster.run_tasks(c, _execute_task, items, on_done=on_done, name="notebook")


def write_html(executed: pathlib.Path, html_dir: pathlib.Path) -> pathlib.Path:
    """Write ``html_dir/<notebook>.html``: the executed notebook, figures embedded, for reading."""
    from nbconvert import HTMLExporter

    html_dir.mkdir(parents=True, exist_ok=True)
    body, _ = HTMLExporter(template_name="lab").from_filename(str(executed))
    target = html_dir / (executed.stem + ".html")
    target.write_text(body, encoding="utf-8")
    return target


def _title(nb_path: pathlib.Path) -> str:
    """The notebook's first Markdown heading, or its file name."""
    try:
        for cell in json.loads(nb_path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                first = "".join(cell["source"]).strip().splitlines()[0]
                return first.lstrip("#").strip() or nb_path.stem
    except (OSError, ValueError, KeyError, IndexError):
        pass
    return nb_path.stem


def write_index(rows: list, html_dir: pathlib.Path, header: str) -> pathlib.Path:
    """Write ``html_dir/index.html``: a link to each notebook's HTML copy and the summary table."""
    html_dir.mkdir(parents=True, exist_ok=True)
    lines = []
    for r in rows:
        name = html.escape(r["notebook"])
        link = r.get("html")
        title = html.escape(_title(pathlib.Path(r["source"])))
        cell = f'<a href="{html.escape(pathlib.Path(link).name)}">{title}</a>' if link else title
        status = "ok" if r["ok"] else "FAILED"
        lines.append(f"<tr><td>{cell}<br><code>{name}</code></td><td class='{status}'>{status}</td>"
                     f"<td>{r['seconds']:.1f} s</td><td>{r['figures']}</td><td>{html.escape(r['error'])}</td></tr>")
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>gpualgo notebooks</title>
<style>
body {{ font-family: sans-serif; max-width: 60em; margin: 2em auto; line-height: 1.4; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ border-bottom: 1px solid #ccc; padding: .4em .6em; text-align: left; vertical-align: top; }}
td.ok {{ color: #176617; }} td.FAILED {{ color: #b00020; font-weight: bold; }}
</style></head>
<body>
<h1>gpualgo notebooks</h1>
<p>{html.escape(header)}</p>
<p>Executed on {when}. Each link opens the executed notebook with its figures.</p>
<table>
<tr><th>notebook</th><th>status</th><th>time</th><th>figures</th><th>error</th></tr>
{chr(10).join(lines)}
</table>
</body></html>
"""
    target = html_dir / "index.html"
    target.write_text(page, encoding="utf-8")
    return target


def _status(row: dict) -> str:
    """The rest of a notebook's line in the summary: status, time, figures, first error line
    (and, for a failure, where the kernel's log is)."""
    text = f"{'ok' if row['ok'] else 'FAILED':6} {row['seconds']:7.1f} s {row['figures']:4d} figures"
    if row["error"]:
        text += f"  {row['error']}" + (f" (kernel log: {row['log']})" if row.get("log") else "")
    return text


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def declared_parameters(nb_path: pathlib.Path) -> dict:
    """``{name: type name}`` of the notebook's cell tagged ``parameters``: each annotated
    assignment's annotation (``n: int = 1108``), or a plain assignment's literal's type; None
    where neither says."""
    nb = json.loads(pathlib.Path(nb_path).read_text())
    found: dict = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code" or "parameters" not in cell.get("metadata", {}).get("tags", []):
            continue
        source = cell.get("source", "")
        for node in ast.parse("".join(source) if isinstance(source, list) else source).body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found[node.target.id] = ast.unparse(node.annotation)
            elif isinstance(node, ast.Assign):
                try:
                    kind = type(ast.literal_eval(node.value)).__name__
                except ValueError:
                    kind = None
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = kind
    return found


def check_parameters(paths, params: dict) -> None:
    """Refuse, before anything runs, a parameter that none of the notebooks takes (a typo would
    otherwise run them all with their defaults) and a value of another type than a notebook
    that takes it declares (an int also does for a float; True and False only for a bool)."""
    declared = {pathlib.Path(p).name: declared_parameters(p) for p in paths}
    for name, value in params.items():
        takers = {nb: kinds[name] for nb, kinds in declared.items() if name in kinds}
        if not takers:
            known = sorted({k for kinds in declared.values() for k in kinds})
            raise ValueError(f"unknown parameter {name!r}: none of these notebooks takes it; they take {known}")
        for nb, kind in takers.items():
            if nbtools.parameter_error(name, kind, value):        # the notebooks' own check's rule
                where = sorted(n for n, k in takers.items() if k == kind)
                raise ValueError(f"parameter {name!r} is declared {kind} in {', '.join(where)}, "
                                 f"got {value!r} ({type(value).__name__})")


def default_notebooks(root: pathlib.Path = pathlib.Path("notebooks")) -> list[pathlib.Path]:
    """The algorithms' notebooks, then the exercise notebooks."""
    return sorted(root.glob("*.ipynb")) + sorted((root / "exercises").glob("*.ipynb"))


def parameters_for(nb_path: pathlib.Path, params: dict) -> dict:
    """An exercise notebook (in a folder named ``exercises``) also gets ``solutions=True``,
    unless the command line set ``solutions`` itself."""
    if nb_path.parent.name == "exercises" and "solutions" not in params:
        return {**params, "solutions": True}
    return params


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpualgo.run_notebooks", description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*",
                    help="notebooks to run (default: notebooks/*.ipynb, then notebooks/exercises/*.ipynb)")
    ap.add_argument("--out", default="build", help="output folder (default build)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, as in the tests")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                    help="a papermill parameter for every notebook")
    ap.add_argument("--hide-peers", action="store_true",
                    help="run as if the optional CPU peers (lap, OR-tools, igraph, python-tsp) were not installed")
    ap.add_argument("--cluster", metavar="local|ADDR",
                    help="run the notebooks in parallel, one per worker of a Dask cluster: 'local' (one worker "
                         "per GPU here; CPU workers without a GPU), 'local-cpu', or a scheduler's address")
    args = ap.parse_args(argv)

    paths = [pathlib.Path(p) for p in args.notebooks] or default_notebooks()
    if not paths:
        print("no notebooks found (run from the repository root)", file=sys.stderr)
        return 1
    params = {"interactive": False}
    if args.quick:
        params["quick"] = True
    given = {k: _literal(v) for k, v in args.parameter}
    params.update(given)
    out = pathlib.Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"error: --out {out} is a file; it must be a folder (created if missing)", file=sys.stderr)
        return 2
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        print(f"error: no such notebook: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        check_parameters(paths, given)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    if gpu.available():
        header = f"GPU: {gpu.describe()['gpu']}: GPU sections run live."
    else:
        header = f"No GPU found ({gpu.unavailable_reason()}): GPU sections plot recorded results."
    print(header)
    def finish(row: dict) -> str:
        note = ""
        if pathlib.Path(row["executed"]).exists():  # a failed run still shows where it stopped
            try:
                row["html"] = str(write_html(pathlib.Path(row["executed"]), out / "html"))
            except Exception as exc:  # nbconvert missing or without its templates: the run goes on
                note = f"  (no HTML copy: {(str(exc).strip().splitlines() or [type(exc).__name__])[0][:120]})"
        return _status(row) + note

    rows = []
    if args.cluster:
        from .cluster import ClusterUnavailableError
        lines: dict = {}

        def done(i: int, row: dict) -> None:   # the lines in the notebooks' order, each once it is due
            lines[i] = f"{paths[i].name:34} " + finish(row)
            while len(rows) < len(paths) and len(rows) in lines:
                print(lines[len(rows)], flush=True)
                rows.append(None)
        try:
            got = execute_on_cluster(paths, out, params, cluster=args.cluster, hide_peers=args.hide_peers,
                                     on_done=done)
        except (ClusterUnavailableError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        rows[:] = got
    else:
        for nb in paths:
            print(f"{nb.name:34}", end=" ", flush=True)  # the name first: the line ends when it is done
            row = execute(nb, out, parameters_for(nb, params), hide_peers=args.hide_peers)
            rows.append(row)
            print(finish(row), flush=True)
    index = write_index(rows, out / "html", header)
    failed = sum(not r["ok"] for r in rows)
    print(f"{len(rows)} notebooks, {len(rows) - failed} ok, {failed} failed in "
          f"{sum(r['seconds'] for r in rows):.0f} s. To read: {index}; executed notebooks: "
          f"{out / 'notebooks'}/, figures: {out / 'figures'}/")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
