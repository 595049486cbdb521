#!/usr/bin/env bash
# The fleet loop's figure (issue 40, item 5): an etcd put of a domain's fleet policy → the
# verified status of every host, on a 3-member etcd cluster on loopback with N
# `preferences-fleet follow` processes, statuses seen through a watch (fleet-loop.py, which
# this runs, says exactly what "verified" means).
#
#   bash Benchmarks/fleet-loop.sh [--hosts N] [--puts K] [--refusing M] [--status-lease S]
#                                 [--samples FILE] [--keep] [--binary PATH] [OUTPUT.md]
#
#   --hosts N       followers (default 20)
#   --puts K        timed puts (default 200), after 5 untimed ones
#   --refusing M    M of the followers have a schema capping Level at 100, and every other put
#                   sets Level to 150: they must report it invalid, with the reason (default 0)
#   --status-lease S  the followers' --status-lease (default 2)
#   --samples FILE  also write the raw samples to FILE
#   --keep          keep the working directory (etcd data, follower logs and files)
#   --binary PATH   use this preferences-fleet instead of building it
#
# Builds preferences-fleet in release (`swift build --package-path Tools -c release`; minutes the
# first time; FLEET_LOOP_SCRATCH chooses another build folder than Tools/.build), runs the
# benchmark and prints its Markdown block, for Benchmarks/RESULTS.md, to standard output (and to
# OUTPUT.md if given). Needs etcd (Debian's etcd-server package) and python3. Every etcd member
# and follower it starts is stopped when it ends, however it ends.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

binary=""
output=""
arguments=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --hosts | --puts | --refusing | --status-lease | --samples)
            [[ $# -ge 2 ]] || { echo "fleet-loop.sh: $1 needs a value" >&2; exit 2; }
            arguments+=("$1" "$2"); shift 2 ;;
        --keep) arguments+=("$1"); shift ;;
        --binary)
            [[ $# -ge 2 ]] || { echo "fleet-loop.sh: $1 needs a value" >&2; exit 2; }
            binary="$2"; shift 2 ;;
        -*) echo "fleet-loop.sh: unknown option $1" >&2; exit 2 ;;
        *) output="$1"; shift ;;
    esac
done

command -v etcd >/dev/null || [[ -x /usr/bin/etcd ]] || {
    echo "fleet-loop.sh: needs etcd (apt-get install etcd-server)" >&2
    exit 1
}
command -v python3 >/dev/null || { echo "fleet-loop.sh: needs python3" >&2; exit 1; }

if [[ -z $binary ]]; then
    scratch=("--scratch-path" "${FLEET_LOOP_SCRATCH:-$root/Tools/.build}")
    swift build -c release --package-path "$root/Tools" "${scratch[@]}" --product preferences-fleet >&2
    binary="$(swift build -c release --package-path "$root/Tools" "${scratch[@]}" --show-bin-path)/preferences-fleet"
fi
[[ -x $binary ]] || { echo "fleet-loop.sh: $binary is not an executable" >&2; exit 1; }

# The helper stops what it starts and its children die with it (PR_SET_PDEATHSIG); the pids it
# appends here are stopped again, by id, in case it was killed before it could. Everything it
# makes is under one directory, removed at the end unless --keep.
pids="$(mktemp)"
block="$(mktemp)"
scratch_directory="$(mktemp -d "${TMPDIR:-/tmp}/fleet-loop-sh.XXXXXX")"
keep=0
for argument in ${arguments[@]+"${arguments[@]}"}; do if [[ $argument == --keep ]]; then keep=1; fi; done
helper=""
stop() {
    local status=$?
    trap - EXIT INT TERM HUP
    if [[ -n $helper ]] && kill -0 "$helper" 2>/dev/null; then
        kill -TERM "$helper" 2>/dev/null || true
        wait "$helper" 2>/dev/null || true
    fi
    # Only a process that is still ours: its command line (etcd's --data-dir) or environment (a
    # follower's HOME) names this run's directory, so a pid reused by another program is left be.
    local pid
    while read -r pid; do
        [[ -n $pid && -r /proc/$pid/cmdline ]] || continue
        if grep -qaF "$scratch_directory" "/proc/$pid/cmdline" "/proc/$pid/environ" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done <"$pids"
    rm -f "$pids" "$block"
    ((keep)) || rm -rf "$scratch_directory"
    exit "$status"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

echo "fleet-loop.sh: $(uptime)" >&2
FLEET_LOOP_PIDS="$pids" FLEET_LOOP_TMPDIR="$scratch_directory" python3 "$here/fleet-loop.py" "$binary" ${arguments[@]+"${arguments[@]}"} >"$block" &
helper=$!
wait "$helper"
helper=""
grep -q '^| etcd put → verified status of all' "$block" || { echo "fleet-loop.sh: no figure" >&2; exit 1; }
cat "$block"
if [[ -n $output ]]; then cp "$block" "$output"; fi
