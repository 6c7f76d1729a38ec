"""Notebook helpers: the GPU banner, source display, running and checking a version, the
recorded-or-live results, sliders, progress bars. All five notebooks use these same ones.

Everything here also works outside Jupyter (it falls back to plain text), so the
notebooks run the same way under papermill, in JupyterLab, or as scripts.
"""
from __future__ import annotations

import inspect
import re

from . import findings, gpu

__all__ = ["gpu_banner", "banner_text", "show_source", "kernel_text", "kernel_helpers", "show_kernels",
           "run_and_check", "recorded_line", "recorded", "findings_data", "show_findings", "show_limits", "interact",
           "progress", "PARAMETER_TYPES", "parameter_error", "check_parameters"]


def banner_text() -> str:
    """One Markdown paragraph: which GPU the notebook runs on, or that there is none."""
    info = gpu.describe()
    if info.get("gpu"):
        parts = [f"{info['sms']} SMs", f"{info['memory_gib']} GiB", f"compute capability {info['compute_capability']}",
                 f"CUDA driver {info['driver_cuda']}", f"runtime {info['cuda_runtime']}", f"CuPy {info['cupy']}"]
        if info.get("driver"):
            parts.insert(3, f"driver {info['driver']}")
        return f"**GPU found: {info['gpu']}** ({', '.join(parts)}). The GPU sections run live on it."
    return (f"**No GPU found** ({info.get('reason')}). The serial versions run live on this CPU; the GPU "
            "sections show the results recorded on a real GPU under `data/results/`, and say which GPU "
            "and when.")


def gpu_banner() -> None:
    """Display :func:`banner_text` (Markdown in Jupyter, plain text elsewhere)."""
    _display_markdown(banner_text())


def _display_markdown(text: str) -> None:
    try:
        from IPython.display import Markdown, display
        display(Markdown(text))
    except ImportError:
        print(text)


# a function defined at file level (struct members are indented and shown with their struct)
_DEF = re.compile(r"^(?:template\s*<[^>]*>\s*)?__device__[^;{]*?\b(\w+)\s*\(", re.M | re.S)


def _definition(lines: list[str], name: str) -> tuple[int, int] | None:
    """(first, last) line of the definition of ``name`` in ``lines``, its comment block
    included; None when it is not defined there."""
    pat = re.compile(rf"\b{re.escape(name)}\s*\(")
    start = None
    for i, line in enumerate(lines):
        # a definition: the name followed by '(' on a line that is not a call or a comment
        if pat.search(line) and not line.lstrip().startswith("//") and (
                "__global__" in line or "__device__" in line or
                (i > 0 and ("__global__" in lines[i - 1] or "__device__" in lines[i - 1]))):
            start = i
            break
    if start is None:
        return None
    first = start
    while first > 0:
        above = lines[first - 1].strip()
        comment = above.startswith(("//", "/*", "*"))
        # a qualifier line of this signature, not a whole one-line function above it
        head = above.startswith(("template", "extern", "__global__", "__device__")) and not any(c in above for c in "{};")
        if not (comment or head):
            break
        first -= 1
    depth, seen, end = 0, False, len(lines) - 1
    for j in range(start, len(lines)):
        code = lines[j].split("//")[0]
        depth += code.count("{") - code.count("}")
        seen = seen or "{" in code
        if seen and depth <= 0:
            end = j
            break
    return first, end


# the comment lines that mark an exercise's region in a kernel source (gpualgo.exercises)
_MARKER = re.compile(r"^[ \t]*// exercise [\w.]+: (?:begin|end)[ \t]*\n", re.M)


def _source(name: str) -> str:
    """A kernel source as a reader sees it: without the exercises' region markers."""
    return _MARKER.sub("", gpu.kernel_source(name))


def _sources(name: str) -> list[list[str]]:
    """The lines of ``<name>.cu`` and of the headers it includes from ``gpualgo/kernels``."""
    src = _source(name)
    out = [src.splitlines()]
    for inc in re.findall(r'#include\s+"([^"]+)"', src):
        try:
            out.append(_source(inc).splitlines())
        except ValueError:
            pass
    return out


def kernel_helpers(name: str, kernel: str) -> list[str]:
    """The ``__device__`` functions ``kernel`` of ``<name>.cu`` calls, directly or through
    each other, defined in that file or in a header it includes; callees first."""
    files = _sources(name)
    defined = {}
    for lines in files:
        for fn in _DEF.findall("\n".join(lines)):
            if fn not in defined and _definition(lines, fn):
                defined[fn] = lines
    order: list[str] = []

    def visit(fn, lines):
        a, b = _definition(lines, fn)
        body = "\n".join(lines[a:b + 1])
        for callee, where in defined.items():
            if callee != fn and callee not in order and re.search(rf"(?<![.>\w]){re.escape(callee)}\s*\(", body.split("{", 1)[-1]):
                order.append(callee)  # mark before recursing: helpers may call each other
                visit(callee, where)
                order.remove(callee)
                order.append(callee)

    span = _definition(files[0], kernel)
    if span is None:
        raise ValueError(f"kernel {kernel!r} is not defined in {name}.cu")
    visit(kernel, files[0])
    return order


def kernel_text(name: str, kernel: str | None = None, helpers: bool = False) -> str:
    """Source of ``gpualgo/kernels/<name>.cu``, or of one function in it.

    With ``kernel``: that function's definition, from the comment block just above
    it to its closing brace; with ``helpers=True`` also the ``__device__`` functions it
    calls (:func:`kernel_helpers`), before it. Raises ValueError when it is not defined there.
    The comment lines that mark the exercises' regions are left out.
    """
    src = _source(name)
    if kernel is None:
        return src
    lines = src.splitlines()
    span = _definition(lines, kernel)
    if span is None:
        raise ValueError(f"kernel {kernel!r} is not defined in {name}.cu")
    parts = []
    if helpers:
        files = _sources(name)
        for fn in kernel_helpers(name, kernel):
            for flines in files:
                sp = _definition(flines, fn)
                if sp:
                    parts.append("\n".join(flines[sp[0]:sp[1] + 1]))
                    break
    parts.append("\n".join(lines[span[0]:span[1] + 1]))
    return "\n\n".join(parts)


def show_source(obj, kernel: str | None = None, helpers: bool = False):
    """Syntax-highlighted source of a kernel or a Python function.

    ``show_source("auction", "bid_kernel")``: that kernel from ``kernels/auction.cu``;
    ``show_source("auction")``: the whole file; ``show_source(func)``: a Python function
    (for a numba function, the Python code it compiles); ``helpers=True`` adds the device
    functions the kernel calls (see :func:`kernel_text`).  Returns an object that
    Jupyter displays with highlighting (a plain string outside IPython).
    """
    if isinstance(obj, str):
        text, language = kernel_text(obj, kernel, helpers), "cuda"
    else:
        target = getattr(obj, "py_func", obj)  # numba dispatchers keep the Python function here
        text, language = inspect.getsource(target), "python"
    try:
        from IPython.display import Code
    except ImportError:
        return text
    return Code(text, language=language)


def show_kernels(kernels: dict) -> str:
    """A table of which kernels each GPU version launches: a GPU module's ``KERNELS``
    (``{variant: (kernel names, ...)}``), displayed as Markdown; returns its text."""
    lines = ["| version | kernels |", "| --- | --- |"]
    lines += [f"| `{v}` | {', '.join(f'`{k}`' for k in ks)} |" for v, ks in kernels.items()]
    text = "\n".join(lines)
    _display_markdown(text)
    return text


def run_and_check(solve, instance, variant: str, check, warm=None, show=(), recorded_in=None, **options):
    """Run one version the way every notebook shows it, and check its answer.

    solve: the problem's ``solve`` (``functools.partial(assignment.solve, algorithm="dgs")``
        for extra arguments); instance: what it solves.
    check: ``check(result)`` compares the answer with an independent reference and returns
        a short sentence saying what was verified; it raises (AssertionError, ValueError)
        when the answer is wrong.
    warm: a tiny instance solved first, untimed, so that compilation is not in the timing
        (see :func:`gpualgo.bench.warm_up`).
    show: names of ``stats`` entries to print after the summary (rounds, pushes...).

    recorded_in: where this version's GPU runs were recorded, ``"algo/preset"`` or
        ``("algo/preset", {"n": 1108, ...})`` to pick the rows: shown when no GPU is here.

    Prints one line (the result's summary, the check's sentence, the chosen stats) and
    returns the result. A GPU version without a GPU is not run: it says so plainly, shows
    what its recorded runs measured (times and the ``show`` counters, see
    :func:`recorded_line`), and returns None.
    """
    from . import bench
    if variant.startswith("gpu") and not gpu.available():
        print(f"{variant}: no GPU here ({gpu.unavailable_reason()}), not run.")
        if recorded_in is not None:
            name, where = recorded_in if isinstance(recorded_in, tuple) else (recorded_in, None)
            print(recorded_line(name, variant, show, where))
        return None
    if warm is not None:
        bench.warm_up(solve, warm, [variant], **options)
    result = solve(instance, variant=variant, **options)
    verdict = check(result)
    extra = [f"{k} {_fmt(result.stats[k])}" for k in show if k in result.stats]
    print(result.summary() + "".join(f"; {t}" for t in [verdict, *extra] if t))
    return result


def recorded_line(name: str, variant: str, show=(), where: dict | None = None) -> str:
    """One line: what the recorded runs of ``variant`` in ``name`` (``"algo/preset"``)
    measured, on which GPU: the median of each time and of each ``show`` counter over the
    matching rows (``where`` picks columns' values, by default the smallest size recorded;
    ``where["variant"]`` is the name the rows give the version, where it differs)."""
    from . import results
    algo, preset = name.split("/", 1)
    try:
        rec = results.read(algo, preset)
    except FileNotFoundError:
        return f"  (no recorded runs of {variant} in {name})"
    where = dict(where or {})
    recorded_as = where.pop("variant", variant)        # the name its rows carry, where it differs
    rows = [r for r in rec.rows if r.get("variant") == recorded_as and not r.get("timeout")
            and all(r.get(k) == v for k, v in where.items())]
    if not rows:
        return f"  (no recorded runs of {recorded_as} in {name} with {where})"
    size = next((k for k in ("n", "size") if k in rows[0]), None)
    if not where and size is not None:
        smallest = min(r[size] for r in rows if r.get(size) is not None)
        rows = [r for r in rows if r.get(size) == smallest]
        where = {size: smallest}
    parts = []
    for key in ("total_ms", "kernel_ms", *show):
        mid = findings.median(r.get(key) for r in rows)
        if mid is not None:
            parts.append(f"{key} {_fmt(mid)}")
    at = ", ".join(f"{k}={v}" for k, v in where.items())
    gpu_name = (rec.meta.get("device") or {}).get("gpu") or "a GPU"
    runs = f"median of {len(rows)} runs" if len(rows) > 1 else "1 run"
    return f"  recorded on {gpu_name} ({name}, {at}; {runs}): " + "; ".join(parts)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def recorded(algo: str, preset: str, progress: bool = True, **overrides) -> list[dict]:
    """The rows of a preset for a figure: measured now when a GPU is here (or the preset
    needs none), else read from ``data/results``; prints where they come from first.
    See :func:`gpualgo.bench.live_or_recorded`."""
    from . import bench
    rows, source = bench.live_or_recorded(algo, preset, progress=progress, **overrides)
    print(source)
    return rows


def findings_data(found, data=None) -> tuple[dict, dict]:
    """The rows every finding of ``found`` uses, and where each set came from.

    A set given in ``data`` (``{"auction/exact": rows}``, e.g. measured now in an earlier cell)
    is used as it is; ``data`` may also give ``(rows, "where they came from")``. Every other
    set is read from ``data/results/<algo>/<preset>.csv``; a set never recorded is left out
    (its findings then cannot be tested here)."""
    from . import results
    rows, sources = {}, {}
    for f in found:
        for name in f.uses:
            if name in rows:
                continue
            given = (data or {}).get(name)
            if given is not None:
                rows[name], sources[name] = given if isinstance(given, tuple) else (given, f"{name} (this run)")
                continue
            algo, preset = name.split("/", 1)
            try:
                rec = results.read(algo, preset)
            except FileNotFoundError:
                continue
            rows[name] = rec.rows
            sources[name] = f"`{algo}/{preset}.csv` ({(rec.meta.get('device') or {}).get('gpu') or 'CPU'})"
    return rows, sources


def show_findings(found, data=None):
    """Display the table of the report's findings, each tested against the data (see
    :mod:`gpualgo.findings` and :func:`findings_data`); returns the verdicts."""
    rows, sources = findings_data(found, data)
    verdicts = findings.evaluate(found, rows)
    _display_markdown(findings.table(found, verdicts, sources))
    return verdicts


def show_limits(algo: str, ax=None):
    """The recorded Nsight Compute profile of ``algo``'s best kernels against the GPU's
    measured peaks (:mod:`gpualgo.limits`): the table, then the roofline; or a line saying
    none is recorded. Returns the summary lines."""
    from . import limits, plots, results
    try:
        rec = results.read(algo, "limits")
    except FileNotFoundError:
        print(f"no profile of the {algo} kernels is recorded yet (python -m gpualgo.limits profile, on a GPU machine)")
        return []
    lines = limits.summary(rec.rows)
    peaks = rec.meta.get("peaks", {})
    print(rec.source())
    print(f"measured peaks: copy {peaks.get('copy_bytes_per_s', float('nan')) / 1e9:,.0f} GB/s, "
          f"integer multiply-adds {peaks.get('imad_per_s', float('nan')) / 1e12:,.1f} T/s")
    _display_markdown(limits.table(lines, peaks))
    for ln in lines:
        print(limits.diagnosis(ln))
    points = limits.roofline_points(lines)
    if points and peaks.get("copy_bytes_per_s") and peaks.get("imad_per_s"):
        ax = plots.roofline(points, peaks["copy_bytes_per_s"] / 1e9, peaks["imad_per_s"] / 1e9, ax,
                            label="measured: copy bandwidth, integer multiply-add rate")
        ax.set_title(f"{algo}: kernels against the measured roofline")
    return lines


def interact(fn, interactive: bool, **widgets):
    """Sliders for ``fn`` when ``interactive``; otherwise only say that they are off.

    Widgets are ipywidgets controls (``IntSlider(...)``) or anything
    ``ipywidgets.interactive`` accepts.  Headless runs pass ``interactive=False``;
    the notebook draws the same figure in a plain cell, so nothing is lost.
    Returns the ``ipywidgets.interactive`` object, or None.
    """
    if not interactive:
        print("Sliders are off (interactive=False); the plain cell above drew the figure.")
        return None
    import ipywidgets
    from IPython.display import display
    for w in widgets.values():  # heavy callbacks: run on release, not on every pixel
        if hasattr(w, "continuous_update"):
            w.continuous_update = False
    box = ipywidgets.interactive(fn, **widgets)
    display(box)
    return box


def progress(iterable, **kwargs):
    """A progress bar over ``iterable`` (tqdm's notebook bar in Jupyter, text elsewhere)."""
    from tqdm.auto import tqdm
    return tqdm(iterable, **kwargs)


#: the types a notebook parameter's value may have, by its annotation's name (an int does for a float)
PARAMETER_TYPES = {"bool": (bool,), "int": (int,), "float": (int, float), "str": (str,)}


def parameter_error(name: str, kind: str, value) -> str | None:
    """Why ``value`` cannot be the parameter ``name`` declared ``kind`` (``"int"``, ...: see
    :data:`PARAMETER_TYPES`), or None when it can; True and False are bools only.

    >>> parameter_error("n", "int", "abc")
    "parameter 'n' is declared int, got 'abc' (str)"
    """
    types = PARAMETER_TYPES.get(kind)
    if types and (not isinstance(value, types) or (isinstance(value, bool) and kind != "bool")):
        return f"parameter {name!r} is declared {kind}, got {value!r} ({type(value).__name__})"
    return None


def check_parameters(namespace: dict, **rules) -> None:
    """Refuse, before anything runs, a notebook parameter that papermill (``-p``) or a hand set
    to a value of another type than the cell tagged ``parameters`` declares (its annotations,
    ``n: int = 1108``, are in the notebook's ``__annotations__``), then one that breaks its rule
    in ``rules``: ``name=(lo, hi)`` (inclusive, None for no bound) or a function called as
    ``rule(value, name)`` that raises ValueError (``block=guards.threads``).

    >>> check_parameters({"__annotations__": {"n": int}, "n": 1}, n=(2, None))
    Traceback (most recent call last):
    ...
    ValueError: parameter 'n' must be at least 2, got 1
    """
    for name, kind in namespace.get("__annotations__", {}).items():
        why = name in namespace and parameter_error(name, getattr(kind, "__name__", str(kind)), namespace[name])
        if why:
            raise ValueError(why)
    for name, rule in rules.items():
        value = namespace[name]
        if callable(rule):
            rule(value, name)
            continue
        lo, hi = rule
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            span = (f"in {lo}..{hi}" if lo is not None and hi is not None
                    else f"at least {lo}" if lo is not None else f"at most {hi}")
            raise ValueError(f"parameter {name!r} must be {span}, got {value!r}")
