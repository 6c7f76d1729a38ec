"""Every CUDA source compiles with nvcc for the GPUs we support (no GPU needed)."""
import pathlib
import shutil
import subprocess

import pytest
from test_gpu import REDUCTIONS_KERNEL

KERNELS = pathlib.Path(__file__).resolve().parent.parent / "gpualgo" / "kernels"
SOURCES = sorted(KERNELS.glob("*.cu"))


def test_every_banner_has_the_architecture_documents_style():
    """gpualgo/README.md: a group of kernels opens with a rule, one or two comment lines, a rule;
    the rule is the same 84 dashes in every .cu file."""
    rule = "// " + "-" * 84
    for src in sorted(KERNELS.glob("*.cu")):
        lines = src.read_text().splitlines()
        rules = [i for i, line in enumerate(lines) if line.startswith("// ---")]
        assert rules and all(lines[i] == rule for i in rules), f"{src.name}: a rule of another length"
        assert len(rules) % 2 == 0, f"{src.name}: an unclosed banner"
        for a, b in zip(rules[::2], rules[1::2]):
            assert 2 <= b - a <= 3 and all(lines[j].startswith("// ") and len(lines[j]) <= len(rule)
                                           for j in range(a + 1, b)), f"{src.name}:{a + 1}: a banner's title"
    readme = (KERNELS.parent / "README.md").read_text()
    assert rule in readme


def test_there_are_kernel_sources():
    assert (KERNELS / "common.cuh").is_file()


#: the sources' code paths that only a non-default define compiles, compiled here too
OPTIONAL_PATHS = [("auction.cu", "-DTAIL_CLOCK=1")]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90"])
@pytest.mark.parametrize("src", SOURCES + ["common.cuh"] + OPTIONAL_PATHS,
                         ids=lambda p: " ".join(p) if isinstance(p, tuple) else getattr(p, "name", p))
def test_compiles(src, arch, tmp_path):
    extra = []
    if isinstance(src, tuple):
        src, extra = KERNELS / src[0], [src[1]]
    if src == "common.cuh":  # a header: compile a kernel that instantiates its templates
        src = tmp_path / "reductions.cu"
        src.write_text(REDUCTIONS_KERNEL)
    cmd = ["nvcc", "-std=c++17", f"-arch={arch}", f"-I{KERNELS}", "-Werror", "all-warnings", *extra,
           "-c", "-x", "cu", str(src), "-o", str(tmp_path / "out.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"


# the compile-time constants each GPU module passes to its .cu file as defines
DEFINES = {"auction": "gpualgo.assignment.auction.gpu", "dgs": "gpualgo.assignment.dgs.gpu",
           "maxflow": "gpualgo.maxflow.gpu"}


@pytest.mark.parametrize("name", sorted(DEFINES))
def test_defines_come_from_python_and_the_cu_fallbacks_agree(name):
    """A constant shared by the host code and a kernel (a counter's slot, a tile) is defined
    once, in Python, and passed as a define; the .cu file's fallback (which only lets it
    compile alone, as above) must not drift from it."""
    import importlib
    import re
    cu = (KERNELS / f"{name}.cu").read_text()
    values = importlib.import_module(DEFINES[name]).defines()
    for key, value in values.items():
        if not isinstance(value, int):
            continue
        fallback = re.search(rf"#define {key} (\d+)\b", cu)
        assert fallback and int(fallback.group(1)) == value, f"{name}.cu: {key} is {value} in Python"
        assert re.search(rf"#ifndef {key}\b", cu) or re.search(rf"#ifndef \w+\n(#define \w+ \d+.*\n)*#define {key} ", cu), key
