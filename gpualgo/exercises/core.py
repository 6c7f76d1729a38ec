"""The exercise mechanism: regions of the kernel sources, starters, the student's source put
back into its module, compiling (CuPy on a GPU; NVRTC or nvcc to compile only), and the check.

An exercise's region is marked in the suite's own ``.cu`` source by two comment lines,
``// exercise <id>: begin`` and ``// exercise <id>: end``.  What lies between them is the
solution; the starter is the exercise's ``stub``.  :func:`assemble` puts a student's text in
place of the region, with ``#line`` directives so that the compiler numbers the student's
lines from 1 (file ``your_code``), and appends the exercise's driver kernels, if any.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time
from typing import Callable

import numpy as np

from .. import gpu

__all__ = ["Case", "Exercise", "CheckResult", "Failure", "REGISTRY", "TIERS", "register", "get", "region",
           "solution", "starter", "assemble", "compile_only", "compiler", "check", "STUDENT_FILE"]

#: the file name the compiler gives the student's lines
STUDENT_FILE = "your_code"
_MARK = re.compile(r"^[ \t]*// exercise (?P<id>[\w.]+): (?P<kind>begin|end)[ \t]*$")
#: the architecture a compile-only check targets (an A100; every kernel of the suite builds for it)
COMPILE_ONLY_ARCH = "compute_80"


#: what each tier of exercise is about (the course page and the notebooks name them)
TIERS = {1: "threads to data", 2: "reductions and atomics", 3: "an algorithm step", 4: "an optimisation"}


class Failure(Exception):
    """A case failed: ``str(exc)`` says what was expected and what came back."""


@dataclasses.dataclass
class Case:
    """One input of a check: ``name`` says it in a few words (sizes, what is special)."""
    name: str
    data: dict


@dataclasses.dataclass
class Exercise:
    """One exercise (see ``gpualgo/README.md``, *How to add an exercise*).

    id: ``"<problem>.<topic>"``; file: the kernel source holding its region (``"tsp.cu"``,
    ``"common.cuh"``); module: the ``.cu`` file the check compiles (``"tsp"``).
    signature: the function the region sits in, as the student sees it.
    stub: the starter's text for the region (a TODO and whatever keeps it compiling).
    hints: the hints the notebook shows under the exercise, one markdown paragraph each.
    cases(quick): the inputs; run(module, case): launch on the GPU (``module``: a
    :class:`Compiled`) and return the outputs
    (raise :class:`Failure` for a problem seen while running); verify(case, got): raise
    :class:`Failure` with expected and got, or return None.
    driver: CUDA text appended after the module (kernels that call a ``__device__`` function).
    speed(student_module, suite_module, quick): a line comparing the student's kernel with
    the suite's (optimisation exercises).
    mistakes: ``{name: (source, words the failure message must contain)}``, the typical
    mistakes the GPU tests prove are caught.
    """
    id: str
    title: str
    tier: int
    teaches: str
    file: str
    module: str
    signature: str
    stub: str
    cases: Callable
    run: Callable
    verify: Callable
    defines: dict = dataclasses.field(default_factory=dict)
    module_options: dict = dataclasses.field(default_factory=dict)
    driver: str = ""
    hints: tuple = ()
    speed: Callable | None = None
    mistakes: dict = dataclasses.field(default_factory=dict)


REGISTRY: dict[str, Exercise] = {}


def register(ex: Exercise) -> Exercise:
    if ex.id in REGISTRY:
        raise ValueError(f"exercise {ex.id!r} registered twice")
    REGISTRY[ex.id] = ex
    return ex


def get(exercise_id: str) -> Exercise:
    from . import _load_all
    _load_all()
    try:
        return REGISTRY[exercise_id]
    except KeyError:
        raise ValueError(f"no exercise {exercise_id!r}; known: {', '.join(sorted(REGISTRY))}") from None


# ------------------------------------------------------------------ regions and starters

def _lines(file: str) -> list[str]:
    return gpu.kernel_source(file).split("\n")


def region(file: str, exercise_id: str) -> tuple[int, int]:
    """(begin, end): 0-based indices of the two marker lines of ``exercise_id`` in ``file``.
    ValueError when they are missing, repeated, or out of order."""
    begins, ends = [], []
    for i, line in enumerate(_lines(file)):
        m = _MARK.match(line)
        if m and m["id"] == exercise_id:
            (begins if m["kind"] == "begin" else ends).append(i)
    if len(begins) != 1 or len(ends) != 1 or ends[0] <= begins[0]:
        raise ValueError(f"{file}: exercise {exercise_id!r} needs one '// exercise {exercise_id}: begin' line "
                         f"and one '...: end' line after it; found begin at {begins}, end at {ends}")
    return begins[0], ends[0]


def markers(file: str) -> list[str]:
    """The exercise ids marked in ``file`` (each begin line)."""
    return [m["id"] for line in _lines(file) if (m := _MARK.match(line)) and m["kind"] == "begin"]


def solution(exercise_id: str) -> str:
    """The suite's own code of the region: the solution."""
    ex = get(exercise_id)
    b, e = region(ex.file, ex.id)
    return "\n".join(_lines(ex.file)[b + 1:e]) + "\n"


def starter(exercise_id: str) -> str:
    """The starter: the region replaced by the exercise's stub."""
    return get(exercise_id).stub


def _strip_markers(lines: list[str]) -> list[str]:
    return [l for l in lines if not _MARK.match(l)]


def _splice(file: str, exercise_id: str | None, source: str | None) -> list[str]:
    """The lines of ``file`` with the region of ``exercise_id`` replaced by ``source``
    (numbered from 1 in file ``your_code``); every other region's markers dropped."""
    lines = _lines(file)
    if exercise_id is None:
        return _strip_markers(lines)
    b, e = region(file, exercise_id)
    body = source.rstrip("\n").split("\n")
    return (_strip_markers(lines[:b]) + [f'#line 1 "{STUDENT_FILE}"'] + body +
            [f'#line {e + 2} "{file}"'] + _strip_markers(lines[e + 1:]))


def assemble(exercise_id: str, source: str | None = None) -> str:
    """The module's full source with ``source`` (default: the solution) in the region,
    ``common.cuh`` inlined, and the exercise's driver appended."""
    ex = get(exercise_id)
    if source is None:
        source = solution(exercise_id)
    main = f"{ex.module}.cu"
    out = []
    lines = _splice(main, ex.id if ex.file == main else None, source)
    for i, line in enumerate(lines):
        if line.strip() == '#include "common.cuh"':
            header = _splice("common.cuh", ex.id if ex.file == "common.cuh" else None, source)
            out += ['#line 1 "common.cuh"'] + [l for l in header if l.strip() != "#pragma once"]
            out.append(f'#line {i + 2} "{main}"')  # (no region lines precede the include)
        else:
            out.append(line)
    text = "\n".join(out) + "\n"
    if ex.driver:
        text += '#line 1 "exercise_driver"\n' + ex.driver
    return text


def _options(ex: Exercise) -> list[str]:
    return ["-std=c++17", f"-I{gpu.kernel_path('common.cuh').parent}"] + [f"-D{k}={v}" for k, v in ex.defines.items()]


# ------------------------------------------------------------------ compiling

def _cuda_includes() -> list[str]:
    """Folders with the CUDA headers NVRTC does not carry (cooperative_groups.h and the
    libcu++ headers it includes): the CUDA wheels of the exercises extra, else a toolkit."""
    found = []
    for pkg, probe in (("nvidia.cuda_runtime", "cooperative_groups.h"), ("nvidia.cuda_cccl", "nv/target")):
        try:
            spec = importlib.util.find_spec(pkg)
        except (ImportError, ValueError):
            spec = None
        if spec and spec.submodule_search_locations:
            inc = pathlib.Path(list(spec.submodule_search_locations)[0]) / "include"
            if (inc / probe).is_file():
                found.append(str(inc))
    if len(found) == 2:
        return found
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and pathlib.Path(root, "include", "cooperative_groups.h").is_file():
            return [str(pathlib.Path(root, "include"))]
    return found


def _nvrtc():
    try:
        from cuda.bindings import nvrtc
        err, major, minor = nvrtc.nvrtcVersion()
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return None
        return nvrtc, f"NVRTC {major}.{minor}"
    except Exception:  # not installed, or its shared library missing
        return None


def compiler() -> str | None:
    """Which compile-only backend is here: ``"NVRTC x.y"`` (cuda-bindings), ``"nvcc"``, or None."""
    found = _nvrtc()
    if found:
        return found[1]
    return "nvcc" if shutil.which("nvcc") else None


HOW_TO_COMPILE = ("install the exercises extra for compile feedback without a GPU "
                  "(pip install -e '.[exercises]': NVRTC, the CUDA runtime compiler), or put nvcc on PATH")


def compile_only(text: str, options: list[str], name: str = "exercise.cu") -> tuple[bool | None, str, str]:
    """Compile ``text`` without a GPU: (ok, log, backend); ok is None when no compiler is here."""
    found = _nvrtc()
    if found:
        nvrtc, label = found
        opts = [f"-arch={COMPILE_ONLY_ARCH}", *options] + [f"-I{inc}" for inc in _cuda_includes()]
        err, prog = nvrtc.nvrtcCreateProgram(text.encode(), name.encode(), 0, [], [])
        try:
            (res,) = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
            _, size = nvrtc.nvrtcGetProgramLogSize(prog)
            # a buffer of its own: NVRTC writes into it, and b" " * 1 is the interpreter's shared
            # one-byte object (writing its NUL there turned every later space into NUL)
            log = bytearray(size)
            nvrtc.nvrtcGetProgramLog(prog, log)
        finally:
            nvrtc.nvrtcDestroyProgram(prog)
        return res == nvrtc.nvrtcResult.NVRTC_SUCCESS, bytes(log).decode(errors="replace").rstrip("\x00 \n"), label
    if shutil.which("nvcc"):
        with tempfile.TemporaryDirectory(prefix="gpualgo-ex-") as tmp:
            src = pathlib.Path(tmp, name)
            src.write_text(text)
            cmd = ["nvcc", "-arch=sm_80", *options, "-c", "-x", "cu", str(src), "-o", str(pathlib.Path(tmp, "o.o"))]
            proc = subprocess.run(cmd, capture_output=True, text=True)
        return proc.returncode == 0, (proc.stderr + proc.stdout).replace(str(src), name), "nvcc"
    return None, "", ""


_DIAG = re.compile(rf"{STUDENT_FILE}\((\d+)\): (error|warning)\s*:?\s*(.*)")


def compile_message(log: str, source: str, errors_only: bool = True) -> str:
    """The compiler's complaints about the student's lines: ``line N: error: ...`` with the
    line quoted; other lines of the log (errors elsewhere) follow, shortened."""
    src = source.rstrip("\n").split("\n")
    out, seen = [], set()
    for m in _DIAG.finditer(log):
        n, kind, what = int(m[1]), m[2], m[3].strip()
        if (errors_only and kind != "error") or (n, what) in seen:
            continue
        seen.add((n, what))
        quoted = src[n - 1].strip() if 0 < n <= len(src) else ""
        out.append(f"  line {n}: {kind}: {what}" + (f"\n      {quoted}" if quoted else ""))
    if not out:  # errors outside the student's lines (an unclosed brace, a missing name...)
        rest = [l.strip() for l in log.splitlines() if "error" in l][:6]
        out = [f"  {l}" for l in rest] or [f"  {log.strip()[:600]}"]
    return "\n".join(out[:8])


# ------------------------------------------------------------------ the check

@dataclasses.dataclass
class CheckResult:
    """What a check found: ``passed`` (None: compiled only, nothing ran), the failing case's
    name, the message printed, whether it compiled and with what, and the speed line."""
    id: str
    passed: bool | None
    case: str | None = None
    message: str = ""
    compiled: bool | None = None
    backend: str = ""
    cases_run: int = 0
    speed: str = ""
    seconds: float = 0.0

    def __bool__(self) -> bool:
        return bool(self.passed)

    def __repr__(self) -> str:
        return f"CheckResult(id={self.id!r}, passed={self.passed}, case={self.case!r})"


class Compiled:
    """A compiled module and the text it was compiled from (the cases that run a problem's
    own host code compile that text again through :func:`gpualgo.gpu.source_override`)."""

    def __init__(self, module, text: str):
        self.module, self.text = module, text

    def get_function(self, name: str):
        return self.module.get_function(name)


def _cupy_module(cp, ex: Exercise, text: str) -> Compiled:
    mod = cp.RawModule(code=text, options=tuple(_options(ex)), **ex.module_options)
    mod.compile()
    return Compiled(mod, text)


def check(exercise_id: str, source: str, quick: bool = True, verbose: bool = True,
          speed: bool = True) -> CheckResult:
    """Compile ``source`` in place of the exercise's region, run every case, compare.

    Prints ``PASS ...`` or ``FAIL ...`` with the first failing case (what was expected, what
    came back), or the compiler's errors with the student's line numbers; without a GPU it
    only compiles (NVRTC or nvcc) and says that running needs a GPU.  Never raises for the
    student's mistakes: returns a :class:`CheckResult` (for grading: ``passed``, ``case``,
    ``message``).
    """
    ex = get(exercise_id)
    t0 = time.perf_counter()
    res = CheckResult(ex.id, None)
    if not isinstance(source, str) or not source.strip():
        res.passed, res.message = False, f"FAIL {ex.id}: the source is empty (a string of CUDA code is expected)"
        return _done(res, t0, verbose)
    text = assemble(ex.id, source)
    if not gpu.available():
        ok, log, backend = compile_only(text, _options(ex), f"{ex.module}.cu")
        res.backend, res.compiled = backend, ok
        reason = gpu.unavailable_reason()
        if ok is None:
            res.message = (f"{ex.id}: not compiled, not run: no GPU here ({reason}) and no CUDA compiler; "
                           f"{HOW_TO_COMPILE}.")
        elif not ok:
            res.passed = False
            res.case = "compile"
            res.message = f"FAIL {ex.id}: your code does not compile ({backend}):\n{compile_message(log, source)}"
        else:
            res.message = (f"{ex.id}: your code compiles ({backend}); running the checks needs a GPU "
                           f"(none here: {reason}).")
        return _done(res, t0, verbose)

    cp = gpu.require()
    res.backend = "CuPy (NVRTC)"
    try:
        mod = _cupy_module(cp, ex, text)
    except Exception as exc:  # cupy.cuda.compiler.CompileException carries the log
        res.passed, res.compiled, res.case = False, False, "compile"
        res.message = f"FAIL {ex.id}: your code does not compile:\n{compile_message(str(exc), source)}"
        return _done(res, t0, verbose)
    res.compiled = True
    for case in ex.cases(quick):
        try:
            got = ex.run(mod, case)
            cp.cuda.Device().synchronize()
            ex.verify(case, got)
        except Failure as exc:
            res.passed, res.case = False, case.name
            res.message = f"FAIL {ex.id}, case {case.name}:\n  {exc}"
            return _done(res, t0, verbose)
        except Exception as exc:  # a launch error (an illegal address poisons the CUDA context)
            res.passed, res.case = False, case.name
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            res.message = (f"FAIL {ex.id}, case {case.name}: the kernel failed: {type(exc).__name__}: {first}"
                           "\n  (an out-of-range access? after an illegal address, restart the Python kernel)")
            return _done(res, t0, verbose)
        res.cases_run += 1
    res.passed = True
    res.message = f"PASS {ex.id}: {res.cases_run} cases on {gpu.device_name()}"
    if speed and ex.speed is not None:
        try:
            suite = _cupy_module(cp, ex, assemble(ex.id))
            res.speed = ex.speed(mod, suite, quick)
            res.message += f"\n  {res.speed}"
        except Exception as exc:
            res.message += f"\n  (speed not measured: {type(exc).__name__}: {exc})"
    return _done(res, t0, verbose)


def _done(res: CheckResult, t0: float, verbose: bool) -> CheckResult:
    res.seconds = time.perf_counter() - t0
    if verbose:
        print(res.message)
    return res


# ------------------------------------------------------------------ helpers for the exercises

#: guard elements after every output a check allocates, filled with a canary value
PAD = 256


def padded(cp, values, pad: int = PAD, fill=None):
    """A device copy of ``values`` followed by ``pad`` canary elements (``fill``, default
    :func:`padded_fill`): a kernel that writes past the end changes them."""
    values = np.asarray(values)
    fill = padded_fill(values.dtype) if fill is None else fill
    host = np.concatenate([values.ravel(), np.full(pad, fill, dtype=values.dtype)])
    return cp.asarray(host)


def unpad(name: str, d, count: int, pad: int = PAD) -> np.ndarray:
    """The first ``count`` elements of a padded output; :class:`Failure` if a guard element changed."""
    h = d.get()
    tail = h[count:]
    bad = np.flatnonzero(tail != padded_fill(h.dtype))
    if bad.size:
        k = int(bad[0])
        raise Failure(f"{name}[{count + k}] was written, past the last element {name}[{count - 1}]: "
                      "a thread beyond the data wrote; is the bounds guard (index < count) missing?")
    return h[:count]


def padded_fill(dtype):
    """The canary of a dtype: -7 (integers, floats), the largest value (unsigned)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    return -7 if dtype.kind == "i" else -7.0


def first_mismatch(name: str, expected, got, index_names=None, hint: str = "") -> None:
    """Raise :class:`Failure` naming the first index where ``got`` differs from ``expected``."""
    expected, got = np.asarray(expected), np.asarray(got)
    if expected.shape != got.shape:
        raise Failure(f"{name}: expected shape {expected.shape}, got {got.shape}")
    diff = expected != got
    if expected.dtype.kind == "f":
        diff = ~((expected == got) | (np.isnan(expected) & np.isnan(got)))
    if diff.any():
        idx = tuple(int(i) for i in np.argwhere(diff)[0])
        where = ", ".join(f"{n}={i}" for n, i in zip(index_names, idx)) if index_names else ", ".join(map(str, idx))
        count = int(diff.sum())
        g = got[idx]
        shown = "never written" if (g == padded_fill(got.dtype)) else repr(_py(g))
        raise Failure(f"{name}[{where}]: expected {_py(expected[idx])!r}, got {shown}"
                      f" ({count} of {diff.size} entries wrong)" + (f"\n  {hint}" if hint else ""))


def _py(v):
    return v.item() if hasattr(v, "item") else v


def seeded(*key) -> np.random.Generator:
    """A generator seeded from the case's key: the same cases on every run."""
    return np.random.default_rng([ord(c) for c in "|".join(map(str, key))])


def blocks(count: int, block: int) -> int:
    return max(1, -(-count // block))

