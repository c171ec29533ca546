#!/usr/bin/env bash
# The Python module as a user installs it (docs/PYTHON.md): a wheel built by maturin through
# pip, installed in a fresh virtual environment, then the Python test suite run on it.
# (`cargo test` runs the same suite on the library cargo builds: crates/kalah-python/tests.)
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${CARGO_TARGET_DIR:-target}/python-ci-venv"
rm -rf "$venv"
python3 -m venv "$venv"
venv="$(cd "$venv" && pwd)"
"$venv/bin/pip" install --quiet --disable-pip-version-check ./crates/kalah-python
cd crates/kalah-python/tests
"$venv/bin/python" -c 'import kalah; print("kalah", kalah.__version__, "from", kalah.__file__)'
"$venv/bin/python" -m unittest discover -s . -p 'test_*.py'
