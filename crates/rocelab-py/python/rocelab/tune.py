"""Automatic tuning of a fabric's parameters (ECN thresholds, DCQCN timers and gains, ...) for an
objective over simulation results: the ``tune:`` section of a fabric file, searched with Ray
Tune (``ray.tune.Tuner``) and Optuna's sampler (``ray.tune.search.optuna.OptunaSearch``, a TPE
sampler seeded with ``tune.seed``), each trial one simulation as a Ray Tune trial.

Every trial is the base fabric with the sampled values set at the parameters' paths, as a
variant sets them, simulated under the file's ``simulation.seed``: a trial is a pure function
of its parameters, and its digest names its results. With one trial at a time (the default),
each suggestion sees every earlier result, so the same seed gives the same trials; with
``concurrency`` above one, what the sampler suggests depends on which trials finished first.

Constraints do not steer the sampler: they decide which trials may be the best. With two
objectives the best trials are the Pareto front of those that meet the constraints.

What it writes into the output folder:

- ``trials.csv`` and ``trials.json``: one row per trial (parameters by path, the objectives'
  and constraints' figures, whether the constraints hold, the digest, or the error), and the
  starting configuration's row;
- ``best.yaml``: the fabric file with the best configuration as a variant (``tuned``, or one
  ``pareto-<trial>`` per point of the front), which ``rocelab config --variant`` renders;
- ``report.html``: the trials, the Pareto front when there are two objectives, and the best
  against the starting configuration.

From Python, :meth:`rocelab.Fabric.tune`; from a shell (what ``rocelab tune`` runs)::

    python -m rocelab.tune FILE --out DIR [--trials N] [--ray ADDRESS] [--concurrency K] [--cpus C]
"""

from __future__ import annotations

import argparse
import copy
import csv
import dataclasses
import json
import math
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

if TYPE_CHECKING:
    from . import Fabric, Results

#: The pip command that installs what a search needs.
PIP_INSTALL = 'pip install "ray[tune]>=2.9" "optuna>=3.4" pyyaml'

#: Metrics over the sized flows of a run (the ``fct`` table), narrowed by size.
PER_FLOW = {"fct_slowdown_p50", "fct_slowdown_p99", "fct_p50_us", "fct_p99_us", "flow_throughput_gbps"}

#: Run totals: the metric and its column of the ``summary`` table (``runs.csv``).
SUMMARY = {
    "goodput_gbps": "goodput (Gb/s)",
    "paused_us": "paused (us)",
    "pfc_frames": "PFC frames sent",
    "ecn_marks": "ECN marks",
    "drops": "drops",
    "peak_queue_bytes": "peak queue (B)",
}

#: The variant name a trial is applied as; the best configuration's is ``tuned``.
TRIAL_VARIANT = "tune-trial"


class TuneUnavailable(RuntimeError):
    """Ray Tune, Optuna or PyYAML is missing: the message carries the pip command."""


def _require() -> None:
    missing = []
    for module in ("ray.tune", "optuna", "yaml"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise TuneUnavailable(
            f"rocelab tune needs Ray Tune, Optuna and PyYAML; missing: {', '.join(missing)}. Install them with: {PIP_INSTALL}"
        )


@dataclass(frozen=True)
class Goal:
    """An objective or a constraint: a metric, narrowed to flows by size for per-flow ones."""

    metric: str
    under: Optional[int] = None
    over: Optional[int] = None
    direction: str = "minimize"
    min: Optional[float] = None
    max: Optional[float] = None

    @property
    def name(self) -> str:
        """The column name: the metric with its flow-size filter, e.g.
        ``fct_slowdown_p99 [size < 100000 B]``."""
        parts = []
        if self.over is not None:
            parts.append(f"size >= {self.over} B")
        if self.under is not None:
            parts.append(f"size < {self.under} B")
        return self.metric + (f" [{', '.join(parts)}]" if parts else "")

    def holds(self, value: float) -> bool:
        if value is None or math.isnan(value):
            return False
        return (self.max is None or value <= self.max) and (self.min is None or value >= self.min)

    @staticmethod
    def of(d: Dict[str, Any]) -> "Goal":
        f = d.get("filter") or {}
        return Goal(
            metric=d["metric"],
            under=f.get("flows_under_bytes"),
            over=f.get("flows_over_bytes"),
            direction=d.get("direction", "minimize"),
            min=d.get("min"),
            max=d.get("max"),
        )


@dataclass
class Plan:
    """The ``tune:`` section as the search uses it (from ``Fabric.tune_plan``)."""

    parameters: List[Dict[str, Any]]
    objectives: List[Goal]
    constraints: List[Goal]
    trials: int
    seed: int
    #: The variant every trial starts from (``tune.variant``), or None for the base.
    variant: Optional[str] = None

    @staticmethod
    def of(fabric: "Fabric") -> "Plan":
        text = fabric._native.tune_plan
        if text is None:
            raise ValueError(f"{fabric.file}: no `tune:` section; add one naming the parameters and the objective")
        d = json.loads(text)
        return Plan(
            parameters=d["parameters"],
            objectives=[Goal.of(o) for o in d["objective"]],
            constraints=[Goal.of(c) for c in d.get("constraints") or []],
            trials=int(d["trials"]),
            seed=int(d["seed"]) if d.get("seed") is not None else fabric.seed,
            variant=d.get("variant"),
        )

    def value(self, i: int, sampled: Any) -> Any:
        """A sampled value as the field takes it (an int with its unit: ``300us``), as the
        model's ``tune::int_value`` writes it."""
        p = self.parameters[i]
        if p["type"] == "int":
            return f"{int(sampled)}{p['unit']}" if p.get("unit") else int(sampled)
        if p["type"] == "float":
            return float(sampled)
        return sampled

    def assignment(self, config: Dict[str, Any]) -> Dict[str, Any]:
        """``{path: value}`` of one trial from its Ray Tune config ``{p0: ..., p1: ...}``."""
        return {p["path"]: self.value(i, config[f"p{i}"]) for i, p in enumerate(self.parameters)}


# ---------------------------------------------------------------------------------------------
# Figures of a run


def _rank(values: List[float], q: float) -> float:
    """The nearest-rank percentile: the smallest value with at least ``q`` of them at or below."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _known(v: Any) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def figure(results: "Results", goal: Goal) -> float:
    """The goal's metric on one run. A per-flow metric with no flow in its size range is an
    error, not a zero that a search would chase."""
    m = goal.metric
    if m in PER_FLOW:
        f = results.fct
        # Flows still running at the end have no FCT (an empty cell): only completed ones count.
        rows = [
            (float(size), float(fct), float(slow))
            for size, fct, slow in zip(f["size (B)"], f["FCT (us)"], f["slowdown"])
            if _known(fct) and _known(slow)
            and (goal.under is None or size < goal.under)
            and (goal.over is None or size >= goal.over)
        ]
        if not rows:
            raise ValueError(f"{goal.name}: no completed flow in that size range")
        if m == "fct_slowdown_p50":
            return _rank([r[2] for r in rows], 0.50)
        if m == "fct_slowdown_p99":
            return _rank([r[2] for r in rows], 0.99)
        if m == "fct_p50_us":
            return _rank([r[1] for r in rows], 0.50)
        if m == "fct_p99_us":
            return _rank([r[1] for r in rows], 0.99)
        # Size over completion time: bytes per µs × 8 is Mb/s, / 1000 Gb/s.
        return sum(size * 8 / fct / 1e3 for size, fct, _ in rows if fct > 0) / len(rows)
    if m in SUMMARY:
        return float(results.summary[SUMMARY[m]].iloc[0])
    jobs = results.storage_jobs
    if len(jobs) == 0:
        raise ValueError(f"{m}: the run has no storage jobs")
    if m == "storage_iops":
        return float(jobs["IOPS"].sum())
    if m == "storage_clat_p99_us":
        return float(jobs["clat p99 (us)"].max())
    raise ValueError(f"unknown metric `{m}`")


# ---------------------------------------------------------------------------------------------
# One trial


#: Fields that name a file, relative to the fabric file's folder.
FILE_FIELDS = (("workloads", "poisson", "cdf"), ("workloads", "hpcc_flows", "file"))


def rebase_paths(doc: Dict[str, Any], base_dir: str, to_dir: Optional[str] = None) -> None:
    """Makes the file names in ``doc`` (HPCC topology, CDF and flow files) absolute, or relative
    to ``to_dir``, so that the fabric loads from elsewhere than its own folder."""

    def moved(name: Any) -> Any:
        if not isinstance(name, str) or os.path.isabs(name):
            return name
        full = os.path.normpath(os.path.join(base_dir, name))
        return full if to_dir is None else os.path.relpath(full, to_dir)

    imp = ((doc.get("fabric") or {}).get("topology") or {}).get("import")
    if isinstance(imp, dict) and "hpcc" in imp:
        imp["hpcc"] = moved(imp["hpcc"])
    for section, kind, key in FILE_FIELDS:
        for entry in ((doc.get(section) or {}).get(kind) or []):
            if isinstance(entry, dict) and key in entry:
                entry[key] = moved(entry[key])


@dataclass
class Source:
    """The fabric a trial starts from: its document (``tune`` removed, file names absolute),
    its name in diagnostics, and the simulation seed every trial runs under."""

    doc: Dict[str, Any]
    name: str
    seed: int


def source_of(fabric: "Fabric") -> Tuple[Source, Dict[str, Any], str]:
    """The trials' source, and the document as written with the folder it was written in."""
    import yaml

    if fabric._source is not None:
        text, name = fabric._source
        base_dir = os.getcwd()
    else:
        name = fabric.file
        with open(name, encoding="utf-8") as f:
            text = f.read()
        base_dir = os.path.dirname(os.path.abspath(name))
    written = yaml.safe_load(text)
    doc = copy.deepcopy(written)
    doc.pop("tune", None)
    rebase_paths(doc, base_dir)
    return Source(doc=doc, name=name, seed=fabric.seed), written, base_dir


def with_variant(doc: Dict[str, Any], name: str, assignment: Dict[str, Any], description: str) -> Dict[str, Any]:
    out = copy.deepcopy(doc)
    variants = [v for v in out.get("variants") or [] if v.get("name") != name]
    variants.append({"name": name, "description": description, "set": dict(assignment)})
    out["variants"] = variants
    return out


def starting_set(doc: Dict[str, Any], variant: Optional[str]) -> Dict[str, Any]:
    """The overrides of the variant a search starts from (none for the base)."""
    if variant is None:
        return {}
    for v in doc.get("variants") or []:
        if v.get("name") == variant:
            return dict(v.get("set") or {})
    raise ValueError(f"no variant `{variant}` to start from")


def evaluate(source: Source, assignment: Optional[Dict[str, Any]], plan: Plan) -> Dict[str, Any]:
    """Simulates the starting configuration (``assignment`` None: the base or ``tune.variant``)
    or a trial (the starting variant's overrides, then the sampled values) and gives its row:
    the goals' figures by name, ``feasible``, ``digest``, or ``error``."""
    from . import loads

    row: Dict[str, Any] = {"digest": None, "error": None, "feasible": False}
    try:
        if assignment is None:
            fabric = loads(source.doc, name=source.name)
            results = fabric.simulate(variant=plan.variant, seed=source.seed)
        else:
            assignment = {**starting_set(source.doc, plan.variant), **assignment}
            doc = with_variant(source.doc, TRIAL_VARIANT, assignment, "a trial of rocelab tune")
            fabric = loads(doc, name=source.name)
            results = fabric.simulate(variant=TRIAL_VARIANT, seed=source.seed)
        row["digest"] = results.digest
        for g in plan.objectives + plan.constraints:
            row[g.name] = figure(results, g)
        row["feasible"] = all(g.holds(row[g.name]) for g in plan.constraints)
    except Exception as e:  # noqa: BLE001 - a failed trial is recorded; the search goes on
        row["error"] = f"{type(e).__name__}: {e}"
        for g in plan.objectives:
            row.setdefault(g.name, float("nan"))
    return row


def _trainable(source: Source, plan: Plan):
    """The Ray Tune function trainable: one simulation, one ``tune.report``."""

    def trial(config: Dict[str, Any]) -> None:
        from ray import tune

        row = evaluate(source, plan.assignment(config), plan)
        metrics = {f"objective_{i}": row[g.name] for i, g in enumerate(plan.objectives)}
        metrics["row"] = json.dumps(row)
        tune.report(metrics)

    return trial


# ---------------------------------------------------------------------------------------------
# The search


@dataclass
class TuneResult:
    """What a search found: every trial's row (in the order they were started), the starting
    configuration's row, the best trials (one, or the Pareto front) and the files written."""

    plan: Plan
    start: Dict[str, Any]
    trials: List[Dict[str, Any]]
    best: List[Dict[str, Any]]
    out: str
    files: List[str] = field(default_factory=list)

    def frame(self):
        """The trials as a pandas DataFrame (``trials.csv``)."""
        import pandas

        return pandas.DataFrame(self.trials)


def _space(plan: Plan) -> Dict[str, Any]:
    """The parameters as Optuna distributions (``optuna.distributions``), inclusive ranges."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    space = {}
    for i, p in enumerate(plan.parameters):
        if p["type"] == "int":
            space[f"p{i}"] = IntDistribution(int(p["low"]), int(p["high"]), log=bool(p.get("log")))
        elif p["type"] == "float":
            space[f"p{i}"] = FloatDistribution(float(p["low"]), float(p["high"]), log=bool(p.get("log")))
        else:
            space[f"p{i}"] = CategoricalDistribution(list(p["values"]))
    return space


def _ray_init(ray: Union[None, bool, str], cpus: Optional[int]) -> None:
    import ray as ray_module

    if ray_module.is_initialized():
        return
    address = None if ray in (None, True, "local") else str(ray)
    kwargs: Dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address is None and cpus is not None:
        kwargs["num_cpus"] = cpus
    ray_module.init(address=address, **kwargs)


def search(
    fabric: "Fabric",
    trials: Optional[int] = None,
    ray: Union[None, bool, str] = None,
    concurrency: int = 1,
    cpus: Optional[int] = None,
    storage: Optional[str] = None,
) -> Tuple[Plan, Source, Dict[str, Any], List[Dict[str, Any]]]:
    """Runs the search; gives the plan, the source, the start's row and the trials' rows."""
    _require()
    from ray import tune
    from ray.tune.search.optuna import OptunaSearch

    from . import FabricError

    plan = Plan.of(fabric)
    if trials is not None:
        if trials < 1:
            raise ValueError(f"trials: {trials}; expected at least 1")
        plan.trials = trials
    if concurrency < 1:
        raise ValueError(f"concurrency: {concurrency}; expected at least 1")
    problems = [d for d in fabric.validate() if d.is_error]
    if problems:
        raise FabricError("\n".join(f"{d.file}:{d.line}:{d.column}: error: {d.path}: {d.message}" for d in problems), [dataclasses.asdict(d) for d in problems])
    source, _, _ = source_of(fabric)
    start = evaluate(source, None, plan)
    _ray_init(ray, cpus)
    metric = [f"objective_{i}" for i in range(len(plan.objectives))]
    mode = ["min" if g.direction == "minimize" else "max" for g in plan.objectives]
    searcher = OptunaSearch(
        space=_space(plan),
        metric=metric if len(metric) > 1 else metric[0],
        mode=mode if len(mode) > 1 else mode[0],
        seed=plan.seed,
    )
    tuner = tune.Tuner(
        tune.with_resources(_trainable(source, plan), {"cpu": 1}),
        tune_config=tune.TuneConfig(search_alg=searcher, num_samples=plan.trials, max_concurrent_trials=concurrency),
        run_config=tune.RunConfig(name="rocelab-tune", storage_path=storage, verbose=0),
    )
    grid = tuner.fit()
    rows = []
    for result in grid:
        config = result.config or {}
        trial_id = str((result.metrics or {}).get("trial_id", ""))
        number = int(trial_id.rsplit("_", 1)[-1]) if "_" in trial_id else len(rows)
        row: Dict[str, Any] = {"trial": number}
        row.update({p["path"]: plan.value(i, config[f"p{i}"]) for i, p in enumerate(plan.parameters) if f"p{i}" in config})
        if result.error is not None or "row" not in (result.metrics or {}):
            row.update({"digest": None, "feasible": False, "error": f"the trial failed in Ray: {result.error}"})
        else:
            row.update(json.loads(result.metrics["row"]))
        rows.append(row)
    rows.sort(key=lambda r: r["trial"])
    return plan, source, start, rows


def pareto(rows: List[Dict[str, Any]], goals: List[Goal]) -> List[Dict[str, Any]]:
    """The rows no other row dominates (at least as good on every goal, better on one)."""

    def key(r: Dict[str, Any]) -> List[float]:
        return [r[g.name] if g.direction == "minimize" else -r[g.name] for g in goals]

    keys = [key(r) for r in rows]
    front = []
    for i, r in enumerate(rows):
        dominated = any(
            all(a <= b for a, b in zip(keys[j], keys[i])) and any(a < b for a, b in zip(keys[j], keys[i]))
            for j in range(len(rows))
            if j != i
        )
        if not dominated:
            front.append(r)
    return front


def best_of(plan: Plan, rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The best feasible trial (the first on a tie), or with two objectives their Pareto front."""
    names = [g.name for g in plan.objectives]
    ok = [r for r in rows if r.get("error") is None and r.get("feasible") and not any(math.isnan(r[n]) for n in names)]
    if not ok:
        return []
    if len(plan.objectives) == 2:
        return pareto(ok, plan.objectives)
    g = plan.objectives[0]
    sign = 1 if g.direction == "minimize" else -1
    return [min(ok, key=lambda r: (sign * r[g.name], r["trial"]))]


def write_best(path: str, written: Dict[str, Any], base_dir: str, plan: Plan, best: List[Dict[str, Any]]) -> None:
    """The fabric file as written (``tune:`` removed, file names relative to ``path``'s
    folder) with the best configuration as a variant: ``tuned``, or one ``pareto-<trial>`` per
    point of the front."""
    import yaml

    doc = copy.deepcopy(written)
    doc.pop("tune", None)
    rebase_paths(doc, base_dir, os.path.dirname(os.path.abspath(path)))
    paths = [p["path"] for p in plan.parameters]
    start = starting_set(doc, plan.variant)
    for r in best:
        name = "tuned" if len(best) == 1 and len(plan.objectives) == 1 else f"pareto-{r['trial']}"
        figures = ", ".join(f"{g.name} {r[g.name]:.6g}" for g in plan.objectives)
        on = f" on variant {plan.variant}" if plan.variant else ""
        values = {**start, **{p: r[p] for p in paths}}
        doc = with_variant(doc, name, values, f"rocelab tune{on}, trial {r['trial']}: {figures}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Written by rocelab tune: the fabric with the best configuration found as a variant.\n")
        yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=False, allow_unicode=True)


def write_trials(out: str, plan: Plan, start: Dict[str, Any], rows: List[Dict[str, Any]]) -> List[str]:
    """``trials.json`` (the plan, the start and every trial) and ``trials.csv`` (the start as
    trial ``start``, then the trials)."""
    goals = [g.name for g in plan.objectives + plan.constraints]
    columns = ["trial", *[p["path"] for p in plan.parameters], *goals, "feasible", "digest", "error"]
    with open(os.path.join(out, "trials.json"), "w", encoding="utf-8") as f:
        json.dump({"seed": plan.seed, "trials_asked": plan.trials, "start": start, "trials": rows}, f, indent=2, default=str)
        f.write("\n")
    with open(os.path.join(out, "trials.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerow({**start, "trial": "start"})
        for r in rows:
            w.writerow(r)
    return ["trials.json", "trials.csv"]


def tune(
    fabric: "Fabric",
    out: Union[str, "os.PathLike[str]"],
    trials: Optional[int] = None,
    ray: Union[None, bool, str] = None,
    concurrency: int = 1,
    cpus: Optional[int] = None,
) -> TuneResult:
    """Searches, then writes ``trials.csv``, ``trials.json``, ``best.yaml`` (when a trial met
    the constraints) and ``report.html`` into ``out``. See the module's documentation."""
    from .tune_report import write_report

    out = os.path.abspath(os.fspath(out))
    os.makedirs(out, exist_ok=True)
    plan, source, start, rows = search(
        fabric, trials=trials, ray=ray, concurrency=concurrency, cpus=cpus, storage=os.path.join(out, "ray")
    )
    result = TuneResult(plan=plan, start=start, trials=rows, best=best_of(plan, rows), out=out)
    result.files += write_trials(out, plan, start, rows)
    if result.best:
        _, written, base_dir = source_of(fabric)
        write_best(os.path.join(out, "best.yaml"), written, base_dir, plan, result.best)
        result.files.append("best.yaml")
    write_report(os.path.join(out, "report.html"), fabric.name, result)
    result.files.append("report.html")
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m rocelab.tune``: exit 0 with a best configuration, 1 when no trial met the
    constraints, 2 on bad input or a missing Ray Tune / Optuna (with the pip command)."""
    from . import FabricError, load

    parser = argparse.ArgumentParser(
        prog="python -m rocelab.tune", description="Search a fabric's tune: parameters with Ray Tune and Optuna."
    )
    parser.add_argument("file", help="the fabric file, with a tune: section")
    parser.add_argument("--out", required=True, metavar="DIR", help="where the trials, best.yaml and report.html go")
    parser.add_argument("--trials", type=int, metavar="N", help="how many trials (default: tune.trials)")
    parser.add_argument("--ray", metavar="ADDRESS", help="an existing Ray cluster (default: a local Ray)")
    parser.add_argument("--concurrency", type=int, default=1, metavar="K", help="trials at once (default 1: reproducible)")
    parser.add_argument("--cpus", type=int, metavar="C", help="CPUs of the local Ray (default: all)")
    args = parser.parse_args(argv)
    try:
        _require()
        result = tune(load(args.file), args.out, trials=args.trials, ray=args.ray, concurrency=args.concurrency, cpus=args.cpus)
    except FabricError as e:
        print(e, file=sys.stderr)
        return 2
    except (TuneUnavailable, ValueError, OSError, RuntimeError) as e:
        # RuntimeError: Ray could not start or reach the cluster (TuneUnavailable is one too).
        print(f"error: {e}", file=sys.stderr)
        return 2
    failed = sum(1 for r in result.trials if r.get("error"))
    print(f"{len(result.trials)} trials ({failed} failed) written to {result.out}: {', '.join(result.files)}")
    if not result.best:
        print("error: no trial met the constraints; see report.html", file=sys.stderr)
        return 1
    for r in result.best:
        figures = ", ".join(f"{g.name} = {r[g.name]:.6g}" for g in result.plan.objectives)
        print(f"best: trial {r['trial']}: {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
