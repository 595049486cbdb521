#!/usr/bin/env bash
# The library tests once more as an ordinary user, so `swift test` keeps passing for a
# contributor who is not root: a test that needs root, a capability or a kernel feature must
# check for it and be skipped with a reason (issue 20). Run as root (it creates the user);
# anyone else is already testing unprivileged, so the script says so and exits 0.
#
# Usage: bash Tests/Scripts/unprivileged-tests.sh [swift test arguments]
# Without arguments it runs what run-all.sh's main `swift test` runs. The user is
# $UNPRIVILEGED_USER (default preferences-tester), created with a home if missing.
#
# What is tested: the working tree as the build sees it, that is the tracked files as they are
# on disk (committed or not) plus untracked files that are not ignored, so the run matches the
# root run beside it in run-all.sh; ignored files (.build*, editor files) stay out. The copy
# lives in the user's home and keeps its .build between runs (files are copied with their
# times, so a second run rebuilds only what changed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

if [[ $(id -u) -ne 0 ]]; then
    echo "unprivileged-tests: skipped: not running as root, which creating the test user needs (run as an ordinary user, swift test is already unprivileged)"
    exit 0
fi

user="${UNPRIVILEGED_USER:-preferences-tester}"
if ! id -u "$user" >/dev/null 2>&1; then
    useradd --create-home --shell /bin/bash "$user"
fi
home="$(getent passwd "$user" | cut -d: -f6)"
copy="$home/swift-preferences"

# A fresh copy of the sources, keeping only the copy's .build: a file deleted or renamed here
# must not linger there and be compiled.
mkdir -p "$copy"
find "$copy" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
sources() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        # --cached lists a tracked file deleted on disk too; only files that exist are copied.
        git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
            if [[ -e $file || -L $file ]]; then printf '%s\0' "$file"; fi
        done
    else
        # An exported tree (git archive, a tarball) has no index: everything but build output.
        find . -path './.build*' -prune -o \( -type f -o -type l \) -printf '%P\0'
    fi
}
sources | xargs -0 --no-run-if-empty cp --parents --preserve=mode,timestamps,links --no-dereference -t "$copy"
# Package.resolved is ignored by git but pins the dependency versions the root build uses.
if [[ -f Package.resolved ]]; then
    cp --preserve=mode,timestamps Package.resolved "$copy/"
fi
chown -R "$user:" "$copy"

if (($# == 0)); then
    # As run-all.sh's main run: these suites need journald, a setenv-free process, or a process
    # of their own (see the comments there), and run-all.sh runs them separately as root.
    set -- --skip JournaldLoggingTests --skip SystemdNotifierTests --skip ThreadStressTests \
        --skip PowerLossTests --skip wakeUpsWithoutInotify
fi

# A login shell, so HOME, USER and PATH are the user's own, as for a contributor; the
# toolchain this script found is put first on PATH (a user's profile may not add it). The
# dependencies are git checkouts under /opt/swift-packages owned by root, which git refuses
# to read for another user unless they are marked safe.
toolchain="$(dirname "$(command -v swift)")"
status=0
runuser -u "$user" -- bash -lc '
    set -euo pipefail
    export PATH="$1:$PATH"
    git config --global --get-all safe.directory | grep -qx "\*" || git config --global --add safe.directory "*"
    cd "$2"
    shift 2
    echo "unprivileged-tests: as $(id -un) (uid $(id -u)) in $PWD: swift test $*"
    swift test "$@"
' unprivileged-tests "$toolchain" "$copy" "$@" || status=$?
echo "unprivileged-tests: exit $status"
exit "$status"
