"""rocelab from Python: load and validate a fabric file, list its variants and sweep points,
render its configurations, run ``check`` and simulate it, with results as pandas DataFrames.

The work is done by the same Rust crates as the ``rocelab`` command line, so a figure read here
is the one the CLI prints for the same file, variant and seed (``Results.digest`` names the
results; ``rocelab.digest`` gives it for a run the CLI wrote). The interpreter's lock is
released while a simulation runs: other threads go on, and simulations in several threads run
at once.

Example::

    import rocelab
    fabric = rocelab.load("examples/sim-incast-two-tier.yaml")
    results = fabric.simulate(seed=1)
    print(results.flows[["flow", "throughput (Gb/s)"]])
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _rocelab

if TYPE_CHECKING:  # pandas is imported when a DataFrame is first asked for, not by `import rocelab`.
    import pandas

__version__: str = _rocelab.__version__

__all__ = [
    "ConfigWarning",
    "Diagnostic",
    "Fabric",
    "FabricError",
    "Results",
    "digest",
    "load",
    "loads",
]

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Diagnostic:
    """One problem of a fabric file, where it is and what to do about it: the fields of
    ``rocelab validate --format json``.

    ``line`` and ``column`` are 1-based, ``None`` when the problem is the file's as a whole;
    ``path`` is the field's path (``fabric.topology.links[3].b``)."""

    severity: str
    file: str
    line: Optional[int]
    column: Optional[int]
    path: str
    message: str
    expected: Optional[str] = None
    suggestion: Optional[str] = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


class FabricError(ValueError):
    """A fabric that does not load (or a variant or sweep point that does not apply).

    ``str(error)`` is what the CLI prints, one diagnostic a line; ``diagnostics`` holds them as
    :class:`Diagnostic` objects."""

    def __init__(self, message: str, diagnostics: List[Mapping[str, Any]]) -> None:
        super().__init__(message)
        self.diagnostics: List[Diagnostic] = [Diagnostic(**d) for d in diagnostics]


class ConfigWarning(UserWarning):
    """What a platform cannot express, or a device that could not be rendered
    (``Fabric.render_config``); the CLI prints the same lines on stderr."""


def load(path: PathLike) -> "Fabric":
    """Reads and validates a fabric file. Raises :class:`FabricError` with every problem,
    located by file, line, column and field path."""
    return Fabric(_rocelab.load(os.fspath(path)))


def loads(source: Union[str, Mapping[str, Any]], name: Optional[str] = None) -> "Fabric":
    """Loads a fabric from YAML text or from a dict (as ``yaml.safe_load`` of a fabric file
    gives). ``name`` stands for the file in diagnostics (``"<string>"`` or ``"<dict>"`` by
    default). A dict is read as JSON text with two-space indents, so a diagnostic's line and
    column point into ``json.dumps(source, indent=2)``; its field path is the same either way.
    Relative paths in the fabric are taken from the current folder."""
    if isinstance(source, Mapping):
        text = json.dumps(source, indent=2)
        label = "<dict>" if name is None else name
    elif isinstance(source, str):
        text = source
        label = "<string>" if name is None else name
    else:
        raise TypeError(f"loads() takes YAML text or a dict, not {type(source).__name__}")
    return Fabric(_rocelab.loads(text, label), source=(text, label))


def digest(run_json: str) -> str:
    """The results digest of a run's JSON as ``rocelab sim --format json`` prints it or
    ``rocelab sim --out`` writes it (``results.json``): equal to ``Results.digest`` for the same
    scenario, variant, sweep point and seed."""
    return _rocelab.digest(run_json)


class Fabric:
    """A loaded fabric file: the base fabric, its variants and its sweep points."""

    __slots__ = ("_native", "_source")

    def __init__(self, native: _rocelab.Fabric, source: Optional[Tuple[str, str]] = None) -> None:
        self._native = native
        # The text and name :func:`loads` was given, for Ray workers to load the fabric again.
        self._source = source

    @property
    def name(self) -> str:
        """The fabric's name."""
        return self._native.name

    @property
    def file(self) -> str:
        """The file it was read from (the ``name`` given to :func:`loads`)."""
        return self._native.file

    @property
    def variants(self) -> List[str]:
        """The variants' names, in the file's order."""
        return self._native.variants

    @property
    def seed(self) -> int:
        """The seed of a run by default, ``simulation.seed``."""
        return self._native.seed

    @property
    def seeds(self) -> List[int]:
        """``simulation.seeds``: the seeds :meth:`sweep` and ``sim --all`` run every point
        under (empty: :attr:`seed` alone)."""
        return self._native.seeds

    @property
    def sweep_points(self) -> List[str]:
        """The sweep points as ``field=value``, in the file's order."""
        return self._native.sweep_points

    @property
    def warnings(self) -> List[Diagnostic]:
        """What loading warned of: the lines every CLI command prints on stderr first."""
        return [Diagnostic(**d) for d in self._native.warnings]

    def validate(self) -> List[Diagnostic]:
        """The loader's warnings and the problems of every variant and sweep point (what
        ``rocelab validate`` reports beyond loading), as data."""
        return [Diagnostic(**d) for d in self._native.validate()]

    def check(self, variant: Optional[str] = None) -> List[Dict[str, Any]]:
        """``rocelab check`` of the fabric (or a variant): the findings as the dicts of
        ``rocelab check --format json`` (id, severity, device, port, class, what, why, fix,
        source, and location for imported configurations; absent keys are unset), with
        ``expected: True`` on those the file declares in its ``expect:`` list."""
        return self._native.check(variant)

    def render_config(
        self,
        output_dir: Optional[PathLike] = None,
        variant: Optional[str] = None,
        templates: Optional[PathLike] = None,
    ) -> Dict[str, str]:
        """Every device's configuration and ``RUNBOOK.md``, as ``rocelab config`` renders
        them: ``{file name: text}`` in device order, the runbook last. With ``output_dir`` the
        files are also written there, under the CLI's rules (the folder is made and tried
        before anything is rendered; names stay inside it). ``templates`` is a folder of
        Jinja templates replacing built-in ones of the same name. What a platform cannot
        express is a :class:`ConfigWarning`."""
        files, findings = self._native.render_config(
            None if output_dir is None else os.fspath(output_dir),
            variant,
            None if templates is None else os.fspath(templates),
        )
        for _is_error, text in findings:
            warnings.warn(text, ConfigWarning, stacklevel=2)
        return files

    def simulate(
        self,
        variant: Optional[str] = None,
        point: Union[int, str, None] = None,
        seed: Optional[int] = None,
    ) -> "Results":
        """Simulates the base scenario or ``variant`` at sweep ``point`` (an index into
        :attr:`sweep_points` or its ``field=value``) with ``seed`` (the file's
        ``simulation.seed`` by default), as ``rocelab sim`` does. The interpreter's lock is
        released while it runs."""
        return Results(self._native.simulate(variant, point, seed))

    def sweep(
        self,
        seeds: Union[None, int, Sequence[int]] = None,
        ray: Union[None, bool, str] = None,
    ) -> "pandas.DataFrame":
        """Every run of ``rocelab sim --all``: the base and every variant, at every sweep
        point, under every seed (``None``: the file's ``simulation.seeds``, or its
        ``simulation.seed``; an int N: N seeds from ``simulation.seed`` up; or a list). One row
        per run in that order: ``variant``, ``point``, ``seed``, ``label``, ``digest``,
        ``error`` (a failed run's, the others go on), then the run's summary (``runs.csv``).

        Serial in this process by default. ``ray=True`` runs each run as a Ray task on a local
        Ray started on demand; ``ray="ADDRESS"`` on an existing cluster (``ray.init(address=
        ADDRESS)``, with ``rocelab`` installed on its nodes). The digests are the serial
        run's. See :mod:`rocelab.sweep`."""
        from . import sweep as _sweep

        return _sweep.sweep(self, seeds=seeds, ray=ray)

    def tune(
        self,
        out: PathLike,
        trials: Optional[int] = None,
        ray: Union[None, bool, str] = None,
        concurrency: int = 1,
        cpus: Optional[int] = None,
    ) -> "rocelab.tune.TuneResult":
        """Searches the parameters of the file's ``tune:`` section for its objective with Ray
        Tune and Optuna's sampler, as ``rocelab tune`` does, and writes the trials, the best
        configuration as a fabric variant and a report into ``out``. ``trials`` overrides
        ``tune.trials``; ``ray`` is a cluster's address (``None``/``True``: a local Ray);
        ``concurrency`` trials run at once (1, the default, keeps the search reproducible:
        each suggestion then sees every earlier result). See :mod:`rocelab.tune`."""
        from . import tune as _tune

        return _tune.tune(self, out, trials=trials, ray=ray, concurrency=concurrency, cpus=cpus)

    def __repr__(self) -> str:
        return self._native.__repr__()


class Results:
    """One simulation's results. The tables are pandas DataFrames with the columns of the CSV
    files ``rocelab sim --out`` writes (units in the column names), one row per thing:

    - ``summary``: the run (``runs.csv``);
    - ``flows``: flows (``flows.csv``);
    - ``ports``: port and priority (``ports.csv``);
    - ``switches``: switch buffers (``switches.csv``);
    - ``storage_jobs``: storage job and direction with fio's figures (``jobs.csv``);
    - ``perftest``: perftest test (``perftest.csv``);
    - ``fct``: sized flow, with its completion time, standalone completion time and slowdown.
    """

    __slots__ = ("_native", "_frames")

    def __init__(self, native: _rocelab.Run) -> None:
        self._native = native
        self._frames: Dict[str, "pandas.DataFrame"] = {}

    def _frame(self, name: str) -> "pandas.DataFrame":
        if name not in self._frames:
            import pandas

            self._frames[name] = pandas.DataFrame(self._native.table(name))
        return self._frames[name]

    @property
    def summary(self) -> "pandas.DataFrame":
        """One row: the run's totals (``runs.csv``)."""
        return self._frame("summary")

    @property
    def flows(self) -> "pandas.DataFrame":
        """One row per flow (``flows.csv``)."""
        return self._frame("flows")

    @property
    def ports(self) -> "pandas.DataFrame":
        """One row per port and priority that carried traffic or saw PFC, ECN or drops."""
        return self._frame("ports")

    @property
    def switches(self) -> "pandas.DataFrame":
        """One row per switch: buffer use."""
        return self._frame("switches")

    @property
    def storage_jobs(self) -> "pandas.DataFrame":
        """One row per storage job and direction, with fio's figures and the initiator's CPU."""
        return self._frame("storage_jobs")

    @property
    def perftest(self) -> "pandas.DataFrame":
        """One row per perftest test, in perftest's own columns."""
        return self._frame("perftest")

    @property
    def fct(self) -> "pandas.DataFrame":
        """One row per sized flow: size, start, FCT, FCT alone on an empty network, slowdown."""
        return self._frame("fct")

    @property
    def digest(self) -> str:
        """The results digest, 16 hex digits: equal digests, equal simulated results."""
        return self._native.digest

    @property
    def label(self) -> str:
        """The run's label: the variant (or ``base``) with the sweep value."""
        return self._native.label

    @property
    def variant(self) -> Optional[str]:
        return self._native.variant

    @property
    def point(self) -> Optional[str]:
        """The sweep point, ``field=value``."""
        return self._native.point

    @property
    def seed(self) -> int:
        return self._native.seed

    @property
    def warnings(self) -> List[Dict[str, Any]]:
        """What the build of the run warned of, as findings with the fields of
        ``Fabric.check()``'s (``id``, ``severity``, ``device``, ``port``, ``class``, ``what``,
        ``why``, ``fix``, ``source``): a lossless hop without PFC is ``PFC-MISSING``."""
        return self._native.warnings

    @property
    def text(self) -> str:
        """The summary ``rocelab sim`` prints."""
        return self._native.text

    def to_json(self) -> str:
        """The run as ``rocelab sim --format json`` prints it."""
        return self._native.to_json()

    def __repr__(self) -> str:
        return f"Results(label={self.label!r}, seed={self.seed}, digest={self.digest!r})"
