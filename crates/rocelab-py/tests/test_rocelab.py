"""The rocelab Python package against the rocelab CLI: what Python reads is what the CLI prints
or writes for the same file, variant and seed."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Dict

import pandas
import pytest

import rocelab
from conftest import EXAMPLES, REPO, examples

LEAF_SPINE = EXAMPLES / "sim-flows-leaf-spine.yaml"
INCAST = EXAMPLES / "sim-incast-two-tier.yaml"
PERFTEST = EXAMPLES / "oracle-ofa2017-two-to-one.yaml"
STORAGE = EXAMPLES / "demartek-config4-two-switch.yaml"


def same_cell(ours: Any, theirs: str) -> bool:
    """A DataFrame's cell equals the CSV's field: empty (None, NaN or "") where the field is
    empty, the same text, or the same number (the CSV writes numbers in full, so exactly)."""
    if ours is None or ours == "" or (isinstance(ours, float) and math.isnan(ours)):
        return theirs == ""
    if isinstance(ours, str):
        return ours == theirs
    return float(ours) == float(theirs)


def assert_frame_is_csv(frame: pandas.DataFrame, csv: Path) -> None:
    """`frame` has the CSV file's columns, in its order, and the same rows."""
    expected = pandas.read_csv(csv, dtype=str, keep_default_na=False)
    assert list(frame.columns) == list(expected.columns), csv.name
    assert len(frame) == len(expected) > 0, csv.name
    for column in expected.columns:
        ours, theirs = frame[column].tolist(), expected[column].tolist()
        bad = [i for i, (a, b) in enumerate(zip(ours, theirs)) if not same_cell(a, b)]
        assert not bad, f"{csv.name}, column {column!r}, row {bad[0]}: {ours[bad[0]]!r} != {theirs[bad[0]]!r}"


# Loading and its errors.


def test_a_load_error_carries_file_line_column_and_field_path_and_prints_as_the_cli(cli, tmp_path):
    text = INCAST.read_text()
    assert "\n  duration: 2ms" in text
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace("\n  duration: 2ms", "\n  durration: 2ms", 1))
    where = broken.read_text().splitlines()
    line = next(i for i, l in enumerate(where, start=1) if "durration" in l)
    column = where[line - 1].index("durration") + 1

    with pytest.raises(rocelab.FabricError) as caught:
        rocelab.load(broken)
    error = caught.value
    assert isinstance(error, ValueError)
    typo = [d for d in error.diagnostics if "durration" in d.path]
    assert len(typo) == 1, error.diagnostics
    d = typo[0]
    assert (d.file, d.line, d.column, d.severity) == (str(broken), line, column, "error")
    assert d.path == "simulation.durration"
    assert d.expected and "duration" in d.expected
    assert d.suggestion == 'did you mean "duration"?'

    # `rocelab validate` prints the same diagnostics on stderr.
    shown = cli("validate", str(broken))
    assert shown.returncode == 1
    assert str(error) + "\n" == shown.stderr


def test_a_dict_loads_and_its_errors_point_into_its_json_text():
    source = {"fabrik": {}}
    with pytest.raises(rocelab.FabricError) as caught:
        rocelab.loads(source)
    unknown = [d for d in caught.value.diagnostics if d.path == "fabrik"]
    assert len(unknown) == 1
    d = unknown[0]
    assert d.file == "<dict>" and d.suggestion == 'did you mean "fabric"?'
    text = json.dumps(source, indent=2).splitlines()
    assert text[d.line - 1][d.column - 1 :].startswith('"fabrik"')


def test_yaml_text_loads_as_its_file_does():
    from_text = rocelab.loads(LEAF_SPINE.read_text(), name="leaf-spine.yaml")
    from_file = rocelab.load(LEAF_SPINE)
    assert from_text.file == "leaf-spine.yaml"
    assert (from_text.name, from_text.variants) == (from_file.name, from_file.variants)
    assert from_text.simulate(seed=5).digest == from_file.simulate(seed=5).digest


def test_variants_and_sweep_points_are_those_validate_counts(cli):
    for path in (LEAF_SPINE, STORAGE, INCAST):
        fabric = rocelab.load(path)
        said = cli("validate", str(path)).stdout
        counted = re.search(r"(\d+) variants and (\d+) sweep points checked", said)
        assert counted, said
        assert (len(fabric.variants), len(fabric.sweep_points)) == (int(counted[1]), int(counted[2]))
    storage = rocelab.load(STORAGE)
    assert storage.sweep_points[2] == "workloads.jobs[*].bs=4KiB"
    assert "load-70" in rocelab.load(LEAF_SPINE).variants


def test_validate_gives_a_broken_variant_as_data():
    text = LEAF_SPINE.read_text().replace("workloads.poisson[storage].load: 0.7", "workloads.poisson[storage].lod: 0.7")
    fabric = rocelab.loads(text, name="bad-variant.yaml")
    problems = [d for d in fabric.validate() if d.is_error]
    assert problems, "the variant's unknown field is an error"
    assert all(isinstance(d, rocelab.Diagnostic) for d in problems)
    assert any("in variant `load-70`" in d.message and d.line for d in problems), problems
    with pytest.raises(rocelab.FabricError):
        fabric.simulate(variant="load-70")


def test_an_unknown_variant_or_point_is_an_error_with_a_suggestion():
    fabric = rocelab.load(STORAGE)
    with pytest.raises(rocelab.FabricError) as caught:
        fabric.simulate(variant="congestion-dcqcn")
    assert "congestion-dcqcn-ets" in str(caught.value)
    with pytest.raises(ValueError, match=r'did you mean "workloads.jobs\[\*\].bs=4KiB"'):
        fabric.simulate(point="workloads.jobs[*].bs=4Kib")
    with pytest.raises(ValueError, match="no sweep point 99"):
        fabric.simulate(point=99)


# check and config, as the CLI gives them.


@pytest.mark.parametrize("path", examples(), ids=lambda p: p.stem)
def test_check_findings_are_the_clis_json(cli, path):
    shown = cli("check", str(path), "--format", "json")
    assert shown.returncode in (0, 2), shown.stderr
    assert rocelab.load(path).check() == json.loads(shown.stdout)


@pytest.mark.parametrize("path", examples(), ids=lambda p: p.stem)
def test_render_config_is_what_rocelab_config_writes(cli, path, tmp_path):
    theirs = tmp_path / "cli"
    shown = cli("config", str(path), "--out", str(theirs))
    assert shown.returncode in (0, 2), shown.stderr
    written = {p.name: p.read_text() for p in sorted(theirs.iterdir())}
    ours_dir = tmp_path / "py"
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        files = rocelab.load(path).render_config(output_dir=ours_dir)
    assert files == written
    assert list(files)[-1] == "RUNBOOK.md"
    assert {p.name: p.read_text() for p in ours_dir.iterdir()} == written
    # The CLI's stderr is the loader's warnings, then the findings, one a line.
    fabric = rocelab.load(path)
    ours_said = [str(w.message) for w in said if issubclass(w.category, rocelab.ConfigWarning)]
    assert ours_said == shown.stderr.splitlines()[len(fabric.warnings) :]


def test_render_config_refuses_an_output_dir_that_is_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError, match="not a directory"):
        rocelab.load(INCAST).render_config(output_dir=blocker / "out")


# Simulation.


def test_simulate_gives_the_clis_tables_as_dataframes(cli, tmp_path):
    out = tmp_path / "run"
    shown = cli("sim", str(LEAF_SPINE), "--seed", "3", "--out", str(out), "--quiet")
    assert shown.returncode == 0, shown.stderr
    results = rocelab.load(LEAF_SPINE).simulate(seed=3)
    for frame, csv in [
        (results.summary, "runs.csv"),
        (results.flows, "flows.csv"),
        (results.ports, "ports.csv"),
        (results.switches, "switches.csv"),
    ]:
        assert isinstance(frame, pandas.DataFrame)
        assert_frame_is_csv(frame, out / csv)
    assert results.text == (out / "summary.txt").read_text()

    # The FCT frame: the sized flows of the CLI's results, in microseconds.
    fct = json.loads((out / "results.json").read_text())["results"]["fct"]["flows"]
    frame = results.fct
    assert len(frame) == len(fct) > 100
    assert frame["size (B)"].tolist() == [f["size_bytes"] for f in fct]
    assert frame["standalone FCT (us)"].tolist() == [f["standalone_fct_ps"] / 1e6 for f in fct]
    done = [f for f in fct if f["fct_ps"] is not None]
    assert frame["FCT (us)"].dropna().tolist() == [f["fct_ps"] / 1e6 for f in done]
    assert frame["slowdown"].dropna().tolist() == [f["slowdown"] for f in done]
    assert set(frame["flow"]) <= set(results.flows["flow"])


def test_simulate_gives_storage_jobs_and_perftest_as_the_cli(cli, tmp_path):
    for path, table, csv in [(STORAGE, "storage_jobs", "jobs.csv"), (PERFTEST, "perftest", "perftest.csv")]:
        out = tmp_path / path.stem
        shown = cli("sim", str(path), "--out", str(out), "--quiet")
        assert shown.returncode == 0, shown.stderr
        results = rocelab.load(path).simulate()
        assert_frame_is_csv(getattr(results, table), out / csv)


def test_the_digest_is_the_clis_for_the_same_scenario_and_seed(cli):
    fabric = rocelab.load(INCAST)
    for variant in [None, fabric.variants[0]]:
        args = ["sim", str(INCAST), "--seed", "7", "--format", "json", "--quiet"]
        if variant:
            args += ["--variant", variant]
        shown = cli(*args)
        assert shown.returncode == 0, shown.stderr
        results = fabric.simulate(variant=variant, seed=7)
        assert re.fullmatch(r"[0-9a-f]{16}", results.digest)
        assert results.digest == rocelab.digest(shown.stdout)
        assert results.to_json() + "\n" == shown.stdout
    assert fabric.simulate(seed=8).digest != fabric.simulate(seed=7).digest


def test_the_lock_is_released_while_a_simulation_runs():
    """A Python thread counts while the main thread simulates: with the interpreter's lock held
    for the run it could not count at all. Measured against its rate when alone, on a run made
    long enough (a quarter second or more, in a debug or a release build) to measure."""
    text = INCAST.read_text()
    assert "\n  duration: 2ms" in text
    count = [0]
    stop = threading.Event()

    def counter() -> None:
        while not stop.is_set():
            count[0] += 1

    def rate_during(fabric: rocelab.Fabric):
        c0, t0 = count[0], time.perf_counter()
        results = fabric.simulate(seed=1)
        elapsed = time.perf_counter() - t0
        return results, elapsed, (count[0] - c0) / elapsed

    thread = threading.Thread(target=counter, daemon=True)
    thread.start()
    try:
        c0, t0 = count[0], time.perf_counter()
        time.sleep(0.2)
        alone_rate = (count[0] - c0) / (time.perf_counter() - t0)
        duration_ms = 20
        while True:
            long = text.replace("\n  duration: 2ms", f"\n  duration: {duration_ms}ms", 1)
            results, elapsed, during_rate = rate_during(rocelab.loads(long, name="long-incast.yaml"))
            if elapsed >= 0.25 or duration_ms >= 2000:
                break
            duration_ms = min(2000, int(duration_ms * 0.3 / max(elapsed, 0.01)) + 1)
    finally:
        stop.set()
        thread.join()
    print(
        f"counter: {alone_rate:,.0f}/s alone, {during_rate:,.0f}/s during a {elapsed:.2f} s simulation "
        f"of {duration_ms} ms ({during_rate / alone_rate:.0%})"
    )
    assert len(results.flows) > 0
    assert elapsed >= 0.25, "the run is too short to measure"
    # Alone the counter shares the cores with nothing of ours; during the run, with the engine.
    # Under a held lock it would be stopped (0 %); released, it keeps a good share.
    assert during_rate > 0.2 * alone_rate


def test_simulations_in_threads_give_the_serial_digests():
    fabric = rocelab.load(LEAF_SPINE)
    serial = [fabric.simulate(seed=s).digest for s in (1, 2)]
    found: Dict[int, str] = {}
    threads = [threading.Thread(target=lambda s=s: found.__setitem__(s, fabric.simulate(seed=s).digest)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [found[1], found[2]] == serial
    assert serial[0] != serial[1]


# The README.


def readme_python_example() -> str:
    readme = (REPO / "README.md").read_text()
    section = readme.split("\n## Python\n", 1)
    assert len(section) == 2, "README.md has a `## Python` section"
    block = re.search(r"```python\n(.*?)```", section[1], re.S)
    assert block, "the Python section has a ```python example"
    return block[1]


def test_the_readme_python_example_runs_as_shown(cli):
    code = readme_python_example()
    lines = [l for l in code.splitlines() if l.strip()]
    assert len(lines) == 6, code
    ran = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr
    printed = ran.stdout.splitlines()
    # The digest it prints last is the CLI's for the same run.
    shown = cli("sim", str(LEAF_SPINE.relative_to(REPO)), "--variant", "load-70", "--seed", "2", "--format", "json", "--quiet")
    assert printed[-1].split()[-1] == rocelab.digest(shown.stdout)
    assert "load-70" in printed[0]
