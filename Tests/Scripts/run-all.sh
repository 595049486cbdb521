#!/usr/bin/env bash
# The whole test suite, as the README gives it and CI runs it: installs what it needs,
# builds every target with warnings as errors (set in Package.swift), and runs every test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

bash Tests/Scripts/install-dependencies.sh

swift build --build-tests
swift test --skip-build --skip JournaldLoggingTests
# The journald tests talk to a real systemd-journald, started in a private mount namespace
# for this run only and stopped by its PID.
bash Tests/Scripts/with-journald.sh swift test --skip-build --filter JournaldLoggingTests

# The benchmarks in smoke mode (a couple of iterations each), so they never rot; the full
# run is `bash Benchmarks/run.sh`.
bash Benchmarks/run.sh --smoke
