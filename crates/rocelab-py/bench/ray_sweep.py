"""The Ray sweep's benchmark (docs/benchmarks.md, "Sweeps on Ray"): run it with the Python that
has the rocelab package and Ray, and the CLI to measure::

    .venv/bin/python crates/rocelab-py/bench/ray_sweep.py --cli target/release/rocelab

It measures, on this machine:

1. a sweep of 32 short runs (the base and a variant, two sweep points, 8 seeds each) with
   ``rocelab sim --all`` serially and with ``--ray`` (a local Ray with the machine's CPUs), the
   wall time of each and their ratio, and checks that both folders are byte-identical;
2. the per-task overhead of Ray: the same sweep with runs of 10 µs of simulated time (nothing to
   simulate), its wall time less Ray's start and stop, per run;
3. the Python call overhead of one small simulation: ``Fabric.simulate`` in this process against
   ``rocelab sim --format json`` (a process of its own, which loads the file each time).

Each time is the best of ``--repeat`` tries (the machine is shared; the best is the least
disturbed). The figures are printed as Markdown lines to paste.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

import rocelab

# An incast of 6 senders into one receiver through one switch with ECN marking drawn from the
# seed; a variant without ECN; a two-point MTU sweep; DURATION of simulated time per run.
SCENARIO = """fabric:
  name: ray-bench
  topology:
    generator:
      leaf-spine: {{leaves: 2, spines: 1, hosts_per_leaf: 4, host_speed: 25G, uplink_speed: 100G}}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {{name: roce, priority: 3, dscp: [26], lossless: true, ets: 90, ecn: {{kmin: 5KB, kmax: 200KB, pmax: 0.5}}}}
      - {{name: default, priority: 0, dscp: [0], ets: 10}}
simulation: {{duration: {duration}, sample_interval: 10us}}
workloads:
  incast:
    - {{name: incast, senders: [host1-6], receiver: host8, class: roce}}
variants:
  - name: no-ecn
    set:
      fabric.qos.classes[roce].ecn: null
sweep: {{field: fabric.qos.mtu, values: [1500, 9000]}}
"""

#: Seeds per (variant, point) by default: 2 variants x 2 points x 8 seeds = 32 runs.
SEEDS = 8


def best(repeat: int, f: Callable[[], None]) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def tree(root: Path) -> Dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def sim_all(cli: str, scenario: Path, out: Path, ray: bool, seeds: int) -> None:
    args = [cli, "sim", str(scenario), "--all", "--seeds", str(seeds), "--quiet", "--out", str(out)]
    if ray:
        args.insert(4, "--ray")
    env = {**os.environ, "ROCELAB_PYTHON": sys.executable}
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr}")


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True, help="the rocelab CLI to measure (a release build)")
    parser.add_argument("--duration", default="4s", help="simulated time of each run of the sweep (default 4s)")
    parser.add_argument("--repeat", type=int, default=1, help="tries of each measurement; the best is kept")
    parser.add_argument(
        "--seeds", type=int, default=SEEDS, help=f"seeds per variant and point: 4 runs each (default {SEEDS}: 32 runs)"
    )
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be 1 or more")
    runs = 2 * 2 * args.seeds
    import ray

    work = Path(tempfile.mkdtemp(prefix="rocelab-ray-bench-"))
    scenario = work / "sweep.yaml"
    scenario.write_text(SCENARIO.format(duration=args.duration))
    tiny = work / "tiny.yaml"
    tiny.write_text(SCENARIO.format(duration="10us"))
    print(f"machine: {os.cpu_count()} CPUs; rocelab {rocelab.__version__}; Ray {ray.__version__}; {runs} runs")

    serial = best(args.repeat, lambda: sim_all(args.cli, scenario, work / "serial", ray=False, seeds=args.seeds))
    on_ray = best(args.repeat, lambda: sim_all(args.cli, scenario, work / "ray", ray=True, seeds=args.seeds))
    a, b = tree(work / "serial"), tree(work / "ray")
    same = sorted(a) == sorted(b) and all(a[f] == b[f] for f in a)
    print(f"- sweep of {runs} runs of {args.duration}: serial {serial:.1f} s, Ray {on_ray:.1f} s, "
          f"{serial / on_ray:.2f}x; folders byte-identical: {same}")

    def start_stop() -> None:
        ray.init(address="local", include_dashboard=False, log_to_driver=False)
        ray.shutdown()

    startup = best(args.repeat, start_stop)
    tiny_serial = best(args.repeat, lambda: sim_all(args.cli, tiny, work / "tiny-serial", ray=False, seeds=args.seeds))
    tiny_ray = best(args.repeat, lambda: sim_all(args.cli, tiny, work / "tiny-ray", ray=True, seeds=args.seeds))
    per_task = (tiny_ray - startup - tiny_serial) / runs
    print(f"- Ray start and stop: {startup:.2f} s; {runs} runs of 10 us: serial {tiny_serial:.2f} s, "
          f"Ray {tiny_ray:.2f} s; overhead per task {per_task * 1e3:.0f} ms")

    small = work / "small.yaml"
    small.write_text(SCENARIO.format(duration="100us"))
    fabric = rocelab.load(small)
    fabric.simulate()  # the first call pays for imports and caches
    in_python = best(5, lambda: fabric.simulate())
    load_and_run = best(5, lambda: rocelab.load(small).simulate())
    cli_run = best(5, lambda: subprocess.run(
        [args.cli, "sim", str(small), "--format", "json", "--quiet"], capture_output=True, check=True))
    print(f"- one run of 100 us: Fabric.simulate {in_python * 1e3:.1f} ms, rocelab.load + simulate "
          f"{load_and_run * 1e3:.1f} ms, `rocelab sim --format json` {cli_run * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
