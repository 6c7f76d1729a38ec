"""The README's at-a-glance table is the one the recorded data give."""
import re
import shutil

import pytest

from gpualgo import glance, results


def test_readme_table_matches_the_recorded_data():
    text = glance.readme_path().read_text()
    assert glance.table() in text, "README.md's at-a-glance table is stale: run python -m gpualgo.glance --write"


def test_every_row_says_how_many_runs():
    body, heading = glance.rows()
    assert heading.startswith("### At a glance (recorded on NVIDIA")
    for what, measured in body:
        assert "run" in measured, what


def test_the_table_follows_the_data(tmp_path):
    folder = tmp_path / "results"
    shutil.copytree(results.RESULTS_DIR, folder)
    rec = results.read(folder / "auction", "exact")
    for r in rec.rows:   # the GPU twice as slow at n = 8192: the ratio halves
        if r["variant"] == "gpu_eps_scaling" and r["n"] == 8192:
            r["total_ms"] *= 2
    results.write(folder / "auction", "exact", rec.rows, rec.meta["params"], seeds=rec.meta["seeds"])
    before, after = dict(glance.rows()[0]), dict(glance.rows(folder)[0])
    key = "exact assignment, n = 8192, dense benefits in [1, 10000], whole solve"
    ratio = [float(re.search(r"([0-9.]+)x scipy", text[key]).group(1)) for text in (before, after)]
    assert abs(ratio[1] - ratio[0] / 2) <= 0.1, ratio


def test_a_missing_measurement_is_an_error_not_a_blank(tmp_path):
    folder = tmp_path / "results"
    shutil.copytree(results.RESULTS_DIR, folder)
    rec = results.read(folder / "maxflow", "targets")
    rows = [r for r in rec.rows if r["variant"] != "ortools"]
    results.write(folder / "maxflow", "targets", rows, rec.meta["params"], seeds=rec.meta["seeds"])
    with pytest.raises(LookupError, match="ortools"):
        glance.rows(folder)
