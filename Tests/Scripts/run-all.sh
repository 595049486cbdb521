#!/usr/bin/env bash
# The whole test suite, as the README gives it and CI runs it: installs what it needs,
# builds both packages with warnings as errors (set in each Package.swift), and runs every
# test once: the library's as an ordinary user (a contributor's `swift test`), then as root
# those that run only as root, then the tools package's, the systemd services, the settings
# pages in a browser, the reliability scripts, the install and the documentation. The budget is 12 minutes on the 2-core
# machine from a fresh clone; each step prints its time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# Each step prints its own time, so a suite that creeps towards CI's budget shows where.
# The Swift test steps run under with-failure-summary.sh, which repeats a failing run's ✘
# lines at its end, where CI's tail of the output shows them.
step() {
    local start=$SECONDS
    "$@"
    echo "run-all: $(( SECONDS - start )) s for: $*   ($(( SECONDS / 60 )) min $(( SECONDS % 60 )) s so far)"
}

step bash Tests/Scripts/install-dependencies.sh

# The library package (swift-system and swift-log are all it checks out).
step swift build --build-tests
# Its tests exactly as a contributor's plain `swift test` runs them, as an ordinary user the
# script creates, nothing skipped by a script: a test that needs root, a capability, journald
# or a kernel feature skips itself, saying what is missing. Then, as root beside a journald of
# its own, every test that run skipped, found by ID in its event stream.
events=$(mktemp)
trap 'rm -f -- "$events"' EXIT
step bash Tests/Scripts/with-failure-summary.sh bash Tests/Scripts/unprivileged-tests.sh --events "$events"
step bash Tests/Scripts/with-failure-summary.sh bash Tests/Scripts/privileged-tests.sh "$events"

# The tools package (Tools/): the defaults tool, the fleet service against real etcd clusters
# on loopback, the example services, and the two trait-gated library products. (Built beside
# the library's tests instead, it took as long: both need the two cores, 631 s together.)
# With a fixed hash seed, as install.sh and docs.sh build the same directory: SwiftPM orders
# the library's two trait defines by the seed, and a different order compiled the library's
# modules again in each of them (swiftlang/swift-package-manager#10525).
step env SWIFT_DETERMINISTIC_HASHING=1 swift build --package-path Tools --build-tests
step bash Tests/Scripts/with-failure-summary.sh swift test --package-path Tools --skip-build --skip SystemdNotifierTests --skip DefaultsToolJournalTests
# The sd_notify tests set NOTIFY_SOCKET and WATCHDOG_* with setenv, which is not safe while
# other threads read the environment: they run in a test process of their own.
step bash Tests/Scripts/with-failure-summary.sh swift test --package-path Tools --skip-build --filter SystemdNotifierTests
step bash Tests/Scripts/with-failure-summary.sh bash Tests/Scripts/with-journald.sh swift test --package-path Tools --skip-build --filter DefaultsToolJournalTests
# The example service (preferences-greeter) under a real systemd user manager and journald,
# both started in a private mount namespace with a temporary HOME and stopped by their PIDs:
# install, verify, start, live changes with the defaults tool, reload, stop, corrupt file.
tools_bin="$(swift build --package-path Tools --show-bin-path)"
step bash Tests/Scripts/with-systemd-user.sh bash Tests/Scripts/service-test.sh "$tools_bin"
# The settings pages' user unit likewise; then the pages themselves in a real browser (Debian's
# chromium driven by Playwright, both installed by the script), against the real server and
# real other processes (defaults, a watching defaults, a writer).
step bash Tests/Scripts/with-systemd-user.sh bash Tests/Scripts/settings-service-test.sh "$tools_bin"
step bash Tests/Scripts/browser-tests.sh "$tools_bin"

# Reliability (RELIABILITY.md): ReliabilityTests and the quick power-loss tests ran above; these
# need a shell (strace) or must run alone (memory and time measurements). The long versions:
# `bash Tests/Scripts/soak.sh` and `bash Tests/Scripts/power-loss.sh --long`.
bin="$(swift build --show-bin-path)"
step bash Tests/Scripts/crash-at-each-syscall.sh "$bin"
step bash Tests/Scripts/fsync-eio-retry.sh "$bin"
# Power loss at every point of the write path, four writer processes of 40 rounds each: about
# 2,300 distinct crash states. `--long` runs 180 rounds, over 10,000 states, in about 3 minutes,
# which the 12-minute budget has no room for.
step bash Tests/Scripts/power-loss.sh --long --rounds 40 "$bin"
# Power loss at every point of a purge (issue 32): 32 commits' secrets purged from the domain
# file, 32 generations and a corrupt copy, 140 distinct crash states in about 8 s (the cost
# grows with the square of the commits: each state holds every generation).
step bash Tests/Scripts/power-loss.sh --workload purge --rounds 32 "$bin"
# The write-path run above with Python writers (issue 39): three processes of the package,
# 12 rounds each, about 500 distinct crash states, every one opened by the Swift checker, in
# about 10 s (`--writer python --long` runs over 10,000 in about 3 minutes; RELIABILITY.md).
step bash Tests/Scripts/power-loss.sh --writer python "$bin"
# The Python package as a user installs it (pip, a fresh virtual environment): its tests, the
# Swift and Python processes sharing domains (4 + 4 writers' 3,200 transactions lose nothing;
# each language's watcher hears the other's commits), and the conformance suite with the
# Python adapter, Swift processes as its peers (the Swift adapter alone ran in the library's
# tests above).
step bash Tests/Scripts/python-tests.sh "$bin"
step bash Tests/Scripts/with-failure-summary.sh env RELIABILITY_ISOLATED=1 swift test --skip-build --filter IsolatedMeasurementTests

# The install into a temporary prefix (executables, units, the generated man pages read with
# `man -l`, completions, then the uninstall), from the tools package's debug build above, so
# nothing is built again; and the DocC catalogs of every library product, built with warnings
# as errors and every public symbol curated, from the same build.
step bash Tests/Scripts/install-test.sh --scratch-path Tools/.build --configuration debug
step bash Tests/Scripts/docs.sh --scratch-path Tools/.build

# The benchmarks are not part of the suite: `bash Benchmarks/report.sh` measures them and
# writes RESULTS.md.
