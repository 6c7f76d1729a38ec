"""Notebook helpers: the GPU banner, source display, sliders, progress bars.

Everything here also works outside Jupyter (it falls back to plain text), so the
notebooks run the same way under papermill, in JupyterLab, or as scripts.
"""
from __future__ import annotations

import inspect
import re

from . import gpu

__all__ = ["gpu_banner", "banner_text", "show_source", "kernel_text", "interact", "progress"]


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


def kernel_text(name: str, kernel: str | None = None) -> str:
    """Source of ``gpualgo/kernels/<name>.cu``, or of one function in it.

    With ``kernel``: that function's definition, from the comment block just above
    it to its closing brace.  Raises ValueError when it is not defined there.
    """
    src = gpu.kernel_source(name)
    if kernel is None:
        return src
    lines = src.splitlines()
    pat = re.compile(rf"\b{re.escape(kernel)}\s*\(")
    start = None
    for i, line in enumerate(lines):
        # a definition: the name followed by '(' on a line that is not a call or a comment
        if pat.search(line) and not line.lstrip().startswith("//") and (
                "__global__" in line or "__device__" in line or
                (i > 0 and ("__global__" in lines[i - 1] or "__device__" in lines[i - 1]))):
            start = i
            break
    if start is None:
        raise ValueError(f"kernel {kernel!r} is not defined in {name}.cu")
    first = start
    while first > 0 and (lines[first - 1].lstrip().startswith(("//", "template", "extern", "__global__", "__device__"))
                         or lines[first - 1].strip().startswith("/*") or lines[first - 1].strip().startswith("*")):
        first -= 1
    depth, seen, end = 0, False, len(lines) - 1
    for j in range(start, len(lines)):
        code = lines[j].split("//")[0]
        depth += code.count("{") - code.count("}")
        seen = seen or "{" in code
        if seen and depth <= 0:
            end = j
            break
    return "\n".join(lines[first:end + 1])


def show_source(obj, kernel: str | None = None):
    """Syntax-highlighted source of a kernel or a Python function.

    ``show_source("auction", "bid_kernel")``: that kernel from ``kernels/auction.cu``;
    ``show_source("auction")``: the whole file; ``show_source(func)``: a Python function
    (for a numba function, the Python code it compiles).  Returns an object that
    Jupyter displays with highlighting (a plain string outside IPython).
    """
    if isinstance(obj, str):
        text, language = kernel_text(obj, kernel), "cuda"
    else:
        target = getattr(obj, "py_func", obj)  # numba dispatchers keep the Python function here
        text, language = inspect.getsource(target), "python"
    try:
        from IPython.display import Code
    except ImportError:
        return text
    return Code(text, language=language)


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
