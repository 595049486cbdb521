#!/usr/bin/env bash
# The long versions of the reliability tests (RELIABILITY.md), separate from the test
# command: 5,000 random SIGKILLs, 16 × 500 distinct keys and increments, 100 killed lock
# holders, 16 threads × 100,000 operations, 10,000 commits heard in order (with and without
# inotify) and watched for torn transactions, 10,000 fresh-read trials, 100,000 mutants,
# 100,000 corrupt reloads, the thread sanitizer run, and 10 minutes of fuzzing. About an
# hour on a 2-core machine. (Tests/TestSupport/TestScale.swift: `soakCount`.)
# Usage: bash Tests/Scripts/soak.sh [FUZZ-SECONDS]   (default 600)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash Tests/Scripts/install-dependencies.sh
swift build --build-tests
bin="$(swift build --show-bin-path)"
RELIABILITY_SOAK=1 swift test --skip-build --filter 'ReliabilityTests|CallbackThreadTests|TransactionTests|FreshReadTests'
RELIABILITY_SOAK=1 RELIABILITY_ISOLATED=1 swift test --skip-build --filter IsolatedMeasurementTests
bash Tests/Scripts/crash-at-each-syscall.sh "$bin"
bash Tests/Scripts/fsync-eio-retry.sh "$bin"
bash Tests/Scripts/tsan.sh
bash Tests/Scripts/fuzz.sh "${1:-600}"
echo "soak.sh: all passed"
