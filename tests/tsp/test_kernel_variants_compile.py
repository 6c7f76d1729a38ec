"""tsp.cu also compiles in its int64-cost form and with every tuning flag the host can set
(the foundation test compiles the default); each flag's fallback in the .cu is 0, so a
standalone compile is the version as it is recorded."""
import pathlib
import re
import shutil
import subprocess

import pytest

from gpualgo.tsp import gpu as tsp_gpu

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "gpualgo" / "kernels"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


def _compile(arch, tmp_path, *defines):
    cmd = ["nvcc", "-std=c++17", f"-arch={arch}", f"-I{KERNELS}", *(f"-D{d}=1" for d in defines), "-Werror",
           "all-warnings", "-c", "-x", "cu", str(KERNELS / "tsp.cu"), "-o", str(tmp_path / "o.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_int64_costs_compile(arch, tmp_path):
    _compile(arch, tmp_path, "COST_INT64")


@needs_nvcc
@pytest.mark.parametrize("flag", tsp_gpu.TUNING_DEFINES)
def test_each_tuning_flag_compiles(flag, tmp_path):
    _compile("sm_90", tmp_path, flag)


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_tuning_flag_at_once_with_int64_costs_compiles(arch, tmp_path):
    _compile(arch, tmp_path, "COST_INT64", *tsp_gpu.TUNING_DEFINES)


def test_tuning_flags_fall_back_to_the_recorded_versions():
    source = (KERNELS / "tsp.cu").read_text()
    for flag in tsp_gpu.TUNING_DEFINES:
        assert re.search(rf"#ifndef {flag}\n#define {flag} 0\b", source), flag
        assert re.search(rf"#if {flag}\b|{flag} \?|<{flag} != 0>", source), f"{flag} is never read"
