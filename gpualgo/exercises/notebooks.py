"""The exercise notebooks, made from the registered exercises.

``python -m gpualgo.exercises.notebooks --check`` compares every notebook of
``notebooks/exercises/`` with the one made here and names the first notebook and cell that
differ (exit status 1); ``--write`` rewrites them.  A change to an exercise (its title, what it
teaches, its signature, its stub, its hints, its cases) therefore reaches its notebook with
``--write``, never by hand.

A problem's notebook is its title, the ``parameters`` cell, the imports, then for each of the
problem's exercises (in course order: :func:`gpualgo.exercises.all_exercises`) a section of three
cells: the spec (title, tier, what it teaches, the signature, the cases the check runs, the
hints), the starter (``source_<topic> = r'''...'''``) and the check; it ends with what to take
away.  The prose that is not an exercise's lives here, in :data:`NOTEBOOKS`: the notebooks'
titles, the measuring notebook's cells, the closing words.

Cell ids are kept: each notebook lists the ids of its cells by role (``ids``); a cell with no id
listed (a new exercise) gets one made from the notebook's name and its role, so the same on
every run.  The files are nbformat 4.5 JSON, written as nbformat writes it (keys sorted, indent 1,
the text as is) with the standard library.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import pathlib
import sys
import textwrap

from . import all_exercises
from .core import TIERS, Exercise

__all__ = ["Notebook", "Cell", "NOTEBOOKS", "FOLDER", "build", "render", "generated", "unplaced", "differences",
           "write", "main"]

#: where the notebooks are committed
FOLDER = pathlib.Path(__file__).resolve().parents[2] / "notebooks" / "exercises"


def prose(text: str) -> str:
    """Markdown written wrapped in this file, as the notebook holds it: each paragraph (text
    between blank lines) on one line."""
    paragraphs = textwrap.dedent(text).strip().split("\n\n")
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


def code(text: str) -> str:
    """A code cell's source written indented in this file."""
    return textwrap.dedent(text).strip("\n")


def hints(texts) -> str:
    """Each hint folded in a ``<details>`` block: "Hint 1", "Hint 2", ... ("Hint" when one)."""
    labels = ["Hint"] if len(texts) == 1 else [f"Hint {k}" for k in range(1, len(texts) + 1)]
    return "\n\n".join(f"<details><summary>{label}</summary>\n\n{text}\n\n</details>"
                       for label, text in zip(labels, texts))


@dataclasses.dataclass(frozen=True)
class Cell:
    """A cell of a notebook's own (not made from an exercise): ``kind`` is ``"markdown"`` or
    ``"code"``."""
    kind: str
    id: str
    source: str


@dataclasses.dataclass(frozen=True)
class Notebook:
    """One exercise notebook: ``name`` (the file's stem, ``"01_tsp"``), its ``title`` (after
    ``# Exercises NN · ``) and either a ``problem`` (its exercises make the body) or its own
    ``intro`` and ``cells``; ``closing`` is the last cell (default :data:`TAKE_AWAY`); ``ids``
    the cell ids by role (``"title"``, ``"parameters"``, ``"imports"``, ``"closing"``, and for an
    exercise its id: three ids, the spec's, the starter's and the check's, separated by spaces)."""
    name: str
    title: str
    ids: dict
    problem: str | None = None
    intro: str = ""
    imports: str = ""
    cells: tuple = ()
    closing: str = ""

    @property
    def number(self) -> str:
        return self.name.split("_", 1)[0]

    def cell_ids(self, role: str, count: int = 1) -> list[str]:
        """The ids of the ``count`` cells of ``role``: as listed, else made from name and role."""
        if role in self.ids:
            ids = self.ids[role].split()
            if len(ids) != count:
                raise ValueError(f"{self.name}: {count} cell ids wanted for {role!r}, {len(ids)} listed")
            return ids
        return [hashlib.sha1(f"{self.name}/{role}/{k}".encode()).hexdigest()[:8] for k in range(count)]


PARAMETERS = code("""
    solutions: bool = False  # True fills in the suite's own code (make run sets it)
    quick: bool = True  # small cases
    interactive: bool = False  # unused here, set by the notebook runner
""")

EXERCISE_IMPORTS = code("""
    from gpualgo import exercises, nbtools

    nbtools.check_parameters(globals())   # every parameter as the cell above declares it
    nbtools.gpu_banner()
""")

#: the paragraph above a problem's list of exercises
ABOUT = prose("""
    Write parts of the suite's own {files} kernels, then check them: each check compiles your
    code with the rest of the real module around it, runs it on fixed cases on the GPU (edges
    included) and compares the answers with the suite's independent references. It prints PASS
    or the first failing case.
""")

#: the paragraph below it
WITHOUT_A_GPU = prose("""
    Without a GPU the check compiles your code (NVRTC or nvcc) and shows the errors with your
    line numbers; running needs a GPU. The course page, `notebooks/exercises/README.md`, gives
    the order and the tracks.
""")

TAKE_AWAY = prose("""
    ## What to take away

    The code you wrote is the suite's own: compare it with `exercises.solution(id)` and see it
    at work in the algorithm's notebook (`notebooks/`). A lecturer grades with the same checks:
    `exercises.check(id, source).passed`.
""")

#: what the measuring notebook says and runs (its exercise, ``measure.bytes``, is no
#: registered exercise: ``gpualgo/exercises/measure.py`` holds its model and its check)
MEASURING = (
    Cell("markdown", "764c0890", prose("""
        ## 1 · Timing

        The first launch compiles and loads the module: never time it. Time with CUDA events
        around the launch on the GPU's stream (host timers measure the launch call, which
        returns before the kernel ends), repeat, take the median.
        `cupyx.profiler.benchmark` does the same for you.
    """)),
    Cell("code", "0540e9f6", code("""
        if gpu.available():
            count, n = (1 << 20, 12) if quick else (1 << 24, 12)
            launch = measure.tour_cost_setup(count, n)
            ms_events = measure.time_events(launch)
            ms_cupyx = measure.time_cupyx(launch)
            print(f'events: {ms_events:.3f} ms, cupyx.profiler.benchmark: {ms_cupyx:.3f} ms')
        else:
            print('No GPU here: the timings need one (', gpu.unavailable_reason(), ')')
    """)),
    Cell("markdown", "517cc95e", prose("""
        ## 2 · Count the bytes

        Write `bytes_moved(count, n)`: the bytes one launch moves to and from DRAM. Each thread
        reads its order (one byte per city after city 0) and writes one `int` cost; W (n x n
        ints) is read by every thread but stays in the caches.
    """) + "\n\n" + hints(["`count * (n - 1)` bytes read, `4 * count` written."])),
    Cell("code", "7bba9406", code("""
        def bytes_moved(count, n):
            return 0  # TODO
    """)),
    Cell("code", "b570cf1c", code("""
        if solutions:
            bytes_moved = measure.bytes_model
        passed = measure.check_bytes(bytes_moved)
    """)),
    Cell("markdown", "d10325a8", prose("""
        ## 3 · The roofline

        The roof: the measured copy bandwidth times the operational intensity, capped at the
        measured integer throughput. The kernel does about 2 integer operations per edge (an
        address and an add), n edges per order.
    """)),
    Cell("code", "a8172134", code("""
        if gpu.available():
            bw, peak = measure.copy_bandwidth(), measure.int_throughput()
            ops = 2 * n * count
            nbytes = measure.bytes_model(count, n)
            print(f'copy bandwidth {bw:.0f} GB/s, integer throughput {peak:.0f} Gops/s; the kernel: {nbytes / ms_events / 1e6:.0f} GB/s')
            measure.roofline({'tour_cost_kernel': (ops / nbytes, ops / ms_events / 1e6)}, bw, peak)
        else:
            import matplotlib.pyplot as plt
            print('No GPU here: the roof below uses nominal H100 figures (3350 GB/s, about 30000 Gops/s); measure yours on a GPU.')
            measure.roofline({}, 3350.0, 30000.0)
            plt.show()
    """)),
    Cell("markdown", "1cbd0561", prose("""
        ## 4 · An Nsight Compute report

        The command below profiles one launch (after two warm-up launches). Open the report with
        `ncu-ui`, or print it with `ncu --import build/tour_cost.ncu-rep --page details`. Read
        these sections:
    """)),
    Cell("code", "f6e612a2", code("""
        print(measure.ncu_command())
        for section, what in measure.NCU_SECTIONS.items():
            print(f'- {section}: {what}')
        print('Compare the DRAM bytes it reports with your bytes_moved, and its DRAM throughput with the copy bandwidth above.')
    """)),
)

#: the notebooks, in course order
NOTEBOOKS = (
    Notebook("01_tsp", "The travelling salesman", problem="tsp", ids={
        "title": "e572a389", "parameters": "307d7e91", "imports": "ea6f2444",
        "tsp.tour_cost": "f6716810 1ec65439 a410f4f1", "tsp.block_argmin": "6ebe835d b72e5edc c744ac49",
        "tsp.held_karp_layer": "650020a8 6a5b116e 15552868", "tsp.shared_matrix": "6c2aa18e e346e09a 952e1895",
        "closing": "d0803984"}),
    Notebook("02_auction", "The auction", problem="auction", ids={
        "title": "112f3750", "parameters": "ff43ea5d", "imports": "3031f4f2",
        "auction.top2": "6a27d987 de262e0d 53b82556", "auction.bid_key": "5af22df9 898860e5 5ab4d5bb",
        "auction.assign_winner": "95abb9ef 33586a09 666453b5", "closing": "35ae03e9"}),
    Notebook("03_maxflow", "Push-relabel maximum flow", problem="maxflow", ids={
        "title": "2dc1a560", "parameters": "f1ea3d5a", "imports": "76763305",
        "maxflow.gather": "ac74da8f a24a9450 41432639", "maxflow.queue_slot": "2842687e 86ea331f cdd4715e",
        "maxflow.push_relabel": "9e98c9fc 755813b5 08f15c65", "closing": "68386a24"}),
    Notebook("04_dgs", "Deep Greedy Switching", problem="dgs", ids={
        "title": "5cabdbce", "parameters": "0958ec75", "imports": "8c1bad86",
        "dgs.row_max": "2736ece1 d146dd35 a67d5d0d", "dgs.ade_row": "9d31d8fe 61ca8aaa 9f1bdeaf",
        "dgs.ade_cells_shared": "b2bdb39d 005542b3 2c42ced4", "closing": "4fdc0410"}),
    Notebook("05_coalitions", "Coalition structures", problem="coalitions", ids={
        "title": "d58ffffd", "parameters": "784edfe8", "imports": "6ada0009",
        "coalitions.splits": "e36e4dfe 481a77dd ab423f42", "coalitions.atomic_max": "6aeb385f 895f71d3 4d510b1f",
        "coalitions.warp_max": "3721d133 ba4a8725 4da32150", "closing": "8e950c00"}),
    Notebook("06_measuring", "Measuring a kernel", ids={
        "title": "f97c803f", "parameters": "02e7af72", "imports": "a4971eeb", "closing": "6ec9f399"},
        intro=prose("""
            Time `tour_cost_kernel` (your first TSP exercise) properly, count the bytes it moves,
            place it on a roofline drawn from this GPU's measured copy bandwidth and integer
            throughput, and read an Nsight Compute report of it.

            **What you will learn**: warm-up and CUDA events; `cupyx.profiler.benchmark`; a byte
            count; the roofline; `ncu`.
        """),
        imports=code("""
            from gpualgo import gpu, nbtools
            from gpualgo.exercises import measure

            nbtools.check_parameters(globals())   # every parameter as the cell above declares it
            nbtools.gpu_banner()
        """),
        cells=MEASURING,
        closing=prose("""
            ## What to take away

            Warm up, time with events, take a median; know how many bytes a kernel must move; a
            kernel far below its roof has room, one at its roof needs fewer bytes or fewer
            operations, not more threads.
        """)),
)


# ------------------------------------------------------------------ the cells

def _markdown(cell_id: str, source: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


def _code(cell_id: str, source: str, tags: tuple = ()) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": cell_id,
            "metadata": {"tags": list(tags)} if tags else {}, "outputs": [], "source": source}


def topic(ex: Exercise) -> str:
    """The part of the id after the problem: the starter's variable is ``source_<topic>``."""
    return ex.id.split(".", 1)[1]


def spec(ex: Exercise, number: int) -> str:
    """The markdown above an exercise's starter."""
    cases = "; ".join(c.name for c in ex.cases(True))
    parts = [f"## {number} · {ex.title} (`{ex.id}`, tier {ex.tier})",
             f"*{ex.teaches[:1].upper()}{ex.teaches[1:]}.*",
             "Your code goes inside:",
             f"```cuda\n{ex.signature}\n```",
             f"**What it must do**: the comment in the cell below. **What the check verifies**: {cases}."]
    return "\n\n".join(parts + ([hints(ex.hints)] if ex.hints else []))


def _exercise_cells(nb: Notebook, ex: Exercise, number: int) -> list[dict]:
    var = f"source_{topic(ex)}"
    ids = nb.cell_ids(ex.id, 3)
    return [_markdown(ids[0], spec(ex, number)),
            _code(ids[1], f"{var} = r'''\n{ex.stub}'''"),  # the starter: exercises.starter(id)
            _code(ids[2], f"if solutions:\n    {var} = exercises.solution({ex.id!r})\n"
                          f"result = exercises.check({ex.id!r}, {var}, quick=quick)")]


def _intro(exs: list[Exercise]) -> str:
    files = " and ".join(dict.fromkeys(f"`{e.module}.cu`" for e in exs))
    listed = "\n".join(f"{k}. `{e.id}` (tier {e.tier}, {TIERS[e.tier]}): {e.title}. *{e.teaches}.*"
                       for k, e in enumerate(exs, 1))
    return "\n\n".join([ABOUT.format(files=files), f"**Exercises**\n\n{listed}", WITHOUT_A_GPU])


def build(nb: Notebook, exercises: list[Exercise] | None = None) -> dict:
    """The notebook ``nb`` as a JSON-ready dict (nbformat 4.5, no outputs)."""
    if nb.problem:
        exs = [e for e in (exercises if exercises is not None else all_exercises())
               if e.id.split(".")[0] == nb.problem]
        if not exs:
            raise ValueError(f"{nb.name}: no exercise of the problem {nb.problem!r} is registered")
        intro, imports = _intro(exs), EXERCISE_IMPORTS
    else:
        exs, intro, imports = [], nb.intro, nb.imports
    cells = [_markdown(nb.cell_ids("title")[0], f"# Exercises {nb.number} · {nb.title}\n\n{intro}"),
             _code(nb.cell_ids("parameters")[0], PARAMETERS, tags=("parameters",)),
             _code(nb.cell_ids("imports")[0], imports)]
    for k, ex in enumerate(exs, 1):
        cells += _exercise_cells(nb, ex, k)
    cells += [_markdown(c.id, c.source) if c.kind == "markdown" else _code(c.id, c.source) for c in nb.cells]
    cells.append(_markdown(nb.cell_ids("closing")[0], nb.closing or TAKE_AWAY))
    for c in cells:
        c["source"] = c["source"].splitlines(keepends=True)
    return {"cells": cells,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


def render(nb: dict) -> str:
    """The file's text, as nbformat writes it."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def unplaced(exercises: list[Exercise]) -> list[str]:
    """The ids of the exercises whose problem has no notebook."""
    problems = {nb.problem for nb in NOTEBOOKS}
    return [e.id for e in exercises if e.id.split(".")[0] not in problems]


def generated() -> dict[str, str]:
    """``{file name: text}`` of every notebook; ValueError when an exercise has no notebook."""
    exs = all_exercises()
    if lost := unplaced(exs):
        raise ValueError(f"exercises of no notebook: {', '.join(lost)} (add the problem to NOTEBOOKS)")
    return {f"{nb.name}.ipynb": render(build(nb, exs)) for nb in NOTEBOOKS}


# ------------------------------------------------------------------ check and write

def _first_difference(name: str, want: str, have: str) -> str:
    """Where ``have`` (the committed file) first differs from ``want`` (the generated one)."""
    try:
        have_nb = json.loads(have)
    except ValueError as exc:
        return f"{name}: not a JSON notebook ({exc})"
    want_nb = json.loads(want)
    wc, hc = want_nb["cells"], have_nb.get("cells", [])
    for k, (w, h) in enumerate(zip(wc, hc)):
        if w == h:
            continue
        where = f"{name}: cell {k} (id {w['id']})"
        if w.get("source") != h.get("source"):
            wl, hl = "".join(w["source"]).splitlines(), "".join(h.get("source", [])).splitlines()
            n = next((i for i, (a, b) in enumerate(zip(wl, hl)) if a != b), min(len(wl), len(hl)))
            line = wl[n] if n < len(wl) else "(the end of the cell)"
            return f"{where}, line {n + 1} of its source: expected {line[:100]!r}"
        key = next(key for key in sorted(set(w) | set(h)) if w.get(key) != h.get(key))
        return f"{where}: its {key} differs: expected {w.get(key)!r}, found {h.get(key)!r}"
    if len(wc) != len(hc):
        return f"{name}: {len(hc)} cells, {len(wc)} expected"
    key = next((key for key in sorted(set(want_nb) | set(have_nb)) if want_nb.get(key) != have_nb.get(key)), None)
    if key:
        return f"{name}: the notebook's {key} differs: expected {want_nb.get(key)!r}, found {have_nb.get(key)!r}"
    return f"{name}: the same cells, formatted differently"


def differences(folder: pathlib.Path = FOLDER) -> list[str]:
    """One line for each notebook of ``folder`` that differs from the generated one, missing,
    or not made here; empty when they all agree."""
    folder = pathlib.Path(folder)
    out = []
    made = generated()
    for name, text in made.items():
        path = folder / name
        if not path.is_file():
            out.append(f"{_shown(path)}: missing")
        elif (have := path.read_text(encoding="utf-8")) != text:
            out.append(_first_difference(_shown(path), text, have))
    out += [f"{_shown(p)}: not made by the generator (add it to NOTEBOOKS)"
            for p in sorted(folder.glob("*.ipynb")) if p.name not in made]
    return out


def _shown(path: pathlib.Path) -> str:
    """``path`` relative to the working directory where it lies below it."""
    try:
        return str(path.resolve().relative_to(pathlib.Path.cwd()))
    except ValueError:
        return str(path)


def write(folder: pathlib.Path = FOLDER) -> list[str]:
    """Write every notebook that differs; returns the names written."""
    folder = pathlib.Path(folder)
    written = []
    for name, text in generated().items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(name)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpualgo.exercises.notebooks",
                                 description=__doc__.split("\n\n")[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--check", action="store_true",
                      help="exit 1, naming the first differing notebook and cell, when a committed notebook "
                           "differs from the generated one")
    what.add_argument("--write", action="store_true", help="rewrite the notebooks that differ")
    ap.add_argument("--dir", type=pathlib.Path, default=FOLDER, help=f"the notebooks' folder (default {FOLDER})")
    args = ap.parse_args(argv)
    if args.write:
        written = write(args.dir)
        print(f"wrote {', '.join(written)}" if written else "every notebook is up to date")
        return 0
    diffs = differences(args.dir)
    if diffs:
        print(diffs[0])
        if len(diffs) > 1:
            print(f"(and {len(diffs) - 1} more: {', '.join(d.split(':')[0] for d in diffs[1:])})")
        print("python -m gpualgo.exercises.notebooks --write makes them again from the exercises")
        return 1
    print(f"the {len(NOTEBOOKS)} exercise notebooks are the generated ones")
    return 0


if __name__ == "__main__":
    sys.exit(main())
