import pytest

from gpualgo import nbtools


def _sample():
    """A docstring."""
    return 42


def test_kernel_text_extracts_one_function_with_its_comment():
    text = nbtools.kernel_text("common.cuh", "top2_merge")
    assert text.startswith("// Merge two (best, second, idx) triples")
    assert "__device__ __forceinline__ void top2_merge" in text
    assert text.rstrip().endswith("}") and "warp_top2" not in text


def test_kernel_text_unknown_kernel():
    with pytest.raises(ValueError, match="not defined"):
        nbtools.kernel_text("common.cuh", "no_such_kernel")


def test_show_source_of_python_function():
    code = nbtools.show_source(_sample)
    text = getattr(code, "data", code)
    assert "def _sample" in text and "return 42" in text


def test_banner_says_where_results_come_from():
    text = nbtools.banner_text()
    assert text.startswith("**GPU found") or "No GPU found" in text


def test_interact_off_prints_and_returns_none(capsys):
    assert nbtools.interact(lambda n: n, False, n=3) is None
    assert "Sliders are off" in capsys.readouterr().out
