"""gpualgo.textfile, and every reader of a problem's text file through it: the same lines
(breaks at \\n, \\r\\n and \\r only, a byte-order mark skipped), the same refusals and one
wording, "{path}: line {N}: {message}"."""
import re

import pytest
from hypothesis import given, settings, strategies as st

from gpualgo import assignment as A
from gpualgo import coalitions as co
from gpualgo import maxflow as mf
from gpualgo import textfile
from gpualgo import tsp

#: the characters str.splitlines() breaks at and the formats do not
NOT_BREAKS = ("\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85")


# ------------------------------------------------------------------------------ the module

def test_lines_break_at_newline_crlf_and_cr_only():
    assert textfile.lines("a\nb\r\nc\rd") == ["a", "b", "c", "d"]
    assert textfile.lines("a\n\nb\n") == ["a", "", "b"]
    assert textfile.lines("a\r\r\n") == ["a", ""]
    assert textfile.lines("") == [] and textfile.lines("\n") == [""] and textfile.lines("x") == ["x"]
    for sep in NOT_BREAKS:
        assert textfile.lines(f"c one{sep}two\nthree\n") == [f"c one{sep}two", "three"]


def test_read_text_drops_one_byte_order_mark(tmp_path):
    p = tmp_path / "f.txt"
    p.write_bytes(b"\xef\xbb\xbfa\r\nb")
    assert textfile.read_text(p) == "a\r\nb"
    p.write_bytes(b"\xef\xbb\xbf\xef\xbb\xbfa")
    assert textfile.read_text(p) == "\ufeffa"
    p.write_bytes(b"a\xef\xbb\xbf")             # only at the start
    assert textfile.read_text(p) == "a\ufeff"


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_a_bad_byte_names_its_line_and_offset(tmp_path, eol):
    p = tmp_path / "f.txt"
    data = f"one{eol}two{eol}th".encode() + b"\xe9" + f"ree{eol}".encode()
    p.write_bytes(data)
    offset = data.index(b"\xe9")
    want = f"{p}: line 3: not UTF-8 text (byte 0xe9 at offset {offset})"
    with pytest.raises(ValueError) as exc:
        textfile.read_text(p)
    assert str(exc.value) == want
    with pytest.raises(ValueError) as exc:
        list(textfile.read_lines(p))
    assert str(exc.value) == want


def test_directories_and_missing_files_are_refused_naming_them(tmp_path):
    for call in (textfile.read_text, textfile.read_lines, textfile.check_file):
        with pytest.raises(ValueError, match=f"^{re.escape(str(tmp_path))}: is a directory, not a network file$"):
            call(tmp_path, "network file")
        gone = tmp_path / "gone.txt"
        with pytest.raises(textfile.NoSuchFile, match=f"^{re.escape(str(gone))}: no such file") as exc:
            call(gone)
        assert isinstance(exc.value, ValueError) and isinstance(exc.value, FileNotFoundError)


def test_errors_of_another_class():
    class FormatError(ValueError):
        pass
    exc = textfile.line_error("x.tsp", 7, "bad", FormatError)
    assert isinstance(exc, FormatError) and str(exc) == "x.tsp: line 7: bad"


@settings(max_examples=300, deadline=None)
@given(data=st.lists(st.sampled_from([b"a", b" ", b"\r", b"\n", b"\r\n", b"\xef\xbb\xbf", "\u2028".encode(),
                                      b"\x0c", "\xe9".encode(), b"\xe9", b"\xe2\x80"]), max_size=16).map(b"".join),
       chunk=st.sampled_from([1, 2, 3, 5, 1 << 20]))
def test_read_lines_is_lines_of_read_text_whatever_the_blocks(tmp_path_factory, data, chunk):
    p = tmp_path_factory.mktemp("t") / "f.txt"
    p.write_bytes(data)

    def outcome(read):
        try:
            return read(), None
        except ValueError as exc:
            return None, str(exc)
    whole = outcome(lambda: textfile.lines(textfile.read_text(p)))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(textfile, "_CHUNK", chunk)
        assert outcome(lambda: list(textfile.read_lines(p))) == whole


# ------------------------------------------------------------------------------ the readers
#
# Each reader has a small valid file whose lines 1 and 3 are comments, a way to compare what
# it read (``key``), and a line of that file made bad, with the words of its error.

def _network(net):
    return net.n, net.source, net.sink, [a.tolist() for a in net.arcs()]


READERS = {
    "dimacs": dict(read=mf.read_dimacs, name="n.max", key=_network,
                   lines=["c first", "p max 4 3", "c third", "n 1 s", "n 4 t", "a 1 2 3", "a 2 4 2", "a 1 3 1"],
                   bad=(6, "a 1 9 3", "node id 9 out of range"), number=(6, "a 1 2 {}")),
    "network text": dict(read=mf.read_text, name="n.txt", key=_network,
                         lines=["# first", "n 4", "# third", "e 0 1 3", "e 1 3 2", "e 0 2 1"],
                         bad=(5, "e 1 9 2", "node id 9 out of range"), number=(4, "e 0 1 {}")),
    "batch config": dict(read=A.read_batch_config, name="b.cfg", key=lambda r: r,
                         lines=["# first", "42 500", "# third", "10 12 0.5", "8 8 1"],
                         bad=(5, "8 8 2", "density 2.0 not in"), number=(4, "10 {} 0.5")),
    "tsplib": dict(read=tsp.read_tsplib, name="t.tsp", key=lambda inst: (inst.name, inst.dist.tolist()),
                   lines=["COMMENT : first", "NAME : t", "COMMENT : third", "TYPE : TSP", "DIMENSION : 3",
                          "EDGE_WEIGHT_TYPE : EUC_2D", "NODE_COORD_SECTION", "1 0 0", "2 3 4", "3 6 0", "EOF"],
                   bad=(9, "2 3 x", "'x' is not a number"), number=(9, "2 {} 4")),
    "values": dict(read=co.read_values, name="v.txt", key=lambda v: v.tolist(),
                   lines=["# first", "0", "# third", "1.5", "2", "4"],
                   bad=(5, "abc", "'abc' is not a number"), number=(5, "{}")),
}
KINDS = sorted(READERS)


def _write(tmp_path, reader, lines, eol="\n", head=b"", end=True):
    p = tmp_path / reader["name"]
    p.write_bytes(head + (eol.join(lines) + (eol if end else "")).encode())
    return p


def _expected(tmp_path, reader):
    return reader["key"](reader["read"](_write(tmp_path, reader, reader["lines"])))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_a_byte_order_mark_and_any_line_break_read_the_same(tmp_path, kind, eol):
    r = READERS[kind]
    want = _expected(tmp_path, r)
    for head in (b"", b"\xef\xbb\xbf"):
        for end in (True, False):
            p = _write(tmp_path, r, r["lines"], eol, head, end)
            assert r["key"](r["read"](p)) == want, (head, end)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("sep", NOT_BREAKS)
def test_a_line_break_of_unicode_inside_a_comment_does_not_split_it(tmp_path, kind, sep):
    r = READERS[kind]
    want = _expected(tmp_path, r)
    lines = [r["lines"][0] + f" x{sep}y z"] + r["lines"][1:]
    assert r["key"](r["read"](_write(tmp_path, r, lines))) == want
    # and the lines after it keep their numbers
    _fails_on_its_line(tmp_path, r, lines)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_a_bad_line_is_named_path_line_n(tmp_path, kind, eol):
    r = READERS[kind]
    _fails_on_its_line(tmp_path, r, list(r["lines"]), eol, b"\xef\xbb\xbf")


def _fails_on_its_line(tmp_path, r, lines, *write_args):
    """The reader's bad line put in ``lines`` is refused as "{path}: line N: ...", N its number."""
    no, text, words = r["bad"]
    lines[no - 1] = text
    p = _write(tmp_path, r, lines, *write_args)
    with pytest.raises(ValueError, match=f"^{re.escape(str(p))}: line {no}: {re.escape(words)}"):
        r["read"](p)


# what Python's int() or float() would take, and no format writes
NOT_NUMBERS = ["1_2", "\u0661\u0662", "\uff11", "nan", "inf", "-Infinity", "0x1f", "1e999", "7" * 101]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("word", NOT_NUMBERS)
def test_only_the_formats_numbers_are_read(tmp_path, kind, word):
    r = READERS[kind]
    no, template = r["number"]
    lines = list(r["lines"])
    lines[no - 1] = template.format(word)
    p = _write(tmp_path, r, lines)
    with pytest.raises(ValueError, match=f"^{re.escape(str(p))}: line {no}: .*{re.escape(repr(word)[:21])}"):
        r["read"](p)
    lines[no - 1] = template.format("12")    # the same line with a plain number is read
    r["read"](_write(tmp_path, r, lines))


@pytest.mark.parametrize("word", ["0", "-12", "+7", "1.5", ".5", "3.", "1e3", "-6.7E+03", "007"])
def test_numbers_as_the_formats_write_them(word):
    assert textfile.decimal(word) == float(word)
    assert textfile.is_integer(word) == (word.lstrip("+-").isdigit())
    if textfile.is_integer(word):
        assert textfile.integer(word) == int(word)


@pytest.mark.parametrize("word", NOT_NUMBERS + ["", " 1", "1 ", "--1", ".", "e3", "1e", "1.2.3"])
def test_anything_else_is_refused_naming_it(word):
    for read in (textfile.integer, textfile.decimal):
        with pytest.raises(ValueError, match=re.escape(repr(word)[:21])):
            read(word)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_a_byte_that_is_not_utf8_on_line_3_is_named(tmp_path, kind, eol):
    r = READERS[kind]
    p = tmp_path / r["name"]
    head = eol.join(r["lines"][:2]).encode() + eol.encode() + r["lines"][2].encode() + b" "
    p.write_bytes(head + b"\xff" + eol.join([""] + r["lines"][3:]).encode() + eol.encode())
    with pytest.raises(ValueError, match=f"^{re.escape(str(p))}: line 3: not UTF-8 text "
                                         rf"\(byte 0xff at offset {len(head)}\)$"):
        r["read"](p)


@pytest.mark.parametrize("kind", KINDS)
def test_a_directory_or_a_missing_file_is_refused_naming_it(tmp_path, kind):
    r = READERS[kind]
    d = tmp_path / r["name"]
    d.mkdir()
    with pytest.raises(ValueError, match=f"^{re.escape(str(d))}: is a directory, not a "):
        r["read"](d)
    gone = tmp_path / ("gone" + r["name"])
    with pytest.raises(ValueError, match=f"^{re.escape(str(gone))}: no such file") as exc:
        r["read"](gone)
    assert isinstance(exc.value, FileNotFoundError)


@pytest.mark.parametrize("word", ["3.5", "1e3", "3.", "-0.0"])
def test_a_decimal_is_not_an_integer_and_says_so(word):
    with pytest.raises(ValueError, match=rf"^{re.escape(repr(word))} is not an integer"):
        textfile.integer(word)


def test_quote_cuts_long_text():
    assert textfile.quote("abc") == "'abc'"
    q = textfile.quote("z" * 10**6)
    assert len(q) < 60 and q.endswith("(1000000 characters)")


def test_quote_shows_a_value_as_given_and_cuts_a_long_one():
    # a number given as an argument is shown as itself, not as a string
    assert [textfile.quote(v) for v in (5, -2.5, None, True)] == ["5", "-2.5", "None", "True"]
    assert textfile.quote(10**300) == "100000000000000000000000000000... (301 characters)"
    # a float beyond range: its token named, cut short (the exponent counts no digits)
    token = "1e" + "9" * 5000
    with pytest.raises(ValueError, match=r"^'1e9{18}'\.\.\. \(5002 characters\) is beyond the range of a float$"):
        textfile.decimal(token)
