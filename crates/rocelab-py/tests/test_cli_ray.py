"""``rocelab sim FILE --all --ray``: the CLI runs every variant, sweep point and seed as Ray tasks
through this package's driver (``python -m rocelab.sweep --plan - --out DIR``) and writes the
same folder as the serial ``sim --all``, byte for byte; a failed run is recorded in index.json
and the report while the others go on; a Python without the package says what to install."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Dict

import pytest

import rocelab

from test_sweep import SCENARIO

# The sweep of test_sweep (8 runs: two variants, two points, two seeds) with a sized flow too,
# so that every run's folder has fct.txt as well.
INCAST = "    - {name: incast, senders: [host1-2], receiver: host3, class: roce}\n"
SIZED = SCENARIO.replace(
    INCAST, INCAST + "    - {name: sized, senders: [host1], receiver: host3, class: roce, size: 64KB, start: 20us}\n"
)
assert SIZED != SCENARIO

# A variant whose runs are refused when they start: 5,000,000 s of simulated time is more than
# the simulator runs (about 53 days), which loading does not know. The plan is made, its two
# runs fail, the others run.
TOO_LONG = """  - name: too-long
    set:
      simulation.duration: 5000000s
"""


def need_ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        print("SKIPPED rocelab sim --all --ray: Ray is not installed")
        pytest.skip("SKIPPED: Ray is not installed (test.sh installs it from PyPI: `pip install ray`)")


def tree(root: Path) -> Dict[str, bytes]:
    """Every file under ``root`` by its path relative to it."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def with_python(python: str = sys.executable) -> Dict[str, str]:
    return {**os.environ, "ROCELAB_PYTHON": python}


def test_the_ray_sweep_writes_the_serial_folder_byte_for_byte(cli, tmp_path):
    need_ray()
    path = tmp_path / "seeds.yaml"
    path.write_text(SIZED)
    serial, on_ray = tmp_path / "serial", tmp_path / "ray"
    first = cli("sim", str(path), "--all", "--quiet", "--out", str(serial))
    assert first.returncode == 0, first.stderr
    done = cli("sim", str(path), "--all", "--ray", "--quiet", "--out", str(on_ray), env=with_python())
    assert done.returncode == 0, done.stderr
    a, b = tree(serial), tree(on_ray)
    # Every run's files (results, pfc.txt, fct.txt, summary), index.json and the report.
    assert sorted(a) == sorted(b)
    assert len([f for f in a if f.endswith("/results.json")]) == 8
    assert {"index.json", "report.html", "runs.csv", "spread.csv"} <= set(a)
    assert any(f.endswith("/pfc.txt") for f in a) and any(f.endswith("/fct.txt") for f in a)
    different = [f for f in a if a[f] != b[f]]
    assert different == [], different
    # The digests, as the Python package computes them, too.
    index = json.loads((on_ray / "index.json").read_text())
    digests = [rocelab.digest((on_ray / r["results"]).read_text()) for r in index["runs"]]
    assert digests == [rocelab.digest((serial / r["results"]).read_text()) for r in index["runs"]]
    # What it prints: the runs' table and what it wrote, as the serial run.
    assert done.stdout == first.stdout.replace(str(serial), str(on_ray))
    assert "wrote 8 runs, index.json, report.html and" in done.stdout


def test_a_failed_run_is_recorded_in_the_index_and_report_and_the_others_go_on(cli, tmp_path):
    need_ray()
    path = tmp_path / "too-long.yaml"
    path.write_text(SCENARIO.replace(", seeds: [3, 4]", "").replace("sweep:", TOO_LONG + "sweep:"))
    out = tmp_path / "out"
    done = cli("sim", str(path), "--all", "--ray", "--quiet", "--out", str(out), env=with_python())
    assert done.returncode == 2, done.stderr
    assert "2 of 6 runs failed; the others ran" in done.stderr, done.stderr
    assert done.stderr.count("too-long @ 1500: the run was refused") == 1, done.stderr
    index = json.loads((out / "index.json").read_text())
    failed = [r for r in index["runs"] if "error" in r]
    assert [r["label"] for r in failed] == ["too-long @ 1500", "too-long @ 9000"]
    assert all("the run was refused" in r["error"] and "53 days" in r["error"] for r in failed), failed
    assert not (out / failed[0]["results"]).exists()
    ran = [r for r in index["runs"] if "error" not in r]
    assert len(ran) == 4 and all((out / r["results"]).is_file() for r in ran)
    html = (out / "report.html").read_text()
    assert "4 runs (2 more failed)" in html and '<h2 id="failed">Failed runs</h2>' in html
    assert "<b>too-long @ 9000</b>: the run was refused" in html
    # `rocelab report` reads the folder again: the runs that ran.
    again = cli("report", str(out))
    assert again.returncode == 0, again.stderr


def test_a_python_without_the_package_is_told_what_to_install(cli, tmp_path):
    path = tmp_path / "seeds.yaml"
    path.write_text(SCENARIO)
    # The Python that made this test's virtual environment has no rocelab package.
    bare = getattr(sys, "_base_executable", None) or sys.executable
    if bare == sys.executable:
        print("SKIPPED the missing-package case: no Python without the rocelab package to try")
    else:
        probe = cli("sim", str(path), "--all", "--ray", "--quiet", "--out", str(tmp_path / "o"), env=with_python(bare))
        assert probe.returncode == 2, probe.stderr
        assert "No module named" in probe.stderr and "pip install ./crates/rocelab-py" in probe.stderr, probe.stderr
    missing = cli(
        "sim", str(path), "--all", "--ray", "--out", str(tmp_path / "p"), env=with_python(str(tmp_path / "no-python"))
    )
    assert missing.returncode == 2, missing.stderr
    assert "cannot start" in missing.stderr and "ROCELAB_PYTHON" in missing.stderr, missing.stderr
