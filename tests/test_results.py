import json

import pytest

from gpualgo import results


def test_write_then_read_round_trip(tmp_path):
    rows = [{"variant": "serial", "n": 500, "time_ms": 1.25, "exact": True},
            {"variant": "gpu_v1", "n": 500, "time_ms": 0.5, "rounds": 12, "exact": False}]
    path = results.write(tmp_path / "auction", "report", rows, {"sizes": [500]}, seeds=[1, 2])
    assert path.name == "report.csv"
    rec = results.read(tmp_path / "auction", "report")
    assert rec.rows[0] == {"variant": "serial", "n": 500, "time_ms": 1.25, "exact": True, "rounds": None}
    assert rec.rows[1]["rounds"] == 12 and rec.rows[1]["exact"] is False
    meta = json.loads((tmp_path / "auction" / "report.json").read_text())
    assert meta["params"] == {"sizes": [500]} and meta["seeds"] == [1, 2] and meta["rows"] == 2
    assert {"date", "device", "packages", "command", "host"} <= set(meta)
    assert meta["packages"]["numpy"]
    assert "recorded on" in rec.source() and meta["date"][:10] in rec.source()
    commit = (meta.get("code") or {}).get("commit")
    assert (f"at commit {commit[:7]} " in rec.source()) if commit else "at commit" not in rec.source()


def test_source_names_the_gpu(tmp_path):
    results.write(tmp_path, "x", [{"a": 1}], {})
    meta = json.loads((tmp_path / "x.json").read_text())
    meta["device"] = {"gpu": "NVIDIA H100 80GB HBM3", "sms": 132, "driver": "580.1", "cuda_runtime": "13.0"}
    (tmp_path / "x.json").write_text(json.dumps(meta))
    src = results.read(tmp_path, "x").source()
    assert "NVIDIA H100 80GB HBM3 (132 SMs, driver 580.1, CUDA 13.0)" in src


def test_read_missing_raises(tmp_path):
    with pytest.raises(FileNotFoundError, match="no recorded results"):
        results.read(tmp_path, "nothing")


def test_source_names_every_run_of_a_merged_sweep(tmp_path):
    results.write(tmp_path, "x", [{"a": 1}], {"p": 1}, command="run one")
    meta_path = tmp_path / "x.json"
    meta = json.loads(meta_path.read_text())
    meta["parts"] = [{"command": "run one"}, {"command": "run two"}]
    meta_path.write_text(json.dumps(meta))
    src = results.read(tmp_path, "x").source()
    assert "in 2 runs" in src and "`run one`" in src and "`run two`" in src


def test_every_recorded_file_names_its_code_its_seeds_and_its_rows():
    import re
    for meta_path in sorted(results.RESULTS_DIR.glob("*/*.json")):
        rec = results.read(meta_path.parent, meta_path.stem)
        where = f"{meta_path.parent.name}/{meta_path.name}"
        code = rec.meta.get("code") or {}
        assert re.fullmatch(r"[0-9a-f]{40}", str(code.get("commit"))), f"{where}: no commit"
        assert isinstance(rec.meta.get("seeds"), list) and rec.meta["seeds"], f"{where}: no seeds"
        assert rec.meta.get("rows") == len(rec.rows), f"{where}: says {rec.meta.get('rows')} rows, holds {len(rec.rows)}"
        for part in rec.meta.get("parts") or []:   # a merged file: each run with its own record
            assert {"command", "params", "date", "progress", "rows"} <= set(part), f"{where}: {sorted(part)}"
        if rec.meta.get("parts"):
            assert sum(p["rows"] for p in rec.meta["parts"]) == len(rec.rows), where
            if "progress" in rec.meta:   # resumed by the bench command: the parts share out its cases
                assert sum(len(p["cases"]) for p in rec.meta["parts"]) == rec.meta["progress"]["cases_done"], where
            else:                        # merged by hand
                assert rec.meta["command"].startswith("merged from the runs"), where
