"""Benchmark results on disk: rows as CSV, and beside them a JSON file of metadata.

Every recorded result says where and how it was measured: the GPU (name, SMs,
memory, driver, CUDA, CuPy), the versions of the packages, the date, the command
line, the parameters and the seeds.  Notebooks on a machine without a GPU read these
files and say which GPU recorded them.
"""
from __future__ import annotations

import csv
import datetime as _dt
import importlib.metadata
import json
import os
import pathlib
import platform
import sys
from dataclasses import dataclass, field

from . import gpu

__all__ = ["RESULTS_DIR", "Recorded", "write", "read", "read_folder", "rename", "metadata", "package_versions", "code_version"]

#: where the results recorded on real GPUs live (``data/results/<algo>/<preset>.csv``)
RESULTS_DIR = pathlib.Path(os.environ.get(
    "GPUALGO_RESULTS", pathlib.Path(__file__).resolve().parent.parent / "data" / "results"))

_PACKAGES = ("gpualgo", "numpy", "scipy", "numba", "cupy-cuda12x", "cupy-cuda13x", "networkx",
             "lap", "ortools", "igraph", "python-tsp", "matplotlib")


def package_versions() -> dict:
    """Versions of the packages that matter for a measurement (those installed)."""
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    if "cupy-cuda12x" not in out and "cupy-cuda13x" not in out and gpu.available():
        out["cupy"] = gpu.require().__version__
    return out


def _command_line() -> str:
    """The command line as typed: ``python3 -m gpualgo.bench ...`` rather than the module's path."""
    argv = list(sys.argv)
    here = pathlib.Path(__file__).resolve().parent
    if argv and argv[0].endswith(".py") and pathlib.Path(argv[0]).resolve().parent == here:
        argv[0] = f"-m gpualgo.{pathlib.Path(argv[0]).stem}"
    return " ".join([os.path.basename(sys.executable)] + argv)


def code_version() -> dict:
    """The code that measured: ``{"commit": hash or None, "dirty": bool or None}``.

    From git where the package sits in a checkout; else from the environment variables
    ``GPUALGO_COMMIT`` and ``GPUALGO_DIRTY`` (``1``/``0``), for a copy of the tree without its
    history (set them from the checkout the copy was made from).
    """
    import subprocess
    root = pathlib.Path(__file__).resolve().parent.parent
    commit, dirty = os.environ.get("GPUALGO_COMMIT"), os.environ.get("GPUALGO_DIRTY")
    if commit:
        return {"commit": commit, "dirty": None if dirty is None else dirty not in ("0", "", "false", "False")}
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10, check=True).stdout.strip()
        # the recorded results are not code: a sweep rewriting its own file leaves the code clean
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
                                 ".", ":(exclude)data/results"],
                                capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit or None, "dirty": bool(status.strip())}


def metadata(params: dict, seeds=None, command: str | None = None) -> dict:
    """The metadata block stored beside every result file."""
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "code": code_version(),
        "device": gpu.describe(),
        "packages": package_versions(),
        "host": {"machine": platform.machine(), "system": platform.system(), "cpus": os.cpu_count(),
                 "cpu": gpu.cpu_model()},
        "command": command if command is not None else _command_line(),
        "params": params,
        "seeds": seeds,
    }


def write(out_dir, name: str, rows: list[dict], params: dict, seeds=None, command: str | None = None,
          progress: dict | None = None, extra: dict | None = None) -> pathlib.Path:
    """Write ``rows`` to ``out_dir/name.csv`` and the metadata to ``out_dir/name.json``.

    Parameters
    ----------
    out_dir: folder, created if missing.
    name: file stem (usually the preset name).
    rows: flat dicts of str / int / float / bool; the columns are the union of their keys.
    params, seeds: what produced the rows (stored in the metadata).
    progress: for a sweep written as it goes, ``{"cases_done", "cases", "complete"}``.
    extra: more metadata (a sweep's ``cases_recorded``; the ``cluster`` that measured it).

    Returns the CSV path.
    """
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    csv_path = out / f"{name}.csv"
    with open(csv_path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)
    meta = metadata(params, seeds, command)
    meta["rows"] = len(rows)
    if progress is not None:
        meta["progress"] = progress
    meta.update(extra or {})
    (out / f"{name}.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    return csv_path


def rename(folder, old: str, new: str) -> pathlib.Path:
    """Rename the result ``old`` (``old.csv`` and ``old.json``) in ``folder`` to ``new``,
    replacing what was there; return the new CSV path."""
    folder = pathlib.Path(folder)
    for ext in (".csv", ".json"):
        src = folder / f"{old}{ext}"
        if src.exists():
            src.replace(folder / f"{new}{ext}")
    return folder / f"{new}.csv"


def _parse(text: str):
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


@dataclass
class Recorded:
    """Rows read back from a result file, with their metadata."""
    rows: list[dict]
    meta: dict = field(default_factory=dict)
    path: pathlib.Path | None = None

    def source(self) -> str:
        """One line: which device recorded these rows, when, at which commit, and with which command."""
        dev = self.meta.get("device", {})
        where = dev.get("gpu") or "a machine without GPU"
        extra = []
        if dev.get("sms"):
            extra.append(f"{dev['sms']} SMs")
        if dev.get("driver"):
            extra.append(f"driver {dev['driver']}")
        if dev.get("cuda_runtime"):
            extra.append(f"CUDA {dev['cuda_runtime']}")
        if dev.get("cupy"):
            extra.append(f"CuPy {dev['cupy']}")
        date = str(self.meta.get("date", "?"))[:10]
        detail = f" ({', '.join(extra)})" if extra else ""
        prog = self.meta.get("progress") or {}
        if prog and not prog.get("complete"):
            detail += f" [partial: {prog['cases_done']} of {prog['cases']} cases]"
        parts = self.meta.get("parts") or []
        if len(parts) > 1:  # one sweep recorded in several runs
            how = f"in {len(parts)} runs, by " + " and ".join(f"`{q.get('command', '?')}`" for q in parts)
        else:
            how = f"by `{self.meta.get('command', '?')}`"
        commit = str((self.meta.get("code") or {}).get("commit") or "")[:7]
        at = f" at commit {commit}" if commit else ""
        return f"recorded on {where}{detail} on {date}{at} {how} [{self.path}]"


def read(where, name: str) -> Recorded:
    """Read ``name.csv`` (and ``name.json``) from a folder, or from ``RESULTS_DIR/<where>``.

    ``where`` is a folder path or an algorithm name such as ``"auction"``.
    Numbers come back as int / float, empty cells as None.
    Raises FileNotFoundError when no such result was recorded.
    """
    folder = pathlib.Path(where)
    if not folder.is_dir():
        folder = RESULTS_DIR / str(where)
    return read_folder(folder, name)


def read_folder(folder, name: str) -> Recorded:
    """:func:`read` from this folder only (a sweep's ``--out``: never the project's own records).
    Raises FileNotFoundError when it holds no ``name.csv``, and ValueError naming the file when
    that file or ``name.json`` cannot be read as a results file."""
    folder = pathlib.Path(folder)
    csv_path = folder / f"{name}.csv"
    if not csv_path.is_file():
        raise FileNotFoundError(f"no recorded results {csv_path}")
    meta_path = folder / f"{name}.json"
    try:
        with open(csv_path, newline="", encoding="utf-8") as fh:
            rows = [{k: _parse(v) for k, v in row.items()} for row in csv.DictReader(fh)]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{csv_path}: not a results file ({exc})") from None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{meta_path}: not a results file ({exc})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{meta_path}: not a results file (its JSON is not an object)")
    return Recorded(rows, meta, csv_path)

