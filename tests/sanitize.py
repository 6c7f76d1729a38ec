"""compute-sanitizer over a problem's ``<problem>_sanitizer_cases.py`` (tests/*/test_gpu_*.py): the
script's small solves of every GPU kernel run under memcheck or racecheck, and must end clean."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

TOOLS = ("memcheck", "racecheck")


def sanitize(tool: str, test_file: str, cases: str) -> None:
    """Run the script ``cases`` beside ``test_file`` under ``compute-sanitizer --tool tool`` (it
    prints "sanitizer cases ok" at its end); skips where compute-sanitizer is not on PATH, fails on
    any error it reports."""
    exe = shutil.which("compute-sanitizer")
    if exe is None:
        pytest.skip("compute-sanitizer is not on PATH")
    here = pathlib.Path(test_file).resolve()
    path = os.pathsep.join(filter(None, [str(here.parents[2]), os.environ.get("PYTHONPATH")]))
    cmd = [exe, "--tool", tool, "--error-exitcode", "9", sys.executable, str(here.with_name(cases))]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=path), timeout=900)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    assert "sanitizer cases ok" in p.stdout
