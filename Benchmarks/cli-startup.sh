#!/usr/bin/env bash
# `defaults read` and `defaults write` beside `gsettings get` and `gsettings set` (GNOME's
# dconf backend), in one run: wall time and peak memory of whole processes, started one after
# another, the commands interleaved round by round in a new random order each round, so a
# change in the machine's load falls on all of them alike (issue 38, item 5).
#
#   bash Benchmarks/cli-startup.sh [ROUNDS] LABEL=DEFAULTS-BINARY...
#
#   bash Benchmarks/cli-startup.sh 200 \
#       before=/tmp/base/defaults after=Tools/.build/release/defaults
#
# Each LABEL names a build of the defaults tool, so builds (before and after a change, dynamic
# and static) are measured in the same run. ROUNDS defaults to 200. Prints one Markdown table:
# the median and p90 wall time, the median peak resident memory (the kernel's ru_maxrss of the
# process), and each row's ratio to gsettings' median in the same run, then the load average
# at the start and the end.
#
# gsettings runs against a private session bus and dconf-service with a private HOME (both
# stopped by their PIDs at exit) and a compiled schema of its own, so `gsettings set` is a real
# write through dconf-service and `gsettings get` reads dconf's database. Installs what it
# needs (libglib2.0-bin, dconf-gsettings-backend, dconf-service, dbus-daemon) as root.
set -euo pipefail

rounds=200
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
    rounds=$1
    shift
fi
(($# > 0)) || { echo "usage: cli-startup.sh [ROUNDS] LABEL=DEFAULTS-BINARY..." >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=Peers/dconf/private-session.sh
source "$here/Peers/dconf/private-session.sh"
install_missing_packages libglib2.0-bin dconf-gsettings-backend dconf-service dbus-daemon python3

work="$(mktemp -d)"
trap 'stop_private_dconf; rm -rf "$work"' EXIT
# Both tools' files private to this run: dconf's in $XDG_CONFIG_HOME/dconf, ours in
# $XDG_CONFIG_HOME/preferences, the commit counters and dconf's flag in the runtime directory.
start_private_dconf "$work"
unset PREFERENCES_HOME

# The same two settings on both sides: a string to read, an integer to write.
mkdir -p "$work/schemas"
cat >"$work/schemas/com.example.cli.gschema.xml" <<'EOF'
<schemalist>
  <schema id="com.example.cli" path="/com/example/cli/">
    <key name="greeting" type="s"><default>'hello'</default></key>
    <key name="count" type="i"><default>0</default></key>
  </schema>
</schemalist>
EOF
glib-compile-schemas "$work/schemas"
export GSETTINGS_SCHEMA_DIR="$work/schemas" GSETTINGS_BACKEND=dconf
gsettings set com.example.cli greeting "'bonjour'"
[[ $(gsettings get com.example.cli greeting) == "'bonjour'" ]] || { echo "cli-startup: gsettings did not write through dconf" >&2; exit 1; }

for pair in "$@"; do
    binary=${pair#*=}
    [[ -x $binary ]] || { echo "cli-startup: $binary is not an executable" >&2; exit 2; }
done
first=${1#*=}
"$first" write com.example.cli greeting bonjour
[[ $("$first" read com.example.cli greeting) == bonjour ]] || { echo "cli-startup: defaults did not read back" >&2; exit 1; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$rounds" "$@" <<'EOF'
import os, random, statistics, sys, time

rounds = int(sys.argv[1])
builds = [arg.split("=", 1) for arg in sys.argv[2:]]

commands = []  # (label, argv builder)
commands.append(("gsettings get", lambda i: ["gsettings", "get", "com.example.cli", "greeting"]))
commands.append(("gsettings set", lambda i: ["gsettings", "set", "com.example.cli", "count", str(i)]))
for label, binary in builds:
    commands.append((f"defaults read ({label})", lambda i, b=binary: [b, "read", "com.example.cli", "greeting"]))
    commands.append((f"defaults write ({label})", lambda i, b=binary: [b, "write", "com.example.cli", "count", "-int", str(i)]))

samples = {label: ([], []) for label, _ in commands}
devnull = os.open(os.devnull, os.O_WRONLY)
# A new order each round: whatever runs right after `gsettings set` shares the machine with
# dconf-service finishing that write, and no command may always be the one that does.
shuffler = random.Random(38)
for i in range(rounds + 3):
    order = list(commands)
    shuffler.shuffle(order)
    for label, argv in order:
        start = time.perf_counter_ns()
        pid = os.posix_spawnp(argv(i)[0], argv(i), os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter_ns() - start
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"cli-startup: {' '.join(argv(i))} failed ({status})")
        if i >= 3:  # the first rounds warm the page cache
            samples[label][0].append(elapsed / 1e6)
            samples[label][1].append(usage.ru_maxrss / 1024)

def p(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

reference = {"get": statistics.median(samples["gsettings get"][0]), "set": statistics.median(samples["gsettings set"][0])}
print(f"| command ({rounds} runs each) | wall p50 | wall p90 | peak memory p50 | p50 ÷ gsettings' |")
print("|---|---|---|---|---|")
for label, _ in commands:
    wall, memory = samples[label]
    kind = "get" if ("read" in label or "get" in label) else "set"
    print(f"| `{label}` | {statistics.median(wall):.2f} ms | {p(wall, 0.9):.2f} ms | {statistics.median(memory):.1f} MiB | "
          f"{statistics.median(wall) / reference[kind]:.2f}× |")
EOF
echo
echo "load average (1, 5, 15 min) at the start: $load_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores)"
