"""The optional CPU peers: one loader, a clear note when one is missing, no bare imports."""
import pathlib
import re
import subprocess
import sys

import pytest

from gpualgo import peers, run_notebooks

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOP_LEVEL = sorted({module.partition(".")[0] for module, _, _ in peers.PEERS.values()})
BARE = re.compile(rf"^([ \t]*)(?:import|from)\s+({'|'.join(TOP_LEVEL)})\b", re.M)


@pytest.fixture
def absent_peer(monkeypatch):
    """A peer entry whose module does not exist."""
    monkeypatch.setitem(peers.PEERS, "absent", ("gpualgo_no_such_module", "no-such-dist", "An absent solver"))
    return "absent"


def test_unknown_peer_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown peer 'nope'"):
        peers.load("nope")
    with pytest.raises(ValueError, match="unknown peer 'nope'"):
        peers.note("nope")


def test_missing_peer_is_a_note_not_an_error(absent_peer, capsys):
    assert peers.load(absent_peer) is None and not peers.available(absent_peer)
    assert peers.note(absent_peer) is None
    out = capsys.readouterr().out
    assert "An absent solver is not installed" in out and "pip install no-such-dist" in out
    assert out.strip() == peers.missing_text(absent_peer)


def test_installed_peer_is_its_module(monkeypatch, capsys):
    monkeypatch.setitem(peers.PEERS, "json", ("json", "json", "the json module"))
    import json
    assert peers.note("json") is json and capsys.readouterr().out == ""


def test_hidden_peers_are_hidden_in_child_processes_only():
    code = "from gpualgo import peers; print(sorted(k for k in peers.PEERS if peers.available(k)))"
    with run_notebooks.hidden_peers() as names:
        assert names == TOP_LEVEL
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.strip() == "[]"
        probe = subprocess.run([sys.executable, "-c", "import ortools"], capture_output=True, text=True)
        assert probe.returncode == 1 and "hidden by --hide-peers" in probe.stderr
    assert "gpualgo-nopeers" not in str(__import__("os").environ.get("PYTHONPATH"))


def test_notebooks_import_peers_only_through_gpualgo_peers():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        import json
        for i, cell in enumerate(json.loads(path.read_text())["cells"]):
            m = BARE.search("".join(cell["source"]))
            assert not m, f"{path.name} cell {i}: '{m.group(0).strip()}': use peers.note({m.group(2)!r}...)"


def test_package_never_imports_a_peer_at_module_level():
    # a module-level import would make gpualgo unusable without the peer; imports inside a
    # function that first got the peer from peers.load are fine
    for path in sorted((ROOT / "gpualgo").rglob("*.py")):
        if path.name == "peers.py":
            continue
        for m in BARE.finditer(path.read_text()):
            assert m.group(1), f"{path.relative_to(ROOT)}: '{m.group(0).strip()}' at module level"


@pytest.mark.parametrize("shape", [(1, 1), (6, 6), (5, 9), (40, 40)])
def test_assignment_peers_give_a_permutation_and_the_optimum(shape):
    """scipy and lap through peers: each person a distinct object, and the brute-force optimum
    (small cases) or each other's (larger)."""
    import itertools

    import numpy as np

    from gpualgo.assignment import checks
    rng = np.random.default_rng(sum(shape))
    B = rng.integers(0, 50, size=shape)
    answers = {"scipy": peers.scipy_assignment(B)}
    if peers.available("lap"):
        answers["lap"] = peers.lap_assignment(B)
    m, n = shape
    best = (max(sum(int(B[i, p[i]]) for i in range(m)) for p in itertools.permutations(range(n), m))
            if n <= 9 else checks.objective(B, answers["scipy"]))
    for name, x in answers.items():
        assert x.dtype == np.int64 and x.shape == (m,) and len(set(x.tolist())) == m, name
        assert checks.objective(B, x) == best, name
