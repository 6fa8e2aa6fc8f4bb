"""Shared fixtures of the rocelab package's tests: the repository's paths and the rocelab CLI,
whose output the package must match."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"


def _cli_path() -> Path:
    """The CLI to compare with: ``ROCELAB_BIN``, else the one cargo built last (release, then
    debug) under ``CARGO_TARGET_DIR`` or the repository's ``target``, else ``rocelab`` on PATH."""
    given = os.environ.get("ROCELAB_BIN")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    built = [p for p in (target / "release" / "rocelab", target / "debug" / "rocelab") if p.is_file()]
    if built:
        return max(built, key=lambda p: p.stat().st_mtime)
    on_path = shutil.which("rocelab")
    if on_path:
        return Path(on_path)
    raise RuntimeError(
        "the rocelab CLI is not built: run `cargo build -p rocelab` (./test.sh does) or set ROCELAB_BIN"
    )


class Cli:
    """Runs the rocelab CLI and gives its completed process (stdout and stderr as text)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, *args: str, cwd: Path = REPO, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.path), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
        )


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli(_cli_path())


def examples() -> List[Path]:
    return sorted(EXAMPLES.glob("*.yaml"))
