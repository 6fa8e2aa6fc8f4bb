"""Fabric.sweep and ``python -m rocelab.sweep``: every variant, sweep point and seed, serially or
as Ray tasks, with the digests of the CLI's ``sim --all`` runs; a failed run is recorded and the
others go on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rocelab
from rocelab import sweep as sweep_module

# A 2:1 incast with random ECN marking (drawn from the seed), a variant without ECN and a
# two-point MTU sweep, each point under two seeds.
SCENARIO = """fabric:
  name: seeds
  topology:
    generator:
      leaf-spine: {leaves: 1, spines: 1, hosts_per_leaf: 3, host_speed: 25G, uplink_speed: 100G}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90, ecn: {kmin: 5KB, kmax: 200KB, pmax: 0.5}}
      - {name: default, priority: 0, dscp: [0], ets: 10}
simulation: {duration: 300us, sample_interval: 10us, seeds: [3, 4]}
workloads:
  incast:
    - {name: incast, senders: [host1-2], receiver: host3, class: roce}
variants:
  - name: no-ecn
    set:
      fabric.qos.classes[roce].ecn: null
sweep: {field: fabric.qos.mtu, values: [1500, 9000]}
"""

# A variant that loads but does not apply: its runs fail, the others' do not.
BROKEN = """  - name: broken
    set:
      fabric.qos.classes[roce].ecn.kmn: 5KB
"""


def scenario(tmp_path: Path, broken: bool = False) -> Path:
    text = SCENARIO.replace("sweep:", BROKEN + "sweep:") if broken else SCENARIO
    path = tmp_path / ("broken.yaml" if broken else "seeds.yaml")
    path.write_text(text)
    return path


def key(row) -> tuple:
    return (row["variant"] if isinstance(row["variant"], str) else None, row["point"], int(row["seed"]))


def test_a_serial_sweep_has_every_run_with_the_clis_digests(cli, tmp_path):
    path = scenario(tmp_path)
    frame = rocelab.load(path).sweep()
    assert list(frame.columns[:6]) == sweep_module.KEY_COLUMNS
    assert "goodput (Gb/s)" in frame.columns and "ECN marks" in frame.columns
    assert len(frame) == 2 * 2 * 2
    assert frame["error"].isna().all(), frame["error"].tolist()
    assert frame["seed"].tolist() == [3, 4] * 4
    # `sim --all` of the same file: the same runs, the same digests.
    out = tmp_path / "out"
    shown = cli("sim", str(path), "--all", "--quiet", "--out", str(out))
    assert shown.returncode == 0, shown.stderr
    index = json.loads((out / "index.json").read_text())
    by_cli = {}
    for run in index["runs"]:
        point = f"{run['sweep']['field']}={run['sweep']['value']}"
        by_cli[(run.get("variant"), point, run["seed"])] = (
            run["label"],
            rocelab.digest((out / run["results"]).read_text()),
        )
    assert {key(r): (r["label"], r["digest"]) for _, r in frame.iterrows()} == by_cli
    assert frame["label"][0] == "base @ 1500 seed 3"
    # The seeds move the ECN marks of the base scenario at one point.
    base = frame[frame["variant"].isna() & (frame["point"] == "fabric.qos.mtu=9000")]
    assert base["ECN marks"].nunique() == 2, base["ECN marks"].tolist()


def test_seeds_as_a_count_or_a_list_and_their_errors(tmp_path):
    fabric = rocelab.load(scenario(tmp_path))
    assert (fabric.seed, fabric.seeds) == (1, [3, 4])
    assert sweep_module.seeds_of(fabric, 3) == [1, 2, 3]
    assert sweep_module.seeds_of(fabric, [9, 7]) == [9, 7]
    assert sweep_module.plan(fabric, [5])[0] == (None, "fabric.qos.mtu=1500", 5)
    with pytest.raises(ValueError, match="65 is not in 1..=64"):
        fabric.sweep(seeds=65)
    with pytest.raises(ValueError, match=r"\[2\] given more than once"):
        fabric.sweep(seeds=[2, 2])
    with pytest.raises(ValueError, match="an empty list"):
        fabric.sweep(seeds=[])
    # Without seeds in the file, one run per point under simulation.seed.
    plain = rocelab.loads(SCENARIO.replace(", seeds: [3, 4]", ""))
    assert sweep_module.plan(plain) == [(v, p, None) for v in (None, "no-ecn") for p in plain.sweep_points]


def test_a_failed_run_is_recorded_and_the_others_go_on(tmp_path):
    path = scenario(tmp_path, broken=True)
    frame = rocelab.load(path).sweep(seeds=[3])
    failed = frame[frame["error"].notna()]
    assert failed["variant"].tolist() == ["broken", "broken"]
    assert all("unknown field `kmn`" in e and "broken.yaml:" in e for e in failed["error"]), failed["error"].tolist()
    assert failed["digest"].isna().all()
    ok = frame[frame["error"].isna()]
    assert len(ok) == 4 and ok["digest"].str.fullmatch(r"[0-9a-f]{16}").all()
    # From a shell: the table as CSV, exit 1 and the failed runs named on stderr.
    done = subprocess.run(
        [sys.executable, "-m", "rocelab.sweep", str(path), "--seeds", "1", "--csv", str(tmp_path / "t.csv")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("unknown field `kmn`") == 2, done.stderr
    import pandas

    table = pandas.read_csv(tmp_path / "t.csv")
    assert len(table) == 6 and table["seed"].tolist() == [1] * 6
    done = subprocess.run(
        [sys.executable, "-m", "rocelab.sweep", str(tmp_path / "nope.yaml")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "nope.yaml" in done.stderr, done.stderr


def test_a_sweep_on_a_local_ray_with_two_cpus_has_the_serial_digests(tmp_path):
    try:
        import ray
    except ImportError:
        print("SKIPPED test_a_sweep_on_a_local_ray_with_two_cpus_has_the_serial_digests: Ray is not installed")
        pytest.skip("SKIPPED: Ray is not installed (test.sh installs it from PyPI: `pip install ray`)")
    path = scenario(tmp_path, broken=True)
    fabric = rocelab.load(path)
    serial = fabric.sweep()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = fabric.sweep(ray=True)
        # A fabric from text goes to the workers as its text.
        from_text = rocelab.loads(path.read_text(), name="text.yaml").sweep(ray=True)
    finally:
        ray.shutdown()
    assert on_ray["digest"].fillna("").tolist() == serial["digest"].fillna("").tolist()
    assert on_ray["digest"].notna().sum() == 8
    assert on_ray["error"].notna().sum() == 4 and on_ray["error"].fillna("").str.contains("kmn").sum() == 4
    assert from_text["digest"].fillna("").tolist() == serial["digest"].fillna("").tolist()
    assert from_text["error"].fillna("").str.contains("text.yaml:").sum() == 4
