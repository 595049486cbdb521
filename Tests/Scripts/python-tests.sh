#!/usr/bin/env bash
# The Python implementation of the protocol (python/, issue 39), as a user installs it: `pip
# install` from its folder into a fresh virtual environment, then its pytest tests (run from
# outside the repository, so they import the installed package, not the source folder), the
# mixed-language tests (Swift and Python processes writing and watching one domain), and the
# language-neutral conformance suite with the Python adapter and Swift peers; and strict mypy
# over the package's type hints.
#
#   bash Tests/Scripts/python-tests.sh BIN_DIR
#
# BIN_DIR holds the library's PreferencesWorker (`swift build --show-bin-path`), the Swift
# side of the mixed tests and the Swift adapter. Needs python3 (3.11 or newer) with venv, and
# PyPI for pytest and setuptools (Tests/Scripts/install-dependencies.sh installs python3-venv).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repository=$PWD
bin=$(cd "${1:?usage: python-tests.sh BIN_DIR}" && pwd)
worker="$bin/PreferencesWorker"
[[ -x $worker ]] || { echo "error: $worker is not built" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
python3 -m venv "$work/venv"
python="$work/venv/bin/python"
"$python" -m pip install -q --disable-pip-version-check "$repository/python" pytest mypy
"$python" -c 'import sys, swift_preferences; assert sys.version_info >= (3, 11); print("swift_preferences", swift_preferences.PROTOCOL_VERSION, "from", swift_preferences.__file__)'

cd "$work"
# Typed throughout (the package ships py.typed): strict mypy finds no error.
"$python" -m mypy --strict --no-incremental "$repository/python/src/swift_preferences"
SWIFT_PREFERENCES_TEST_INSTALLED=1 SWIFT_PREFERENCES_WORKER="$worker" "$python" -m pytest -q -p no:cacheprovider "$repository/python/tests" "$repository/Tests/Mixed"
# Every case's single process is the Python adapter; in the cases with several processes,
# every other one is the Swift adapter.
"$python" "$repository/Tests/Conformance/run.py" --peer "$worker conformance-adapter" -- "$python" -m swift_preferences.adapter
