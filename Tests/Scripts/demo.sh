#!/usr/bin/env bash
# The main job, as the README gives it: one process changes preferences (and edits the file
# by hand), another process prints each change with its old and new value and how long it
# took to arrive. Installs what it needs, builds a release binary, runs it, then measures
# the set → callback latency over 1,000 changes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

bash Tests/Scripts/install-dependencies.sh
# The demo is a program of the tools package (Tools/), which builds the library with it.
swift build -c release --package-path Tools --product preferences-demo
demo="$(swift build -c release --package-path Tools --show-bin-path)/preferences-demo"
"$demo"
"$demo" latency 1000
