"""Every run of a fabric's sweep, the runs of ``rocelab sim --all``: the base scenario and every
variant, each at every sweep point and under every seed, run one after the other in this
process or as Ray tasks (``ray.remote`` functions gathered with ``ray.get``: Ray's task API,
https://docs.ray.io/en/latest/ray-core/tasks.html). Each run is deterministic by its seed, so a
run's digest is the same whichever way it ran.

From Python, :meth:`rocelab.Fabric.sweep`; from a shell::

    python -m rocelab.sweep FILE [--seeds N] [--ray [ADDRESS]] [--csv OUT]

which prints (or writes to OUT) the table as CSV and exits 1 when a run failed.

``rocelab sim FILE --all --ray [ADDRESS] --out DIR`` runs this module as its driver
(``python -m rocelab.sweep --plan - --out DIR``, :func:`drive`): the CLI plans the runs, the
tasks make each run's folder with the CLI's own code, and the CLI writes the index and report.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

if TYPE_CHECKING:
    import pandas

    from . import Fabric

#: One run: (variant or None for the base, sweep point ``field=value`` or None, seed or None
#: for the file's ``simulation.seed``).
Run = Tuple[Optional[str], Optional[str], Optional[int]]

#: Where a Ray worker loads the fabric from: ``("file", absolute path)`` or ``("text", YAML
#: text, name)`` for a fabric made by :func:`rocelab.loads`.
Source = Tuple[str, ...]

Seeds = Union[None, int, Sequence[int]]

#: The columns every row starts with; the run's summary (``runs.csv``) follows.
KEY_COLUMNS = ["variant", "point", "seed", "label", "digest", "error"]


def seeds_of(fabric: "Fabric", seeds: Seeds) -> List[Optional[int]]:
    """The seeds every point runs under, as ``sim --all`` chooses them: ``None``, the file's
    ``simulation.seeds`` (or its ``simulation.seed`` alone when it lists none); an int N,
    ``simulation.seed`` and the N-1 after it (``--seeds N``); a list, those seeds."""
    if seeds is None:
        return list(fabric.seeds) if fabric.seeds else [None]
    if isinstance(seeds, bool):
        raise TypeError("seeds: expected None, a count or a list of seeds, not a bool")
    if isinstance(seeds, int):
        if not 1 <= seeds <= 64:
            raise ValueError(f"seeds: {seeds} is not in 1..=64 (the most rocelab runs a point under)")
        return [fabric.seed + i for i in range(seeds)]
    chosen = [int(s) for s in seeds]
    if not chosen:
        raise ValueError("seeds: an empty list; give at least one seed, or None for the file's")
    repeated = sorted({s for s in chosen if chosen.count(s) > 1})
    if repeated:
        raise ValueError(f"seeds: {repeated} given more than once; each seed runs once")
    return chosen


def plan(fabric: "Fabric", seeds: Seeds = None) -> List[Run]:
    """The runs in ``sim --all``'s order: variant (the base first), then sweep point, then seed."""
    points: List[Optional[str]] = list(fabric.sweep_points) or [None]
    variants: List[Optional[str]] = [None, *fabric.variants]
    chosen = seeds_of(fabric, seeds)
    return [(v, p, s) for v in variants for p in points for s in chosen]


def _row(variant: Optional[str], point: Optional[str], seed: Optional[int]) -> Dict[str, Any]:
    return {"variant": variant, "point": point, "seed": seed, "label": None, "digest": None, "error": None}


def failed(run: Run, error: BaseException) -> Dict[str, Any]:
    """The row of a run that failed: its key and the error as text, no figures."""
    row = _row(*run)
    row["error"] = f"{type(error).__name__}: {error}"
    return row


def run_one(fabric: "Fabric", run: Run) -> Dict[str, Any]:
    """Simulates one run and gives its row: the key, the digest and the summary's columns. A
    run that fails gives a row with its ``error`` instead of raising, so the others go on."""
    variant, point, seed = run
    try:
        results = fabric.simulate(variant=variant, point=point, seed=seed)
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, not raised
        return failed(run, e)
    row = _row(variant, point, results.seed)
    # As `sim --all` labels a run that is one of several seeds of its point.
    row["label"] = results.label if seed is None else f"{results.label} seed {seed}"
    row["digest"] = results.digest
    summary = results.summary
    for column in summary.columns:
        if column not in row:
            row[column] = summary[column].iloc[0]
    return row


def source_of(fabric: "Fabric") -> Source:
    """Where a Ray worker can load ``fabric`` again (a native fabric does not cross processes)."""
    text = fabric._source
    if text is not None:
        return ("text", text[0], text[1])
    return ("file", os.path.abspath(fabric.file))


_loaded: Dict[Source, "Fabric"] = {}


def _fabric_from(source: Source) -> "Fabric":
    """The fabric at ``source``, loaded once per process (a Ray worker runs many tasks)."""
    from . import load, loads

    fabric = _loaded.get(source)
    if fabric is None:
        fabric = load(source[1]) if source[0] == "file" else loads(source[1], name=source[2])
        _loaded[source] = fabric
    return fabric


def run_from_source(source: Source, run: Run) -> Dict[str, Any]:
    """:func:`run_one` in a Ray worker: the fabric loaded from ``source`` once per worker."""
    try:
        fabric = _fabric_from(source)
    except Exception as e:  # noqa: BLE001 - recorded in the run's row
        return failed(run, e)
    return run_one(fabric, run)


def ray_rows(fabric: "Fabric", runs: List[Run], ray: Union[bool, str]) -> List[Dict[str, Any]]:
    """Runs every run as a Ray task, one CPU each. ``ray`` is ``True`` (or ``"local"``) for a
    local Ray started on demand (``ray.init()``), else the address of an existing cluster
    (``ray.init(address=...)``, e.g. ``"auto"`` or ``"ray://head:10001"``); when Ray is already
    initialised in this process it is used as it is. The workers import ``rocelab``: on a
    cluster, install the package on every node."""
    try:
        import ray as ray_module
    except ImportError as e:
        raise RuntimeError("ray= needs Ray: `pip install ray` (or run the sweep serially, ray=None)") from e
    if not ray_module.is_initialized():
        address = None if ray is True or ray == "local" else str(ray)
        ray_module.init(address=address, include_dashboard=False, log_to_driver=False)
    task = ray_module.remote(num_cpus=1)(run_from_source)
    source = source_of(fabric)
    refs = [task.remote(source, r) for r in runs]
    rows = []
    for ref, r in zip(refs, runs):
        try:
            rows.append(ray_module.get(ref))
        except Exception as e:  # noqa: BLE001 - a task Ray lost (worker died) is recorded too
            rows.append(failed(r, e))
    return rows


def sweep(fabric: "Fabric", seeds: Seeds = None, ray: Union[None, bool, str] = None) -> "pandas.DataFrame":
    """One row per run of ``sim --all`` (see :func:`plan`), in its order, with the columns
    :data:`KEY_COLUMNS` and then the run's summary (``runs.csv``); a failed run has its
    ``error`` and no figures. Serial by default; as Ray tasks with ``ray`` (see
    :func:`ray_rows`)."""
    import pandas

    runs = plan(fabric, seeds)
    if ray is None or ray is False:
        rows = [run_one(fabric, r) for r in runs]
    else:
        rows = ray_rows(fabric, runs, ray)
    frame = pandas.DataFrame(rows)
    for column in KEY_COLUMNS:
        if column not in frame.columns:
            frame[column] = None
    rest = [c for c in frame.columns if c not in KEY_COLUMNS]
    return frame[KEY_COLUMNS + rest]


#: The version of the plan ``rocelab sim --all --ray`` sends and of the lines answered
#: (``PROTOCOL`` in the CLI's ``cmd/sim_ray.rs``).
PROTOCOL = 1

#: A run's files as the native module gives them: ``[(name, bytes)]``.
Files = List[Tuple[str, bytes]]


def files_from_source(source: Source, run: Dict[str, Any]) -> Tuple[Optional[Files], Optional[str]]:
    """One run of ``rocelab sim --all --ray``, in a Ray worker: the files of its folder, made
    by the CLI's own code in the native module (``_rocelab.run_files``), or why it failed.
    ``run`` is one entry of the CLI's plan (variant, sweep point index, seed, seeded)."""
    from . import _rocelab

    try:
        fabric = _fabric_from(source)
        files = _rocelab.run_files(fabric._native, run["variant"], run["point"], run["seed"], run["seeded"])
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, the others go on
        return None, str(e)
    return files, None


def _emit(line: Dict[str, Any]) -> None:
    """One line to the CLI, which reads the driver's stdout as it comes."""
    print(json.dumps(line), flush=True)


def drive(plan: Dict[str, Any], out: str) -> int:
    """``rocelab sim --all --ray``'s driver: every run of ``plan`` (the CLI's, read from
    stdin) as a Ray task, one CPU each, on a new local Ray (``ray.init(address="local")``) or
    the cluster at the plan's address; each run's files written into ``out`` under the CLI's
    folder rules (``_rocelab.write_run_files``) as its task finishes (``ray.wait``). Prints
    ``{"ready": N}`` once the tasks are submitted, then ``{"run": k, "error": null or text}``
    per finished run; the CLI writes the index and the report. Exit 2 when it cannot start."""
    from . import __version__, _rocelab

    if plan.get("protocol") != PROTOCOL:
        print(f"error: a plan of protocol {plan.get('protocol')}; this driver reads {PROTOCOL}", file=sys.stderr)
        return 2
    if plan.get("version") not in (None, __version__):
        print(
            f"error: the rocelab package here is {__version__} and the CLI {plan.get('version')}; install the"
            " package of the same release (pip install ./crates/rocelab-py)",
            file=sys.stderr,
        )
        return 2
    try:
        import ray
    except ImportError:
        print(f"error: {sys.executable} has no Ray: pip install 'ray>=2.9'", file=sys.stderr)
        return 2
    given = plan["source"]
    source: Source = ("file", given["file"]) if "file" in given else ("text", given["text"], given["name"])
    runs = plan["runs"]
    started = not ray.is_initialized()
    if started:
        ray.init(address=plan.get("ray") or "local", include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(files_from_source)
        refs = [task.remote(source, r) for r in runs]
        which = {ref: k for k, ref in enumerate(refs)}
        _emit({"ready": len(runs)})
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                k = which[ref]
                try:
                    files, error = ray.get(ref)
                except Exception as e:  # noqa: BLE001 - a task Ray lost (a worker died) is recorded too
                    files, error = None, f"the Ray task failed: {type(e).__name__}: {e}"
                if error is None:
                    try:
                        _rocelab.write_run_files(out, runs[k]["dir"], files)
                    except OSError as e:
                        error = str(e)
                _emit({"run": k, "error": error})
    finally:
        if started:
            ray.shutdown()
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m rocelab.sweep``: exit 0 when every run ran, 1 when one failed, 2 on a fabric
    that does not load or bad arguments."""
    from . import FabricError, load

    parser = argparse.ArgumentParser(
        prog="python -m rocelab.sweep", description="Run every variant, sweep point and seed of a fabric file."
    )
    parser.add_argument("file", nargs="?", help="the fabric file")
    parser.add_argument("--seeds", type=int, metavar="N", help="N seeds from simulation.seed up")
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="run as Ray tasks: a local Ray started on demand, or the cluster at ADDRESS",
    )
    parser.add_argument("--csv", metavar="OUT", help="write the table here instead of stdout")
    parser.add_argument(
        "--plan",
        metavar="PLAN",
        help="the driver of `rocelab sim --all --ray`: run the CLI's plan (JSON; - for stdin) and write the runs into --out",
    )
    parser.add_argument("--out", metavar="DIR", help="with --plan: the output folder of `rocelab sim --all`")
    args = parser.parse_args(argv)
    if args.plan is not None:
        if args.out is None:
            parser.error("--plan needs --out DIR")
        text = sys.stdin.read() if args.plan == "-" else open(args.plan, encoding="utf-8").read()
        return drive(json.loads(text), args.out)
    if args.file is None:
        parser.error("the fabric file is required")
    try:
        frame = sweep(load(args.file), seeds=args.seeds, ray=args.ray)
    except (FabricError, ValueError, RuntimeError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    frame.to_csv(args.csv if args.csv else sys.stdout, index=False)
    bad = frame[frame["error"].notna()]
    for _, row in bad.iterrows():
        print(f"{row['variant'] or 'base'} {row['point'] or ''} seed {row['seed']}: {row['error']}", file=sys.stderr)
    return 1 if len(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
