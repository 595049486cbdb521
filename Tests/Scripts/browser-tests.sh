#!/usr/bin/env bash
# The settings page's tests in a real browser: Debian's Chromium driven by Playwright, against
# the real preferences-settings server and the real defaults and preferences-demo tools.
#
#   bash Tests/Scripts/browser-tests.sh TOOLS_BIN_DIR [--measure COUNT RESULTS_FILE] [--screenshot PNG_PATH]
#
# TOOLS_BIN_DIR holds preferences-settings, defaults and preferences-demo (for instance
# Tools/.build/debug). Without --measure it runs the tests and exits non-zero if any fails,
# ending with a line "N passed, N failed". --measure times COUNT changes made by another
# process until the page has drawn them and writes a report to RESULTS_FILE instead (it only
# reports; nothing fails on a number). --screenshot also saves a picture of a domain page.
#
# Installs what is missing first: chromium and fonts-dejavu-core from Debian, playwright from
# PyPI. Playwright's own browser download ("playwright install") is never used: it cannot be
# fetched here, and Debian's Chromium is the one the tests launch.
set -euo pipefail

usage() {
    echo "usage: $0 TOOLS_BIN_DIR [--measure COUNT RESULTS_FILE] [--screenshot PNG_PATH]" >&2
    exit 2
}

(($# >= 1)) || usage
tools_bin=$(cd "$1" && pwd) || { echo "error: $1 is not a directory" >&2; exit 2; }
shift
passthrough=()
while (($#)); do
    case "$1" in
        --measure)
            (($# >= 3)) || usage
            [[ $2 =~ ^[0-9]+$ && $2 -ge 1 ]] || { echo "error: COUNT must be a positive integer" >&2; exit 2; }
            # The report is written by Python, which runs in another directory's terms: make
            # the path absolute while the caller's working directory is still ours.
            passthrough+=(--measure "$2" "$(realpath -m "$3")")
            shift 3
            ;;
        --screenshot)
            (($# >= 2)) || usage
            passthrough+=(--screenshot "$(realpath -m "$2")")
            shift 2
            ;;
        *) usage ;;
    esac
done

for program in preferences-settings defaults preferences-demo; do
    if [[ ! -x $tools_bin/$program ]]; then
        echo "error: $tools_bin/$program is missing; build the tools first (swift build --package-path Tools)" >&2
        exit 2
    fi
done

# Debian packages, installed only when missing: a couple of dpkg queries when they are there.
bash "$(dirname "${BASH_SOURCE[0]}")/install-dependencies.sh" chromium fonts-dejavu-core

if ! python3 -c 'import playwright' 2>/dev/null; then
    echo "installing: playwright (PyPI)"
    python3 -m pip install -q playwright
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SETTINGS_TOOLS_BIN=$tools_bin
# No __pycache__ beside the tests in the work tree.
export PYTHONDONTWRITEBYTECODE=1
# Unbuffered, so the test names and the summary interleave with any server output in order.
exec python3 -u "$here/../Browser/settings_page_test.py" "${passthrough[@]}"
