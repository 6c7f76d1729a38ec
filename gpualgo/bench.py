"""The experiment sweeps: ``python -m gpualgo.bench ALGO --preset NAME [--out DIR]``.

Each algorithm registers a suite module in :data:`SUITES`; the module defines
``PRESETS``, a dict of :class:`Preset`.  A preset turns its parameters into a list of
:class:`Case`; each case runs one measurement and returns result rows (flat dicts).
The same presets serve three callers: this command line (which records results with
their metadata), the notebooks (live runs on a GPU, or the recorded files without
one, through :func:`live_or_recorded`) and the tests (``quick=True``).

Examples::

    python -m gpualgo.bench --list
    python -m gpualgo.bench auction --preset report --out data/results/auction
    python -m gpualgo.bench auction --preset exact --set sizes=1024,2048 --set reps=2
    python -m gpualgo.bench auction --preset exact --set sizes=8192
    python -m gpualgo.bench tsp --preset cpu --cluster local          # every GPU (or core) here
    python -m gpualgo.bench tsp --preset cpu --scheduler tcp://head:8786

Every override takes the type of the preset's default: one value where the default is a
list is a list of one, and a value of the wrong type is an error naming the parameter.

One layer for every problem: a preset's tiny sizes for CI are data (``Preset.quick``, applied
when ``quick=True``; cases never branch on it), :func:`warm_up` compiles what a case will
time before timing it, and :func:`row` writes every measured result in one schema
(:data:`ROW_COLUMNS`: the case's own columns first, then the variant, the times named as in
:data:`gpualgo.result.TIMES`, the objective, whether it was verified, the device).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import json
import numbers
import os
import pathlib
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from . import gpu, guards, results, textfile
from .cluster import ClusterUnavailableError

__all__ = ["SUITES", "Preset", "Case", "ROW_COLUMNS", "LATER_COLUMNS", "row", "peer_row", "warm_up", "repeat", "REPEAT_BELOW_S",
           "suite", "presets", "run_preset", "check_cases", "live_or_recorded", "content", "compare_sweeps", "SWEEP_GOAL", "main"]

#: algorithm name -> module defining PRESETS
SUITES = {
    "auction": "gpualgo.assignment.auction.bench",
    "tsp": "gpualgo.tsp.bench",
    "maxflow": "gpualgo.maxflow.bench",
    "dgs": "gpualgo.assignment.dgs.bench",
    "coalitions": "gpualgo.coalitions.bench",
}


@dataclass
class Case:
    """One measurement: ``run()`` returns result rows.

    ``check``: a cheap call that raises the ValueError ``run`` would raise for a size it
    refuses, without generating the instance or allocating anything large: it calls the
    same guards and estimates the case's generators and solvers call (their ``check_*``
    functions), with the same ``force`` the case passes them. :func:`run_preset` calls the
    check of every case before it runs the first one, so that a sweep with one absurd size
    stops at once instead of after the cases before it. A check needs no GPU, so it covers
    what can be known without one: the host memory of the instance and of the solvers'
    host arrays, the estimated time where a solver has a time guard, and the generators'
    and solvers' own size limits; the GPU memory a case needs is still refused where the
    case asks for it (knowing the free GPU memory takes a GPU). None: nothing to check.
    """
    label: str
    run: Callable[[], list]
    check: Callable[[], None] | None = None


@dataclass
class Preset:
    """A named sweep: default ``params`` (overridable), ``cases(params)``, and ``quick``: the
    parameter values that replace the defaults when the sweep runs with ``quick=True`` (tiny
    sizes for CI and headless notebooks; an explicit override still wins)."""
    description: str
    params: dict
    cases: Callable[[dict], Iterable[Case]]
    needs_gpu: bool = True
    seeds: list = field(default_factory=list)
    quick: dict = field(default_factory=dict)

    def __post_init__(self):
        unknown = set(self.quick) - set(self.params)
        if unknown:
            raise ValueError(f"quick values for unknown parameter(s) {sorted(unknown)}")


#: the columns every result row has, after the case's own (see :func:`row`)
ROW_COLUMNS = ("variant", "rep", "total_ms", "prepare_ms", "check_ms", "exec_ms", "kernel_ms", "objective",
               "verified", "device")
#: columns of :data:`ROW_COLUMNS` added after some of the recorded files were made: a record
#: without one was made before it (``check_ms``: before a solve's time counted its own checks of
#: the input)
LATER_COLUMNS = ("check_ms",)


def row(result, rep: int = 0, verified=None, **fields) -> dict:
    """One result row: the case's ``fields`` (sizes, family, seed...), then :data:`ROW_COLUMNS`
    taken from ``result`` (any problem's result: see :mod:`gpualgo.result`), then nothing else:
    a problem adds its own counters to the returned dict.

    ``verified``: True when the result was checked against an independent reference or
    certificate in this run (never against another run of the same code), None when it
    was not checked. A row of something computed, not run (what a GPU could hold), has no
    ``total_ms`` in its stats, and None in the row.
    """
    s = result.stats
    out = dict(fields)
    out.update(variant=result.variant, rep=rep, total_ms=_ms(s.get("total_ms")),
               prepare_ms=_ms(s.get("prepare_ms")), check_ms=_ms(s.get("check_ms")), exec_ms=_ms(s.get("exec_ms")),
               kernel_ms=_ms(s.get("kernel_ms")),
               objective=_plain(result.objective), verified=verified, device=s.get("device"))
    return out


def peer_row(name: str, objective, total_ms: float, rep: int = 0, verified=None, device: str = "",
             prepare_ms: float | None = None, **fields) -> dict:
    """A row of a CPU peer (scipy, lap, OR-tools...) in the same schema as :func:`row`: the
    peer's whole call is ``total_ms``; ``prepare_ms``, where the caller timed it apart,
    is building the peer's own input (its graph), and ``exec_ms`` is the rest."""
    from .gpu import cpu_label
    out = dict(fields)
    exec_ms = float(total_ms) - (prepare_ms or 0.0)
    out.update(variant=name, rep=rep, total_ms=float(total_ms), prepare_ms=_ms(prepare_ms), check_ms=None, exec_ms=exec_ms,
               kernel_ms=None, objective=_plain(objective), verified=verified, device=device or cpu_label(engine=name))
    return out


def _ms(v):
    return None if v is None else float(v)


def _plain(v):
    """numpy scalars as Python numbers (CSV and JSON write them plainly)."""
    return v.item() if hasattr(v, "item") else v


#: a baseline (a serial version, a CPU peer) that takes less than this is run at least
#: :data:`REPEAT_MIN` times, so that no ratio rests on one run of it
REPEAT_BELOW_S = 60.0
REPEAT_MIN = 3


def repeat(fn, *args, reps: int = REPEAT_MIN, below_s: float = REPEAT_BELOW_S, **kwargs) -> list:
    """Call ``fn(*args, **kwargs)`` and time it; while each call takes less than ``below_s``
    seconds, call it again until ``reps`` calls are done. Returns ``[(result, ms), ...]``:
    one run only when the first took ``below_s`` or more (the figures then say "1 run").

    >>> len(repeat(sum, [1, 2])), repeat(sum, [1, 2])[0][0]
    (3, 3)
    """
    from .timing import timed
    runs = [timed(fn, *args, **kwargs)]
    while len(runs) < reps and runs[0][1] < below_s * 1e3:
        runs.append(timed(fn, *args, **kwargs))
    return runs


def warm_up(solve, tiny, variants, **options) -> None:
    """Run each of ``variants`` once on the ``tiny`` instance, untimed, so that what a first
    call of a process pays is not counted in the timed runs that follow: the numba and NVRTC
    compilation, and, when a GPU version is among them, the page-locked staging buffers of large
    uploads (:func:`gpualgo.gpu.warm_uploads`), which a tiny instance does not allocate.

    ``solve`` is the problem's solve (``functools.partial`` for extra arguments); ``options``
    are those of the timed runs where they select what is compiled (a tile width, a block
    size). GPU versions are skipped when there is no GPU.
    """
    on_gpu = False
    for v in variants:
        if v.startswith("gpu"):
            if not gpu.available():
                continue
            on_gpu = True
        solve(tiny, variant=v, **options)
    if on_gpu:
        gpu.warm_uploads()


def suite(algo: str):
    """The suite module of ``algo`` (raises ValueError for an unknown name)."""
    if algo not in SUITES:
        raise ValueError(f"unknown algorithm {algo!r}; known: {sorted(SUITES)}")
    return importlib.import_module(SUITES[algo])


def presets(algo: str) -> dict:
    """``{name: Preset}`` of an algorithm."""
    return suite(algo).PRESETS


def _preset(algo: str, name: str) -> Preset:
    table = presets(algo)
    if name not in table:
        raise ValueError(f"unknown preset {name!r} for {algo}; known: {sorted(table)}")
    return table[name]


_TRUE, _FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}


def _kind(default) -> str:
    """The type name an override must have, read from the preset's default value."""
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, numbers.Integral):
        return "int"
    if isinstance(default, numbers.Real):
        return "float"
    if isinstance(default, str):
        return "str"
    if isinstance(default, (list, tuple)):
        kinds = {_kind(v) for v in default}
        if not kinds:
            return "list"
        if kinds == {"int", "float"}:
            kinds = {"float"}  # [1, 0.5]: a list of numbers
        return f"list of {kinds.pop()}" if len(kinds) == 1 else "list"
    return "any"


def _coerce(name: str, value, kind: str):
    """``value`` converted to ``kind`` (see :func:`_kind`); ValueError naming ``name`` otherwise."""
    def bad():
        return ValueError(f"parameter {name!r} takes {'a list of ' + kind[8:] if kind.startswith('list of ') else kind}"
                          f"{' (one value or several)' if kind.startswith('list') else ''}, "
                          f"got {textfile.quote(value)} ({type(value).__name__})")
    if kind.startswith("list"):
        items = list(value) if isinstance(value, (list, tuple)) else [value]  # one value: a list of one
        if kind == "list":
            return items
        try:
            return [_coerce(name, v, kind[8:]) for v in items]
        except ValueError:
            raise bad() from None
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, numbers.Integral) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise bad()
    if kind == "int":
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer():
            return int(value)  # 1e4 on the command line
        raise bad()
    if kind == "float":
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)  # ints are accepted for floats
        raise bad()
    if kind == "str":
        if isinstance(value, str):
            return value
        raise bad()
    return value


def _params(preset: Preset, overrides: dict) -> dict:
    """The preset's parameters with ``overrides``, each converted to the type of its default.

    A single value where the default is a list becomes a list of one; ints are accepted for
    floats; bools also from ``true/false/yes/no/on/off/1/0``.  Raises ValueError for an
    unknown name or a value of the wrong type, naming the parameter.
    """
    unknown = set(overrides) - set(preset.params) - {"quick"}
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)}; this preset takes {sorted(preset.params)}")
    params = dict(preset.params)
    params.setdefault("quick", False)
    quick = _coerce("quick", overrides.get("quick", params["quick"]), "bool")
    if quick:
        params.update(preset.quick)
    for name, value in overrides.items():
        params[name] = _coerce(name, value, _kind(params[name]))
    _check_counts(params, preset.params)
    return params


#: parameters that count repetitions: at least 1
COUNTS = ("reps", "instances")
#: the most timed runs of one measurement (``reps``, ``*_reps``): the presets take 2 to 20, and
#: a median of 1000 runs is already as steady as timings get; more only makes a sweep endless
MAX_REPS = 1000


def _check_counts(params: dict, defaults: dict) -> None:
    """Refuse, naming the parameter, a count below 1 (``reps``, ``instances``, ``*_reps``), a
    repetition count above :data:`MAX_REPS` (``reps``, ``*_reps``), and a negative integer where
    the preset's default is not negative (sizes, seeds, limits)."""
    for name, value in params.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        ints = [v for v in values if isinstance(v, numbers.Integral) and not isinstance(v, bool)]
        if name in COUNTS or name.endswith("_reps"):
            most = None if name == "instances" else MAX_REPS
            for v in ints:
                guards.integer(v, f"parameter {name!r} counts runs: it", lo=1, hi=most)
            continue
        default = defaults.get(name)
        dvals = default if isinstance(default, (list, tuple)) else [default]
        if all(isinstance(d, numbers.Real) and not isinstance(d, bool) and d >= 0 for d in dvals if d is not None) \
                and any(v < 0 for v in ints):
            raise ValueError(f"parameter {name!r} must not be negative, got {value!r}")


def run_preset(algo: str, preset: str, out=None, progress: bool = True, replace: bool = False,
               cluster=None, **overrides) -> list[dict]:
    """Run every case of a preset and return the rows; write them to ``out`` if given.

    ``overrides`` replace the preset's parameters (``quick=True`` for tiny sizes).
    With ``out``, the file is rewritten after every finished case (with the cases it holds,
    ``cases_recorded`` in its metadata), so an interrupted sweep keeps what it measured, and
    a rerun with the same parameters over an unfinished file runs only the cases it lacks.
    A finished results file already in ``out`` with more rows than this run wrote is kept,
    and this run's rows go to ``<preset>.new.csv`` beside it, unless ``replace=True`` (which
    also measures every case again).

    ``cluster``: run the cases as tasks of a Dask cluster (:mod:`gpualgo.cluster`: ``"local"``,
    a scheduler's address, or a client), one case per worker at a time. The rows come back in
    the preset's order, the same as a sequential run's but for the times and the two columns
    :data:`gpualgo.cluster.WORKER_COLUMNS` naming the host and GPU each case ran on; the
    metadata describes the cluster.

    Before the first case runs, :func:`check_cases` calls the ``check`` of every case that
    will run (:class:`Case`; on a resumed file, the cases it lacks): a size that a case's
    generator or solver would refuse stops the sweep at once, naming the case, before
    anything is measured or written. On a cluster the checks run as one task on a worker,
    whose host memory is the one the cases will use.

    Raises ValueError for a bad parameter, an ``out`` that is a file, a preset that yields
    no case, or a case whose check refuses it; GPUUnavailableError when the preset needs a
    GPU and none is present (on a cluster: no worker has one).
    """
    p = _preset(algo, preset)
    params = _params(p, overrides)  # a bad parameter is reported before anything else
    if out is not None:
        _usable_out(pathlib.Path(out), preset)
    if cluster is not None:
        from . import cluster as _cluster
        _cluster.require()
    sweep = _sweep_name(algo, preset, params, overrides)
    # each case is checked as it comes (a huge range stops at its first refusal, before the rest
    # is even listed), but for those an unfinished file of this sweep has recorded already
    earlier = _earlier_record(out, preset) if out is not None and not replace else None
    resumable = _resumable(earlier.meta, params) if earlier is not None else None
    recorded = {e[0]: e[1] for e in resumable or [] if isinstance(e, list) and len(e) == 3}
    cases, skipped = [], []
    for case in p.cases(params):
        if cluster is None:
            if recorded.get(len(cases)) == case.label:
                skipped.append(len(cases))
            else:
                check_cases([case], sweep)   # needs no GPU: refused here, with or without one
        cases.append(case)
    if not cases:
        raise ValueError(f"{algo}/{preset} with these parameters has nothing to measure (no case)")
    name, kept, done, resumed_from = _earlier_file(earlier, preset, params, cases)
    todo = [i for i in range(len(cases)) if i not in done]
    if cluster is None:
        check_cases([cases[i] for i in skipped if i not in done], sweep)
        if p.needs_gpu:
            gpu.require()
    if resumed_from is not None and progress:
        print(f"{algo}/{preset}: {len(done)} of {len(cases)} cases already in {resumed_from}; "
              "running the others (--replace measures them all again)")
    seeds = p.seeds or params.get("seeds") or ([params["seed"]] if "seed" in params else None)
    extra: dict = {}
    earlier_parts = _parts_of(resumed_from, done, cases) if resumed_from is not None else []
    started = time.perf_counter()
    path = pathlib.Path(out) / f"{name}.csv" if out is not None else None
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(cases), initial=len(done), desc=f"{algo}/{preset}", unit="case")

    ran_here: set = set()

    def finished(i: int, rows: list) -> None:
        nonlocal path
        done[i] = rows
        ran_here.add(i)
        if bar is not None:
            bar.update(1)
        if out is not None:  # rewritten after every case: an interrupted sweep keeps what it measured
            order = sorted(done)
            extra["cases_recorded"] = [[j, cases[j].label, len(done[j])] for j in order]
            extra["wall_s"] = round(time.perf_counter() - started, 3)   # this run's cases so far
            if earlier_parts:     # a resumed file: each run that measured its cases, as a part
                mine = [j for j in order if j in ran_here]
                this = {k: v for k, v in results.metadata(params, seeds).items()
                        if k in ("date", "command", "code", "params")}
                extra["parts"] = earlier_parts + [dict(this, cases=[cases[j].label for j in mine],
                                                       rows=sum(len(done[j]) for j in mine),
                                                       progress={"cases_done": len(mine), "cases": len(cases),
                                                                 "resumed": True})]
            path = results.write(out, name, [r for j in order for r in done[j]], params, seeds=seeds,
                                 progress={"cases_done": len(done), "cases": len(cases),
                                           "complete": len(done) == len(cases)}, extra=extra)

    try:
        if cluster is None:
            for i in todo:
                if bar is not None:
                    bar.set_postfix_str(cases[i].label[:40])
                finished(i, cases[i].run())
        elif todo:
            _run_on_cluster(cluster, f"{algo}/{preset}", p.needs_gpu, [cases[i] for i in todo], sweep,
                            lambda k, rows: finished(todo[k], rows), extra)
    finally:
        if bar is not None:
            bar.close()
    rows = [r for i in sorted(done) for r in done[i]]
    if out is not None:
        if name != preset and len(rows) >= kept:
            path = results.rename(out, name, preset)
        _say_written(f"{algo}/{preset}", out, preset, path, len(rows), len(cases), kept, bool(todo))
    return rows


def _usable_out(out: pathlib.Path, preset: str) -> None:
    """Refuse, before any case runs, an ``--out`` where the results could not be written: a
    file, a path through a file, a folder that could not be made or written in, or a results
    file's name taken by a folder. Nothing is made here (a refused sweep leaves no folder)."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; it must be a folder (created if missing)")
    there = out.absolute()
    while not there.exists():             # the nearest part of the path that exists
        there = there.parent
    if not there.is_dir():
        raise ValueError(f"--out {out}: cannot make this folder ({there} is a file)")
    if not os.access(there, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: cannot write in {there}")
    for suffix in (".csv", ".json", ".new.csv", ".new.json"):
        if (out / f"{preset}{suffix}").is_dir():
            raise ValueError(f"--out {out}: {preset}{suffix} there is a folder, where the results file goes")


def _earlier_record(out, preset: str):
    """The results file of the preset in ``out`` (only there: a missing folder is not the
    project's records), or None; ValueError naming it when it cannot be read."""
    try:
        return results.read_folder(out, preset)
    except FileNotFoundError:
        return None


def _earlier_file(rec, preset: str, params: dict, cases: list):
    """What an earlier results file of the preset (``rec``, or None) means for this run: ``(name,
    kept, done, resumed_from)``. An unfinished file of the same parameters is resumed
    (``done``: its rows by case index; ``resumed_from``: its path); any other file with rows is
    kept, and this run writes ``<preset>.new`` (``name``), renamed over it at the end only if
    it holds as many rows (``kept``: the earlier file's row count)."""
    if rec is None:
        return preset, 0, {}, None
    kept = len(rec.rows)
    prior = _recorded_cases(rec, params, cases) if kept else None
    if prior is not None:
        return preset, kept, dict(prior), rec.path
    return (f"{preset}.new" if kept else preset), kept, {}, None


def _parts_of(resumed_from, done: dict, cases: list) -> list:
    """The parts of an unfinished file this run resumes: those it lists (a file resumed
    before), or else the run that wrote it, with its date, command, code and cases."""
    meta = results.read_folder(resumed_from.parent, resumed_from.stem).meta
    if meta.get("parts"):
        return list(meta["parts"])
    part = {k: meta.get(k) for k in ("date", "command", "code", "params", "progress")}
    return [dict(part, cases=[cases[j].label for j in sorted(done)], rows=sum(len(r) for r in done.values()))]


def _run_on_cluster(cluster, sweep_id: str, needs_gpu: bool, cases: list, sweep: str, on_done, meta: dict) -> None:
    """The ``cases`` as tasks of a Dask cluster (``on_done(k, rows)`` as each finishes); first
    their checks, as one task on a worker, whose host memory is the one the cases will use.
    The cluster's description goes into ``meta["cluster"]`` before the first case runs (the
    results file written after each case names it)."""
    from . import cluster as _cluster
    name = sweep_id.replace("/", "-")
    with _cluster.session(cluster) as client:
        info = _cluster.describe(client)
        if needs_gpu and all(w["worker_gpu"] is None for w in info["workers"]):
            raise gpu.GPUUnavailableError(f"{sweep_id} needs a GPU and no worker of the cluster "
                                          f"at {info['scheduler']} has one")
        meta["cluster"] = info
        _cluster.run_tasks(client, _check_on_worker, [(cases, sweep)], name=f"{name}-check")
        _cluster.run_tasks(client, _run_case, [c.run for c in cases], on_done=on_done, name=name)


def _say_written(sweep_id: str, out, preset: str, path, rows: int, cases: int, kept: int, ran: bool) -> None:
    """The line a sweep ends with: what it wrote where, or that nothing was left to run, and
    whether an earlier file with more rows was kept."""
    if ran:
        print(f"wrote {rows} rows to {path} (+ {path.with_suffix('.json').name})")
    else:
        print(f"all {cases} cases of {sweep_id} are already in {path}; nothing to run "
              "(--replace measures them again)")
    if path.stem != preset:
        print(f"kept {pathlib.Path(out) / preset}.csv: it holds {kept} rows, more than this run's "
              f"{rows}; pass --replace to overwrite it")


def check_cases(cases, sweep: str = "") -> None:
    """Call the ``check`` of each of ``cases`` (:class:`Case`) in order, before any of them
    runs; the first refusal is raised as a ValueError that names the sweep (``sweep``, e.g.
    ``"auction/report with sizes=[500, 2000000]"``), the case's label and the refusal
    itself (the guard's estimate and limit).

    >>> def refuse():
    ...     raise ValueError("needs about 29.1 TiB")
    >>> check_cases([Case("n=500", list), Case("n=2000000", list, refuse)], "toy with sizes=[500, 2000000]")
    Traceback (most recent call last):
    ...
    ValueError: toy with sizes=[500, 2000000]: case 'n=2000000' is refused before the sweep starts: needs about 29.1 TiB
    """
    for case in cases:
        if case.check is None:
            continue
        try:
            case.check()
        except ValueError as exc:
            where = f"{sweep}: " if sweep else ""
            raise ValueError(f"{where}case {case.label!r} is refused before the sweep starts: {exc}") from None


def _check_on_worker(item) -> None:
    """:func:`check_cases` as a task of a cluster (``item``: the cases and the sweep's name)."""
    check_cases(*item)


def _sweep_name(algo: str, preset: str, params: dict, overrides: dict) -> str:
    """``"auction/report with sizes=[500, 2000000]"``: the sweep and the parameters given to it
    (a refused case names them, as they are what to change)."""
    given = [f"{k}={params[k]!r}" for k in overrides if k != "quick"]
    if params.get("quick"):
        given.append("quick=True")
    return f"{algo}/{preset}" + (f" with {', '.join(given)}" if given else "")


def _run_case(run) -> list:
    """A case as a task of a cluster: its rows, each naming the host and GPU it ran on."""
    from .cluster import where
    rows = run()
    here = where()
    return [dict(r, **here) for r in rows]


def _resumable(meta: dict, params: dict):
    """The ``cases_recorded`` of an unfinished results file written by this preset with the same
    parameters (its metadata ``meta``), or None."""
    recorded = meta.get("cases_recorded")
    if not recorded or (meta.get("progress") or {}).get("complete", True):
        return None
    if json.loads(json.dumps(params, default=str)) != meta.get("params"):
        return None
    return recorded


def _recorded_cases(rec, params: dict, cases: list):
    """``{case index: rows}`` of an unfinished results file written by this preset with the
    same parameters (its ``cases_recorded`` name each case by index and label), or None when
    it cannot be resumed: finished, other parameters, other cases, or no record of its cases."""
    recorded = _resumable(rec.meta, params)
    if recorded is None or sum(k for _, _, k in recorded) != len(rec.rows):
        return None
    out, at = {}, 0
    for i, label, k in recorded:
        if not (isinstance(i, int) and 0 <= i < len(cases)) or cases[i].label != label:
            return None
        out[i] = [{c: v for c, v in r.items() if v is not None} for r in rec.rows[at:at + k]]
        at += k
    return out


#: columns that hold times, rates or what follows from them (a speed-up, a goal met in time):
#: two runs of one sweep differ there (and in where a cluster ran each case,
#: :data:`gpualgo.cluster.WORKER_COLUMNS`); see :func:`content`
TIMING_SUFFIXES = ("_ms", "_per_s", "ms_per_level", "_of_copy")
TIMING_WORDS = ("speedup",)
TIMING_COLUMNS = ("met",)


def content(row: dict) -> dict:
    """A row without what a rerun of the same sweep changes: its times, rates and speed-ups
    (:data:`TIMING_SUFFIXES`) and where a cluster ran it. Two runs of a sweep, sequential or
    on a cluster, give rows of equal content.

    >>> content({"n": 8, "total_ms": 1.5, "objective": 3, "perms_per_s": 2e9, "worker_gpu": 1})
    {'n': 8, 'objective': 3}
    """
    from .cluster import WORKER_COLUMNS
    return {k: v for k, v in row.items()
            if k not in WORKER_COLUMNS and k not in TIMING_COLUMNS and not k.endswith(TIMING_SUFFIXES)
            and not any(w in k for w in TIMING_WORDS)}


def live_or_recorded(algo: str, preset: str, progress: bool = True, **overrides):
    """Rows for a notebook: measured now when possible, else read from ``data/results``.

    Runs live when a GPU is present (or the preset needs none).  Otherwise reads the
    recorded ``data/results/<algo>/<preset>.csv``.  Returns ``(rows, source)``, where
    ``source`` is a sentence saying where the numbers come from; ``rows`` is empty
    (and ``source`` says so) when nothing was recorded yet.
    """
    p = _preset(algo, preset)
    _params(p, overrides)  # the same errors with or without a GPU
    if gpu.available() or not p.needs_gpu:
        rows = run_preset(algo, preset, progress=progress, **overrides)
        where = gpu.describe().get("gpu") if p.needs_gpu else "this machine's CPU"
        return rows, f"measured now on {where}"
    try:
        rec = results.read(algo, preset)
    except FileNotFoundError:
        return [], (f"No GPU found ({gpu.unavailable_reason()}), and no recorded GPU results yet "
                    f"for {algo}/{preset}.")
    return rec.rows, f"No GPU found here: these results were {rec.source()}."


#: the goal of a sweep on every GPU of a machine: at least this speed-up over one GPU
SWEEP_GOAL = 1.8


def compare_sweeps(one, many) -> dict:
    """Two recorded runs of one sweep (:class:`gpualgo.results.Recorded`), e.g. on one GPU and
    on a cluster: ``same`` (their rows are equal in :func:`content`), the wall times of their
    cases (``wall_s`` of their metadata) and ``speedup`` (one's over many's), the devices of
    the cluster's workers, and ``goal``: whether the speed-up reaches :data:`SWEEP_GOAL`
    with the same rows."""
    same = len(one.rows) == len(many.rows) and all(
        {k: v for k, v in content(a).items() if v is not None} == {k: v for k, v in content(b).items() if v is not None}
        for a, b in zip(one.rows, many.rows))
    w1, w2 = one.meta.get("wall_s"), many.meta.get("wall_s")
    workers = (many.meta.get("cluster") or {}).get("workers", [])
    return {"same": same, "rows": len(one.rows), "wall_one_s": w1, "wall_many_s": w2,
            "speedup": (w1 / w2) if w1 and w2 else None, "workers": len(workers),
            "devices": sorted({w.get("device") for w in workers}),
            "goal": "met" if same and w1 and w2 and w1 / w2 >= SWEEP_GOAL else "missed"}


def _value(text: str):
    """Parse a --set value: Python literal, or comma-separated list of literals."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    if "," in text:
        return [_value(t) for t in text.split(",") if t]
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpualgo.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("algo", nargs="?", help=f"one of {sorted(SUITES)}")
    ap.add_argument("--preset", help="the sweep to run (see --list)")
    ap.add_argument("--out", help="folder for NAME.csv + NAME.json (default build/results/ALGO)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a preset parameter (repeatable), e.g. --set sizes=512,1024")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    ap.add_argument("--replace", action="store_true",
                    help="overwrite a results file that holds more rows than this run writes")
    ap.add_argument("--cluster", metavar="local|ADDR",
                    help="run the cases on a Dask cluster: 'local' (one worker per GPU here; CPU workers "
                         "without a GPU), 'local-cpu', or a scheduler's address tcp://HOST:PORT")
    ap.add_argument("--scheduler", metavar="ADDR", help="the same as --cluster ADDR: an existing Dask cluster")
    ap.add_argument("--list", action="store_true", help="list the presets (of ALGO, or of every algorithm)")
    args = ap.parse_args(argv)
    if args.cluster and args.scheduler:
        ap.error("give --cluster or --scheduler, not both")

    if args.list or not args.algo:
        if args.algo and args.algo not in SUITES:
            ap.error(f"unknown algorithm {args.algo!r}: one of {sorted(SUITES)}")
        for algo in [args.algo] if args.algo else SUITES:
            try:
                table = presets(algo)
            except ImportError as exc:
                print(f"{algo}: not available ({exc})")
                continue
            for name, p in table.items():
                gpu_note = " [GPU]" if p.needs_gpu else ""
                print(f"{algo} --preset {name}{gpu_note}: {p.description}")
                print(f"    params: {p.params}")
        return 0
    if not args.preset:
        ap.error("--preset is required (see --list)")
    overrides = {}
    for item in args.set:
        key, sep, val = item.partition("=")
        if not sep:
            ap.error(f"--set needs KEY=VALUE, got {item!r}")
        overrides[key] = _value(val)
    if args.quick:
        overrides["quick"] = True
    out = pathlib.Path(args.out) if args.out else pathlib.Path("build") / "results" / args.algo
    try:
        run_preset(args.algo, args.preset, out=out, replace=args.replace,
                   cluster=args.cluster or args.scheduler, **overrides)
    except (ValueError, gpu.GPUUnavailableError, ClusterUnavailableError) as exc:
        print(f"error: {_for_the_command_line(str(exc))}", file=sys.stderr)
        return 2
    return 0


def _for_the_command_line(message: str) -> str:
    """A refusal as the command line can act on it: the library's "pass force=True" is no
    option of a preset, so the line says what is (smaller sizes, or the solver from Python)."""
    return re.sub(r"pass force=True to (try|run it) anyway",
                  "a preset cannot insist: give smaller sizes with --set (from Python, the solver "
                  "takes force=True)", message)


if __name__ == "__main__":
    sys.exit(main())
