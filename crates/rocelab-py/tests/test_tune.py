"""Fabric.tune and ``rocelab tune``: a short search with Ray Tune and Optuna on a local Ray with
two CPUs writes its trials, a best configuration that loads, renders and reproduces its trial's
digest, and a report; the same seed gives the same trials from Python and from the CLI; two
objectives give a Pareto front; a bad ``tune:`` section is a located error before any search."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rocelab

ray = pytest.importorskip("ray", reason="SKIPPED: Ray is not installed (./test.sh installs ray[tune])")
pytest.importorskip("ray.tune", reason="SKIPPED: Ray Tune is not installed (pip install 'ray[tune]')")
pytest.importorskip("optuna", reason="SKIPPED: Optuna is not installed (pip install optuna)")

# Four hosts on one SONiC leaf: a Poisson mix of small and large flows and a 3:1 incast, so the
# ECN threshold and DCQCN's timer change the short flows' completion.
TINY = """fabric:
  name: tiny-tune
  topology:
    generator:
      leaf-spine:
        leaves: 1
        spines: 1
        hosts_per_leaf: 4
        host_speed: 25G
        uplink_speed: 100G
        leaf: {platform: sonic}
        spine: {platform: sonic}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90, ecn: {kmin: 5KB, kmax: 200KB, pmax: 0.5}}
      - {name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}
      - {name: default, priority: 0, dscp: [0], ets: 10}
    dcqcn: {enabled: true}
simulation: {duration: 400us, seed: 1}
workloads:
  poisson:
    - {name: mix, class: roce, load: 0.5, duration: 300us, cdf: [[4KiB, 0], [16KiB, 50], [64KiB, 80], [512KiB, 100]]}
  incast:
    - {name: incast, senders: [host1-3], receiver: host4, class: roce, size: 128KB, start: 50us}
tune:
  parameters:
    - path: fabric.qos.classes[roce].ecn.kmin
      type: int
      low: 5
      high: 100
      unit: KB
      log: true
    - path: fabric.qos.classes[roce].ecn.pmax
      type: float
      low: 0.01
      high: 1.0
    - path: fabric.qos.dcqcn.rate_increase_timer
      type: choice
      values: [55us, 300us, 1500us]
  objective: {metric: fct_slowdown_p99, flows_under: 100KB}
  constraints:
    - {metric: paused_us, max: 100000}
  trials: 3
  seed: 7
"""

KMIN = "fabric.qos.classes[roce].ecn.kmin"
OBJECTIVE = "fct_slowdown_p99 [size < 100000 B]"


@pytest.fixture(scope="module")
def local_ray():
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def searched(tmp_path_factory, local_ray):
    """One 3-trial search from Python, shared by the tests that read what it wrote."""
    folder = tmp_path_factory.mktemp("tune")
    (folder / "tiny.yaml").write_text(TINY)
    result = rocelab.load(folder / "tiny.yaml").tune(folder / "out", trials=3, cpus=2)
    return folder, result


def test_a_short_search_writes_every_trial_and_the_best_is_the_lowest_feasible(searched):
    folder, result = searched
    out = folder / "out"
    assert sorted(result.files) == ["best.yaml", "report.html", "trials.csv", "trials.json"]
    with open(out / "trials.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["trial"] for r in rows] == ["start", "0", "1", "2"]
    assert all(len(r["digest"]) == 16 and not r["error"] for r in rows)
    # Every trial sets every parameter, within its range, with the parameter's unit.
    for r in rows[1:]:
        kmin = r[KMIN]
        assert kmin.endswith("KB") and 5 <= int(kmin[:-2]) <= 100
        assert 0.01 <= float(r["fabric.qos.classes[roce].ecn.pmax"]) <= 1.0
        assert r["fabric.qos.dcqcn.rate_increase_timer"] in {"55us", "300us", "1500us"}
    trials = json.loads((out / "trials.json").read_text())["trials"]
    feasible = [t for t in trials if t["feasible"]]
    lowest = min(t[OBJECTIVE] for t in feasible)
    assert len(result.best) == 1
    assert result.best[0][OBJECTIVE] == lowest
    assert result.best[0]["trial"] == min(t["trial"] for t in feasible if t[OBJECTIVE] == lowest)


def test_the_best_configuration_is_a_variant_that_loads_renders_and_reproduces_its_trial(searched, cli):
    folder, result = searched
    best_file = folder / "out" / "best.yaml"
    best = rocelab.load(best_file)
    assert best.variants == ["tuned"]
    # Simulating the variant gives the trial's results: the same digest.
    assert best.simulate(variant="tuned").digest == result.best[0]["digest"]
    # `rocelab config` renders it, and the SONiC leaf carries the tuned ECN threshold in bytes.
    rendered = folder / "rendered"
    done = cli("config", str(best_file), "--variant", "tuned", "--out", str(rendered))
    assert done.returncode == 0, done.stderr
    kmin_bytes = int(result.best[0][KMIN][:-2]) * 1000
    leaf = json.loads((rendered / "leaf1.config_db.json").read_text())
    thresholds = {p.get("green_min_threshold") for p in leaf.get("WRED_PROFILE", {}).values()}
    assert str(kmin_bytes) in thresholds, thresholds


def test_the_report_shows_the_trials_and_the_best_against_the_start(searched):
    folder, result = searched
    page = (folder / "out" / "report.html").read_text()
    assert "Best against the starting configuration" in page
    assert page.count("<tr class=") == len(result.trials) + 1
    assert result.best[0]["digest"] in page and result.start["digest"] in page


def test_the_same_seed_gives_the_same_trials_from_the_cli(searched, cli, tmp_path):
    """Determinism: the CLI's search with the file's seed repeats the Python one trial for trial
    (parameters and digests), and a run of the starting configuration gives the same digest."""
    folder, result = searched
    env = dict(os.environ, ROCELAB_PYTHON=sys.executable)
    done = subprocess.run(
        [str(cli.path), "tune", str(folder / "tiny.yaml"), "--trials", "3", "--cpus", "2", "--out", str(tmp_path / "again")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    again = json.loads((tmp_path / "again" / "trials.json").read_text())
    first = json.loads((folder / "out" / "trials.json").read_text())
    assert again["trials"] == first["trials"]
    assert again["start"]["digest"] == rocelab.load(folder / "tiny.yaml").simulate().digest


def test_two_objectives_give_a_pareto_front_as_variants(local_ray, tmp_path):
    text = TINY.replace(
        "  objective: {metric: fct_slowdown_p99, flows_under: 100KB}",
        "  objective:\n    - {metric: fct_slowdown_p99, flows_under: 100KB}\n"
        "    - {metric: flow_throughput_gbps, flows_over: 100KB, direction: maximize}",
    )
    (tmp_path / "two.yaml").write_text(text)
    result = rocelab.load(tmp_path / "two.yaml").tune(tmp_path / "out", trials=3, cpus=2)
    names = [g.name for g in result.plan.objectives]
    ok = [t for t in result.trials if t["feasible"]]
    # No point of the front is beaten on both objectives by another trial.
    for b in result.best:
        assert not any(t[names[0]] <= b[names[0]] and t[names[1]] >= b[names[1]] and
                       (t[names[0]] < b[names[0]] or t[names[1]] > b[names[1]]) for t in ok)
    best = rocelab.load(tmp_path / "out" / "best.yaml")
    assert best.variants == [f"pareto-{b['trial']}" for b in result.best]
    page = (tmp_path / "out" / "report.html").read_text()
    assert "Pareto front" in page and "<svg" in page


def test_an_unknown_parameter_path_stops_before_any_search(tmp_path):
    (tmp_path / "bad.yaml").write_text(TINY.replace("path: fabric.qos.dcqcn.rate_increase_timer", "path: fabric.qos.dcqcn.rate_increase_timr"))
    fabric = rocelab.load(tmp_path / "bad.yaml")
    with pytest.raises(rocelab.FabricError) as e:
        fabric.tune(tmp_path / "out", trials=3)
    d = [x for x in e.value.diagnostics if "rate_increase_timr" in x.message]
    assert d and d[0].line == TINY.splitlines().index("    - path: fabric.qos.dcqcn.rate_increase_timer") + 1
    assert d[0].suggestion == 'did you mean "rate_increase_timer"?'
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_bad_tune_section_is_a_located_error_at_load():
    with pytest.raises(rocelab.FabricError) as e:
        rocelab.loads(TINY.replace("low: 0.01", "low: 2.0"), name="t.yaml")
    (d,) = e.value.diagnostics
    assert (d.path, d.message) == ("tune.parameters[1].high", "the range 2 to 1 is empty")
    assert d.line == TINY.splitlines().index("      high: 1.0") + 1 and d.expected == "`high` above `low`"


def test_a_fabric_without_a_tune_section_says_what_to_add(tmp_path):
    fabric = rocelab.loads(TINY.split("tune:")[0])
    with pytest.raises(ValueError, match="no `tune:` section"):
        fabric.tune(tmp_path / "out")


def test_the_cli_refuses_a_bad_section_with_exit_1_and_a_missing_python_with_exit_2(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(TINY.replace("metric: paused_us, max: 100000", "metric: paused_us"))
    done = cli("tune", str(bad), "--out", str(tmp_path / "out"))
    assert done.returncode == 1
    assert f"{bad}:" in done.stderr and "tune.constraints[0]: a constraint needs `max` or `min`" in done.stderr
    good = tmp_path / "good.yaml"
    good.write_text(TINY)
    env = dict(os.environ, ROCELAB_PYTHON=str(tmp_path / "no-python"))
    done = subprocess.run([str(cli.path), "tune", str(good), "--out", str(tmp_path / "o")], capture_output=True,
                          text=True, env=env, check=False)
    assert done.returncode == 2
    assert "cannot start" in done.stderr
    env = dict(os.environ, ROCELAB_PYTHON="/bin/sh")
    done = subprocess.run([str(cli.path), "tune", str(good), "--out", str(tmp_path / "o")], capture_output=True,
                          text=True, env=env, check=False)
    assert done.returncode == 2
    assert 'pip install ./crates/rocelab-py "ray[tune]>=2.9" "optuna>=3.4" pyyaml' in done.stderr


def test_the_module_says_how_to_install_what_is_missing():
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['optuna'] = None; from rocelab import tune; tune._require()"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode != 0
    assert "missing: optuna" in done.stderr and tune_pip() in done.stderr


def tune_pip() -> str:
    from rocelab import tune

    return tune.PIP_INSTALL


class _Frames:
    """Stands for a run's results where only the tables matter."""

    def __init__(self, fct):
        import pandas

        self.fct = pandas.DataFrame(fct)


def test_flow_figures_count_only_completed_flows_in_their_size_range():
    from rocelab.tune import Goal, figure

    run = _Frames({
        "size (B)": [1000, 2000, 3000, 50_000, 2_000_000, 4_000_000],
        "FCT (us)": [1.0, 2.0, None, 10.0, 800.0, None],
        "slowdown": [1.0, 3.0, None, 2.0, 4.0, None],
    })
    # Flows under 10 KB that completed: slowdowns 1 and 3; the nearest-rank p50 is 1, p99 is 3.
    assert figure(run, Goal("fct_slowdown_p50", under=10_000)) == 1.0
    assert figure(run, Goal("fct_slowdown_p99", under=10_000)) == 3.0
    # The one completed flow of 1 MB or more: 2 MB in 800 us is 20 Gb/s.
    assert figure(run, Goal("flow_throughput_gbps", over=1_000_000)) == pytest.approx(2_000_000 * 8 / 800e-6 / 1e9)
    with pytest.raises(ValueError, match="no completed flow"):
        figure(run, Goal("fct_p99_us", over=3_000_000))
