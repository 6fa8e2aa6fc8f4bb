#!/usr/bin/env bash
# Every test suite of rocelab, the README's one test command: the Rust crates' tests
# (`cargo test --workspace`), then the Python package (crates/rocelab-py) built once into the
# virtual environment .venv with the packages its tests need from PyPI, and its pytest suite,
# which compares the package with the CLI that `cargo test` built.
#
# PYTHON picks the interpreter that makes .venv (default python3, 3.9 or newer). Arguments go
# to pytest, e.g. `./test.sh -k digest`.
set -euo pipefail
cd "$(dirname "$0")"

echo "== cargo test --workspace"
cargo test --workspace

echo "== the Python package: build into .venv"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" "pandas>=1.5" "pytest>=7"
# Ray for the test of Fabric.sweep(ray=...) on a local Ray, and Ray Tune with Optuna (and PyYAML)
# for `rocelab tune` (about 40 s to install, once). Where PyPI has none for this Python, those
# tests say SKIPPED and the others run.
if ! .venv/bin/python -c "import ray.tune, optuna, yaml" >/dev/null 2>&1; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "ray[tune]>=2.9" "optuna>=3.4" pyyaml ||
    echo "SKIPPED: Ray Tune or Optuna could not be installed from PyPI; the Ray sweep and tune tests will be skipped"
fi
# A debug build: it shares the crates `cargo test` just compiled, and the tests' runs are short.
(cd crates/rocelab-py && VIRTUAL_ENV="$PWD/../../.venv" ../../.venv/bin/maturin develop --quiet)

echo "== pytest crates/rocelab-py/tests"
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
ROCELAB_BIN="$target/debug/rocelab" .venv/bin/python -m pytest crates/rocelab-py/tests -q "$@"
