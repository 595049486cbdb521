#!/usr/bin/env bash
# `preferences-fleet status` over a fleet of reporting hosts (issue 40, item 2): a 3-member
# etcd on loopback holding one domain's fleet policy and, for each of N hosts (default 1,000),
# an enrolment (<prefix>status/HOST) and a status (<prefix>status/HOST/DOMAIN); then
# `preferences-fleet status DOMAIN --json` timed end to end, process start to exit, R times.
#
#   bash Benchmarks/fleet-status.sh [--hosts N] [--runs R] [--binary PREFERENCES-FLEET]
#
# Builds preferences-fleet in release unless --binary names one (FLEET_STATUS_SCRATCH chooses
# another build folder than Tools/.build). Prints one Markdown block: the p50, p90 and max wall
# time, the JSON's size, etcd's version, and the load average before and after. Every run's
# JSON is checked (N live hosts, 1% of them invalid, none silent), so a fast wrong answer
# fails instead of being timed. Needs etcd (Debian's etcd-server package) and python3.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

hosts=1000
runs=50
binary=""
while (($# > 0)); do
    case "$1" in
        --hosts) hosts="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --binary) binary="$2"; shift 2 ;;
        *) echo "usage: fleet-status.sh [--hosts N] [--runs R] [--binary PREFERENCES-FLEET]" >&2; exit 2 ;;
    esac
done

etcd="$(command -v etcd || true)"
[[ -z $etcd && -x /usr/bin/etcd ]] && etcd=/usr/bin/etcd
[[ -n $etcd ]] || { echo "fleet-status.sh: needs etcd (apt-get install etcd-server)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "fleet-status.sh: needs python3" >&2; exit 1; }

if [[ -z $binary ]]; then
    scratch="${FLEET_STATUS_SCRATCH:-$root/Tools/.build}"
    swift build -c release --package-path "$root/Tools" --scratch-path "$scratch" --product preferences-fleet >&2
    binary="$(swift build -c release --package-path "$root/Tools" --scratch-path "$scratch" --show-bin-path)/preferences-fleet"
fi
[[ -x $binary ]] || { echo "fleet-status.sh: $binary is not an executable" >&2; exit 1; }

work="$(mktemp -d)"
pids=()
# Only the members this script started, by their process ids.
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# Six ports the kernel called free, all held until the last is chosen so none repeats.
read -r -a ports <<<"$(python3 -c '
import socket
held = [socket.socket() for _ in range(6)]
for s in held: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in held))
')"
cluster=""
endpoints=""
for i in 0 1 2; do
    cluster+="${cluster:+,}m$i=http://127.0.0.1:${ports[2 * i + 1]}"
    endpoints+="${endpoints:+,}http://127.0.0.1:${ports[2 * i]}"
done
# Heartbeat and election as the fleet-latency harness has them: elections settle in half a second.
for i in 0 1 2; do
    "$etcd" --name "m$i" --data-dir "$work/m$i.etcd" \
        --listen-client-urls "http://127.0.0.1:${ports[2 * i]}" --advertise-client-urls "http://127.0.0.1:${ports[2 * i]}" \
        --listen-peer-urls "http://127.0.0.1:${ports[2 * i + 1]}" --initial-advertise-peer-urls "http://127.0.0.1:${ports[2 * i + 1]}" \
        --initial-cluster "$cluster" --initial-cluster-token "fleet-status-$$" --initial-cluster-state new \
        --heartbeat-interval 50 --election-timeout 500 --logger zap --log-outputs stderr \
        >"$work/member-$i.log" 2>&1 &
    pids+=($!)
done

load_before="$(cat /proc/loadavg)"

# Waits for a leader, loads the fleet through the JSON gateway (puts in transactions of 100,
# under etcd's default --max-txn-ops of 128), times the runs and prints the block.
python3 - "$binary" "$endpoints" "$hosts" "$runs" "$load_before" "$("$etcd" --version | head -1)" <<'PY'
import base64, datetime, hashlib, json, subprocess, sys, time, urllib.request

binary, endpoints, hosts, runs, load_before, version = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
domain = "com.example.bench"
prefix = "/preferences/"

def post(path, body, endpoint=endpoints[0], timeout=5):
    request = urllib.request.Request(endpoint + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.load(answer)

def b64(text):
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()

deadline = time.monotonic() + 30
while True:
    try:
        if all(post("/v3/maintenance/status", {}, e, 1).get("leader") for e in endpoints):
            break
    except Exception:
        pass
    if time.monotonic() > deadline:
        sys.exit("fleet-status.sh: the etcd members did not elect a leader in 30 s")
    time.sleep(0.1)

policy = '<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Volume</key><integer>50</integer></dict></plist>'
fleet_revision = int(post("/v3/kv/put", {"key": b64(prefix + "fleet/" + domain), "value": b64(policy)})["header"]["revision"])
now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
digest = "sha256:" + hashlib.sha256(policy.encode()).hexdigest()
puts, invalid = [], 0
for n in range(hosts):
    host = "host-%05d" % n
    groups = ["lab"] if n % 10 == 0 else []
    reasons = []
    if n % 100 == 7:
        reasons = [{"key": "Volume", "reason": "Volume must be at most 100, not 120"}]
        invalid += 1
    enrolment = {"host": host, "groups": groups, "started": now}
    status = {"host": host, "domain": domain, "revision": fleet_revision, "digest": digest,
              "valid": not reasons, "reasons": reasons, "time": now}
    puts.append((prefix + "status/" + host, json.dumps(enrolment, sort_keys=True, separators=(",", ":"))))
    puts.append((prefix + "status/%s/%s" % (host, domain), json.dumps(status, sort_keys=True, separators=(",", ":"))))
for start in range(0, len(puts), 100):
    post("/v3/kv/txn", {"success": [{"request_put": {"key": b64(k), "value": b64(v)}} for k, v in puts[start:start + 100]]})

command = [binary, "status", domain, "--json", "--endpoints", ",".join(endpoints)]
def run():
    began = time.perf_counter_ns()
    finished = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter_ns() - began) / 1e6
    if finished.returncode != 0:
        sys.exit("fleet-status.sh: status exited with %d: %s" % (finished.returncode, finished.stderr.decode()))
    report = json.loads(finished.stdout)
    counts = report["domains"][0]
    expected = (hosts, hosts, 0, invalid, 0)
    got = (counts["live"], counts["current"], counts["behind"], counts["invalid"], counts["silent"])
    if got != expected:
        sys.exit("fleet-status.sh: live, current, behind, invalid, silent are %s, not %s" % (got, expected))
    return elapsed, len(finished.stdout)

run()  # once to bring the binary and its libraries into the page cache
samples, size = [], 0
for _ in range(runs):
    elapsed, size = run()
    samples.append(elapsed)
samples.sort()
def percentile(p):
    return samples[min(len(samples) - 1, int(round(p / 100 * (len(samples) - 1))))]
load_after = open("/proc/loadavg").read().strip()
print("| `preferences-fleet status DOMAIN --json`, %d reporting hosts | p50 | p90 | max |" % hosts)
print("|---|---|---|---|")
print("| process start → exit, %d runs | %.1f ms | %.1f ms | %.1f ms |" % (runs, percentile(50), percentile(90), samples[-1]))
print()
print("%s, 3 members on loopback; %d enrolments + %d statuses (%d invalid) + 1 policy key; "
      "the JSON printed is %d bytes; load average before %s, after %s." % (
          version, hosts, hosts, invalid, size, " ".join(load_before.split()[:3]), " ".join(load_after.split()[:3])))
PY
