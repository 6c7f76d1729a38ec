"""File formats: DIMACS ``.max`` (reader and writer) and the source report's text format.

DIMACS max-flow (1-based ids)::

    c a comment, allowed anywhere
    p max 4 5
    n 1 s
    n 4 t
    a 1 2 3

The report's format (0-based ids; ``n`` is the vertex count, source 0 and sink n-1 unless
given)::

    n 4
    e 0 1 3

Every malformed line raises a ``ValueError`` naming its line number (lines end at ``\n``,
``\r\n`` or ``\r``, as an editor counts them), and so do capacities that add up beyond the
solvers' range (parallel arcs, the two directions of a pair, the source's arcs): the line where
their sum passes the bound, with the lines of the arcs and the file's own vertex ids (1-based
in DIMACS); the readers of files (:func:`read_dimacs`,
:func:`read_text`, :func:`read`) add the file's name, also for a file that is not UTF-8 text.
A problem line whose network would not fit in host memory is refused there, before anything
is built (``force=True`` insists).
"""
from __future__ import annotations

import pathlib

import numpy as np

from .. import textfile
from .network import (INT32_MAX, MAX_CAPACITY, CapacityOverflow, FlowNetwork, check_network, from_edges,
                      guard_network)

__all__ = ["read_dimacs", "write_dimacs", "parse_dimacs", "read_text", "write_text", "parse_text", "read"]


def _lines(text, what: str):
    """The lines of ``text`` (a str; a UTF-8 byte-order mark at its start is dropped), for the
    parser ``what``, as :func:`gpualgo.textfile.lines` splits them; TypeError for anything but
    a str."""
    if not isinstance(text, str):
        raise TypeError(f"{what} takes the file's text as a str, got {type(text).__name__} "
                        "(read a file with read_dimacs, read_text or read)")
    return textfile.lines(text.removeprefix("\ufeff"))


def _ints(parts, line_no: int, what: str):
    # the formats' integers (gpualgo.textfile.integer): not Python's int(), which also takes
    # '1_000', digits of other scripts and thousands of digits
    try:
        return [textfile.integer(p) for p in parts]
    except ValueError as exc:
        raise ValueError(f"line {line_no}: {what} must be integers, got {textfile.quote(' '.join(parts))}: {exc}") from None


def _nodes(n: int, line_no: int, what: str) -> int:
    if n < 2 or n > INT32_MAX:
        raise ValueError(f"line {line_no}: need 2 <= {what} <= {INT32_MAX} (int32 vertex ids), got {n}")
    return n


def _capacity(c: int, line_no: int) -> int:
    if c < 0:
        raise ValueError(f"line {line_no}: negative capacity {c}")
    if c > MAX_CAPACITY:
        raise ValueError(f"line {line_no}: capacity {c} exceeds {MAX_CAPACITY} (int64 range of the solvers)")
    return c


#: the arc lines of the two formats: the first vertex id, the layout and the names of its
#: numbers (for the messages), and the message of an arc line before the network's size
_DIMACS_ARC = (1, "a TAIL HEAD CAPACITY", "TAIL, HEAD and CAPACITY", "arc line before the problem line 'p max ...'")
_TEXT_ARC = (0, "e U V CAPACITY", "U, V and CAPACITY", "edge line before 'n NODES'")


def _arc(parts, raw: str, line_no: int, n: int | None, form, arcs) -> None:
    """One arc line ``raw`` (split into ``parts``) of a network of ``n`` vertices (None before
    its size is given), in the format ``form`` (:data:`_DIMACS_ARC` or :data:`_TEXT_ARC`): its
    tail and head (0-based) and capacity appended to the lists ``arcs`` (tails, heads,
    capacities). ValueError naming the line: an arc line too early, another layout, numbers
    that are not integers, a vertex out of range, a bad capacity."""
    first, layout, numbers, early = form
    if n is None:
        raise ValueError(f"line {line_no}: {early}")
    if len(parts) != 4:
        raise ValueError(f"line {line_no}: expected '{layout}', got {textfile.quote(raw.strip())}")
    a, b, c = _ints(parts[1:], line_no, numbers)
    for x in (a, b):
        if not first <= x < first + n:
            raise ValueError(f"line {line_no}: node id {x} out of range {first}..{first + n - 1}")
    tails, heads, caps = arcs
    tails.append(a - first)
    heads.append(b - first)
    caps.append(_capacity(c, line_no))


def _lines_named(lines: list[int]) -> str:
    """``"lines 4 and 9"``, ``"lines 4, 5 and 9"``, or for many ``"lines 4, 5, ..., 9 (12 arcs)"``."""
    if len(lines) > 4:
        return f"lines {lines[0]}, {lines[1]}, ..., {lines[-1]} ({len(lines)} arcs)"
    return "line " + str(lines[0]) if len(lines) == 1 else f"lines {', '.join(map(str, lines[:-1]))} and {lines[-1]}"


def _build(text: str, form, n: int, arcs, source: int, sink, force: bool) -> FlowNetwork:
    """The network of the arcs read from ``text`` in the format ``form`` (:data:`_DIMACS_ARC` or
    :data:`_TEXT_ARC`): :func:`~gpualgo.maxflow.network.from_edges` on them, its refusal of
    capacities adding up beyond the solvers' range worded as the file names things (its vertex
    ids; the line where the sum passed the bound, and the lines of the arcs summed)."""
    us, vs, cs = arcs
    try:
        return from_edges(n, np.array(us, dtype=np.int64), np.array(vs, dtype=np.int64),
                          np.array(cs, dtype=np.int64), source, sink, force=force)
    except CapacityOverflow as exc:
        raise _overflow(exc, text, form, arcs) from None


def _overflow(exc: CapacityOverflow, text: str, form, arcs) -> ValueError:
    """``exc`` of the arcs ``arcs`` read from ``text`` (the arc lines, in order), as the file
    names things: the arcs it is about, from the first, summed in file order up to the line where
    the sum passes ``exc.limit``, which the message opens with."""
    first, layout, _, _ = form
    token = layout.split()[0]                           # what opens an arc line: 'a' or 'e'
    us, vs, cs = arcs
    t, h = exc.tail, exc.head
    at = (no for no, raw in enumerate(_lines(text, "the reader"), 1) if raw.split()[:1] == [token])   # arc lines
    total, lines = 0, []
    for u, v, c, no in zip(us, vs, cs, at):
        if exc.kind == "source":
            hit = u == t and v != t                     # a self loop is dropped
        elif exc.kind == "merged":
            hit = u == t and v == h
        else:
            hit = (u == t and v == h) or (u == h and v == t)
        if hit:
            total += c
            lines.append(no)
            if total > exc.limit:
                break
    if not lines or total <= exc.limit:                 # not found in the file: say it as given
        return ValueError(str(exc))
    a, b = t + first, (h + first if h is not None else None)
    arcs_of = {"merged": f"{a} -> {b}", "pair": f"{a} -> {b} and {b} -> {a}", "source": f"leaving the source {a}"}
    why = {"merged": "parallel arcs are merged into one, of at most MAX_CAPACITY",
           "pair": "a residual capacity could overflow int64",
           "source": "a flow value or an excess could overflow int64"}
    return ValueError(f"line {lines[-1]}: the arcs {arcs_of[exc.kind]} on {_lines_named(lines)} have capacities "
                      f"adding up to {total} > {exc.limit}: {why[exc.kind]}")


def _guard(n: int, arcs: int, line_no: int, force: bool) -> None:
    """The host-memory refusal of a network announced on line ``line_no``, naming the line."""
    try:
        guard_network(n, arcs, "the network", force)
    except ValueError as exc:
        raise ValueError(f"line {line_no}: {exc}") from None


def _in_file(path, parse, *args, **kwargs) -> FlowNetwork:
    """``parse(text of path, ...)``, its ValueErrors prefixed with the file's name (those of a
    line: ``"{path}: line {N}: ..."``)."""
    text = textfile.read_text(path, "network file")
    try:
        return parse(text, *args, **kwargs)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def parse_dimacs(text: str, force: bool = False) -> FlowNetwork:
    """Parse DIMACS max-flow text (see the module docstring). ``force``: build the network even
    when the problem line announces one that would not fit in host memory."""
    n = m = None
    source = sink = None
    us, vs, cs = [], [], []
    for no, raw in enumerate(_lines(text, "parse_dimacs"), 1):
        parts = raw.split()
        if not parts or parts[0].startswith("c"):     # a comment line begins with c ('c---' too)
            continue
        kind = parts[0]
        if kind == "p":
            if n is not None:
                raise ValueError(f"line {no}: a second problem line 'p'")
            if len(parts) != 4 or parts[1] != "max":
                raise ValueError(f"line {no}: expected 'p max NODES ARCS', got {textfile.quote(raw.strip())}")
            n, m = _ints(parts[2:], no, "NODES and ARCS")
            _nodes(n, no, "NODES")
            if m < 0:
                raise ValueError(f"line {no}: need ARCS >= 0, got {m}")
            _guard(n, m, no, force)
            p_line = no
        elif kind == "n":
            if n is None:
                raise ValueError(f"line {no}: node line before the problem line 'p max ...'")
            if len(parts) != 3 or parts[2] not in ("s", "t"):
                raise ValueError(f"line {no}: expected 'n ID s' or 'n ID t', got {textfile.quote(raw.strip())}")
            (vid,) = _ints(parts[1:2], no, "ID")
            if not 1 <= vid <= n:
                raise ValueError(f"line {no}: node id {vid} out of range 1..{n}")
            if parts[2] == "s":
                if source is not None:
                    raise ValueError(f"line {no}: a second source")
                source = vid - 1
            else:
                if sink is not None:
                    raise ValueError(f"line {no}: a second sink")
                sink = vid - 1
            if source is not None and source == sink:
                raise ValueError(f"line {no}: node {vid} is both the source and the sink")
        elif kind == "a":
            _arc(parts, raw, no, n, _DIMACS_ARC, (us, vs, cs))
        else:
            raise ValueError(f"line {no}: unknown line type {textfile.quote(kind)} (expected c, p, n or a)")
    if n is None:
        raise ValueError("no problem line 'p max NODES ARCS' (empty file?)")
    if source is None or sink is None:
        raise ValueError(f"missing {'source' if source is None else 'sink'} line 'n ID {'s' if source is None else 't'}'")
    if len(us) != m:
        raise ValueError(f"line {p_line}: the problem line announces {m} arcs but the file has {len(us)}")
    return _build(text, _DIMACS_ARC, n, (us, vs, cs), source, sink, force=True)


def read_dimacs(path, force: bool = False) -> FlowNetwork:
    """Read a DIMACS ``.max`` file; errors name the file (and the line)."""
    return _in_file(path, parse_dimacs, force=force)


def write_dimacs(net: FlowNetwork, path, comment: str | None = None) -> None:
    """Write ``net`` as a DIMACS ``.max`` file (the merged arcs of positive capacity); ``comment``
    (a str) becomes its ``c`` lines. ValueError for what is not a FlowNetwork, or one whose
    arrays are inconsistent (:func:`~gpualgo.maxflow.network.check_network`)."""
    check_network(net)
    if comment is not None and not isinstance(comment, str):
        raise ValueError(f"comment must be a str, got {type(comment).__name__}")
    u, v, c = net.arcs()
    lines = [f"c {line}" for line in (comment or "").splitlines()]
    lines += [f"p max {net.n} {u.size}", f"n {net.source + 1} s", f"n {net.sink + 1} t"]
    lines += [f"a {a + 1} {b + 1} {w}" for a, b, w in zip(u.tolist(), v.tolist(), c.tolist())]
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def parse_text(text: str, source: int = 0, sink: int | None = None, force: bool = False) -> FlowNetwork:
    """Parse the report's text format (``n N`` then ``e u v c`` lines, 0-based). ``force``:
    build the network even when it would not fit in host memory."""
    n = None
    us, vs, cs = [], [], []
    for no, raw in enumerate(_lines(text, "parse_text"), 1):
        parts = raw.split()
        if not parts or parts[0].startswith("#"):
            continue
        if parts[0] == "n":
            if n is not None:
                raise ValueError(f"line {no}: a second 'n' line")
            if len(parts) != 2:
                raise ValueError(f"line {no}: expected 'n NODES', got {textfile.quote(raw.strip())}")
            (n,) = _ints(parts[1:], no, "NODES")
            _nodes(n, no, "NODES")
            _guard(n, 0, no, force)
        elif parts[0] == "e":
            _arc(parts, raw, no, n, _TEXT_ARC, (us, vs, cs))
        else:
            raise ValueError(f"line {no}: unknown line type {textfile.quote(parts[0])} (expected n or e)")
    if n is None:
        raise ValueError("no 'n NODES' line (empty file?)")
    return _build(text, _TEXT_ARC, n, (us, vs, cs), source, sink, force)


def read_text(path, source: int = 0, sink: int | None = None, force: bool = False) -> FlowNetwork:
    """Read the report's ``.txt`` format; errors name the file (and the line)."""
    return _in_file(path, parse_text, source, sink, force=force)


def write_text(net: FlowNetwork, path) -> None:
    """Write the report's ``.txt`` format.

    The format stores no terminals: a reader takes source 0 and sink n - 1, so a network
    with other terminals is refused (ValueError); write it with :func:`write_dimacs`.
    """
    if (net.source, net.sink) != (0, net.n - 1):
        raise ValueError(f"the text format implies source 0 and sink {net.n - 1}; this network has "
                         f"source {net.source} and sink {net.sink}: use write_dimacs")
    u, v, c = net.arcs()
    lines = [f"n {net.n}"] + [f"e {a} {b} {w}" for a, b, w in zip(u.tolist(), v.tolist(), c.tolist())]
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def read(path, force: bool = False) -> FlowNetwork:
    """Read by extension, as the report's program does: ``.max`` DIMACS, else text."""
    return read_dimacs(path, force) if str(path).lower().endswith(".max") else read_text(path, force=force)
