"""maxflow.cu also compiles with the report's reverse-arc searches (REV_SEARCH 1 and 2), in
both capacity types (the foundation test compiles the defaults)."""
import pathlib
import shutil
import subprocess

import pytest

from gpualgo.maxflow import gpu as mfgpu

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "gpualgo" / "kernels"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("search", [v for v in mfgpu.REV_SEARCH.values() if v])
@pytest.mark.parametrize("cap", ["int", "long long"])
def test_reverse_arc_searches_compile(arch, search, cap, tmp_path):
    cmd = ["nvcc", "-std=c++17", f"-arch={arch}", f"-I{KERNELS}", f"-DREV_SEARCH={search}", f"-DCAP_T={cap}",
           "-Werror", "all-warnings", "-c", "-x", "cu", str(KERNELS / "maxflow.cu"), "-o", str(tmp_path / "o.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
