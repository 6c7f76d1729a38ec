"""tsp.cu also compiles in its int64-cost form (the foundation test compiles the default)."""
import pathlib
import shutil
import subprocess

import pytest

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "gpualgo" / "kernels"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_int64_costs_compile(arch, tmp_path):
    cmd = ["nvcc", "-std=c++17", f"-arch={arch}", f"-I{KERNELS}", "-DCOST_INT64=1", "-Werror",
           "all-warnings", "-c", "-x", "cu", str(KERNELS / "tsp.cu"), "-o", str(tmp_path / "o.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
