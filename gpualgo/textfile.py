"""Reading the problems' text files: one reader, one way to count lines, one wording of errors.

Every text format of the package (DIMACS and the report's network text, TSPLIB, the
assignment's batch config, the coalitions' value files) is read through this module:

- :func:`read_text`: the whole file as a str, UTF-8, one leading byte-order mark dropped;
- :func:`read_lines`: the same lines one at a time, for a file too large to hold twice;
- :func:`lines`: a text's lines;
- :func:`line_error`: the error of a bad line, worded ``"{path}: line {N}: {message}"``;
- :func:`check_file`: the refusal of a directory or of a missing file;
- :func:`integer` and :func:`decimal`: a number as every format writes one.

Numbers are written in ASCII: an optional sign and the digits 0-9 for an integer, and for a
decimal also a point and an exponent (``1``, ``-2.5``, ``.5``, ``3.``, ``1e-3``, ``6.7E+03``).
Python's ``int`` and ``float`` take more than that, and what a file means must not depend on
it: ``1_000``, digits of other scripts (``\u0661\u0662``), ``nan``, ``inf`` and ``infinity``
are refused, as is a number of more than :data:`MAX_DIGITS` digits (beyond every range the
formats allow, and far from Python's own limit of 4300, whose error names no line).

A line ends at ``\\n``, ``\\r\\n`` or ``\\r``, as an editor counts lines, and nowhere else:
``str.splitlines`` also breaks at ``\\x0b``, ``\\x0c``, ``\\x1c``-``\\x1e``, U+0085, U+2028 and U+2029,
which would turn the rest of a comment into a line of data and number the lines after it
wrongly. A break at the very end of the text opens no further line.

>>> lines("p max 2 1\\r\\nc a\\u2028comment\\x0c\\rlast\\n")
['p max 2 1', 'c a\\u2028comment\\x0c', 'last']
>>> lines(""), lines("\\n")
([], [''])
>>> str(line_error("net.max", 3, "node id 9 out of range 1..4"))
'net.max: line 3: node id 9 out of range 1..4'
>>> integer("-12"), decimal("6.7E+03"), decimal(".5")
(-12, 6700.0, 0.5)
>>> integer("1_000")
Traceback (most recent call last):
ValueError: '1_000' is not an integer (ASCII digits 0-9 with an optional sign)
"""
from __future__ import annotations

import numbers
import os
import re
from typing import Iterator

__all__ = ["read_text", "read_lines", "lines", "line_error", "check_file", "NoSuchFile", "integer", "decimal",
           "is_integer", "is_decimal", "MAX_DIGITS", "quote"]

#: the line breaks of every format
_BREAK = re.compile(r"\r\n|\r|\n")
_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")
_BOM = "\ufeff"
#: bytes read at a time by :func:`read_lines`
_CHUNK = 1 << 20
#: the most digits a number may have
MAX_DIGITS = 100
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _digits(token: str) -> int:
    return sum(c.isdigit() for c in token.partition("e")[0].partition("E")[0])


def is_integer(token: str) -> bool:
    """Whether ``token`` is an integer as the formats write one (see the module's text)."""
    return isinstance(token, str) and _INTEGER.fullmatch(token) is not None and _digits(token) <= MAX_DIGITS


def is_decimal(token: str) -> bool:
    """Whether ``token`` is a decimal number as the formats write one (an integer is one too)."""
    return isinstance(token, str) and _DECIMAL.fullmatch(token) is not None and _digits(token) <= MAX_DIGITS


def quote(text, limit: int = 60) -> str:
    """``repr(text)`` for an error message, cut to about ``limit`` characters (a line of a
    million characters must not become a message of a million characters). A value that is
    not a str (an argument as given: a number of 300 digits) is shown as a number is printed
    (numpy's too), anything else by its ``repr``, cut the same way.

    >>> quote("a 1 2 3"), quote("7" * 100, 20), quote(-5), quote(10**100, 20)
    ("'a 1 2 3'", "'7777777777'... (100 characters)", '-5', '1000000000... (101 characters)')
    """
    if not isinstance(text, str):
        shown = str(text) if isinstance(text, numbers.Number) else repr(text)   # 5, not np.int64(5)
        return shown if len(shown) <= limit else f"{shown[:limit // 2]}... ({len(shown)} characters)"
    return repr(text) if len(text) <= limit else f"{text[:limit // 2]!r}... ({len(text)} characters)"


def _refuse(token, kind: str, form: str, grammar) -> ValueError:
    shown = quote(token, 40)
    if isinstance(token, str) and grammar.fullmatch(token):
        return ValueError(f"{shown} has more than {MAX_DIGITS} digits")
    return ValueError(f"{shown} is not {kind} ({form})")


def integer(token: str) -> int:
    """``token`` as an int; ValueError naming it when it is not an integer as the formats
    write one (the caller adds the file and line)."""
    if not is_integer(token):
        raise _refuse(token, "an integer", "ASCII digits 0-9 with an optional sign", _INTEGER)
    return int(token)


def decimal(token: str) -> float:
    """``token`` as a finite float; ValueError naming it when it is not a number as the
    formats write one, or when it is beyond the range of a float (``1e999``)."""
    if not is_decimal(token):
        raise _refuse(token, "a number", "ASCII digits with an optional sign, point and exponent", _DECIMAL)
    v = float(token)
    if v in (float("inf"), float("-inf")):
        raise ValueError(f"{quote(token, 40)} is beyond the range of a float")
    return v


class NoSuchFile(FileNotFoundError, ValueError):
    """A file that does not exist: a ValueError naming the path, as every refusal of a bad
    input is, and still the FileNotFoundError that ``open`` raises."""


def line_error(path, line: int, message: str, error: type = ValueError) -> Exception:
    """The exception (of class ``error``) for line ``line`` of the file ``path``:
    ``"{path}: line {line}: {message}"``. Raise it ``from None``."""
    return error(f"{path}: line {line}: {message}")


def check_file(path, what: str = "file", error: type = ValueError) -> None:
    """Refuse ``path`` when it is not a path at all (TypeError: an int would be taken for an open
    file descriptor, read and closed), a directory (``error``, naming it and the ``what`` expected
    there) or does not exist (:class:`NoSuchFile`)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"a {what} is read from a path (str or os.PathLike), got {type(path).__name__} {path!r:.40}")
    if os.path.isdir(path):
        raise error(f"{path}: is a directory, not a {what}")
    if not os.path.exists(path):
        raise NoSuchFile(f"{path}: no such file (expected a {what})")


def _not_utf8(path, data: bytes, start: int, line: int, offset: int, error: type) -> Exception:
    """The error of the byte ``data[start]``, on line ``line`` at ``offset`` in the file."""
    return line_error(path, line, f"not UTF-8 text (byte {data[start]:#04x} at offset {offset})", error)


def read_text(path, what: str = "file", error: type = ValueError) -> str:
    """The text of the file ``path``: UTF-8, one leading byte-order mark dropped.

    Raises ``error`` (a ValueError by default) naming the file: a directory (worded with
    ``what``, the kind of file expected), bytes that are not UTF-8 (with their line, value
    and offset); :class:`NoSuchFile` for a missing file.
    """
    check_file(path, what, error)
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = len(_BREAK_BYTES.findall(data, 0, exc.start)) + 1
        raise _not_utf8(path, data, exc.start, line, exc.start, error) from None
    return text.removeprefix(_BOM)


def lines(text: str) -> list[str]:
    """The lines of ``text``, split at ``\\n``, ``\\r\\n`` and ``\\r`` only, without their
    breaks; a break at the end opens no further line (so ``len`` is the last line's number)."""
    out = _BREAK.split(text)
    if out[-1] == "":
        out.pop()
    return out


def read_lines(path, what: str = "file", error: type = ValueError) -> Iterator[str]:
    """The lines of the file ``path`` one at a time (line ``k`` is the ``k``-th item), as
    ``lines(read_text(path))`` gives them, holding one block of the file at a time.

    The file is checked (:func:`check_file`) at the call; bytes that are not UTF-8 raise
    ``error`` naming their line as they are reached.
    """
    check_file(path, what, error)
    return _stream(path, error)


def _stream(path, error: type) -> Iterator[str]:
    """:func:`read_lines`' generator: a block at a time, each decoded and split at once up to
    its last line break (the bytes after it wait for the next block: they may end inside a
    character or be the \r of a \r\n)."""
    with open(path, "rb") as fh:
        carry, base, line, first = b"", 0, 1, True    # base: the file offset of carry[0]
        while True:
            block = fh.read(_CHUNK)
            data = carry + block
            if block:
                end = data.rfind(b"\n") + 1 or data.rfind(b"\r", 0, len(data) - 1) + 1
                if not end:
                    carry = data
                    continue
                head, carry = data[:end], data[end:]
            else:
                head, carry = data, b""
            try:
                text = head.decode("utf-8")
            except UnicodeDecodeError as exc:
                at = line + len(_BREAK_BYTES.findall(head, 0, exc.start))
                raise _not_utf8(path, head, exc.start, at, base + exc.start, error) from None
            if first:
                text, first = text.removeprefix(_BOM), False
            parts = lines(text)
            yield from parts
            if not block:
                return
            line, base = line + len(parts), base + len(head)
