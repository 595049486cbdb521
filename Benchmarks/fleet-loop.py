"""The fleet loop's figure (issue 40, item 5): an etcd put of a domain's fleet policy -> every
host's status of that domain verified, on a real 3-member etcd cluster on loopback with N
`preferences-fleet follow` processes. Run by Benchmarks/fleet-loop.sh, which builds the binary.

    python3 fleet-loop.py PREFERENCES-FLEET [--hosts N] [--puts K] [--refusing M]
                          [--status-lease S] [--samples FILE] [--keep]

What it does:

- Starts 3 etcd members on loopback (heartbeat 50 ms, election timeout 500 ms, as
  Harness/FleetLatency does) and waits until they agree on a leader.
- Starts N followers (default 20), `host-00` ... , each with its own HOME, PREFERENCES_HOME,
  PREFERENCES_SYSTEM_DIR and PREFERENCES_SCHEMA_PATH under one temporary directory, each given
  all three endpoints, `--status-lease S` (default 2) and `--log-to-standard-error` (logs kept
  in the directory). With --refusing M, M of them (spread over the names) have a native schema
  for the domain declaring `Level` an integer with Maximum 100.
- Waits until every host has enrolled (`<prefix>status/<host>` exists), then opens one watch on
  `<prefix>status/` through the JSON gateway (POST /v3/watch, a create_request; the answer is
  a stream of newline-delimited JSON in HTTP chunks) on a thread of its own, which keeps each
  host's newest status of the domain and when it first arrived (CLOCK_MONOTONIC).
- Puts K policies (default 200) to `<prefix>fleet/<domain>`, one at a time: an XML plist
  dictionary `{n: i, Level: L}` (L is 50, or with --refusing 150 on every other put). A put is
  timed from just before its request to the arrival of the status event that makes the fleet
  verified for it: every one of the N hosts reports revision >= the put's revision (from the
  put's answer), and
    - without --refusing: valid == true and one digest on all N hosts;
    - with --refusing: the hosts without the schema valid == true, those with it valid == true
      when L <= 100 and valid == false with a reason for Level when L > 100; one digest among
      each of the two groups (and on all N hosts when the put is valid everywhere).
  After each verified put, a random pause of 20 to 50 ms. The first 5 puts are not counted
  (the followers' first whole read and first files).

Prints a Markdown block (a table; the load average at its start, before the puts and after them;
etcd's version; the set-up) to standard output; --samples FILE also writes the raw samples
(`verified-us`, `first-status-us`, `applied-ms`, `response-us` lines). Every process it started is killed, and its directory
removed (unless --keep), however it ends; each child also gets SIGKILL if this process dies
(PR_SET_PDEATHSIG), and its pid is appended to $FLEET_LOOP_PIDS when set, for the shell's trap;
$FLEET_LOOP_TMPDIR, when set, is where its directory is made.
"""

import base64
import ctypes
import datetime
import http.client
import json
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

DOMAIN = "com.example.fleet.loop"
PREFIX = "/preferences/"
WARM_UP = 5
LEVEL_MAXIMUM = 100

# MARK: Failure and clean-up

children = []  # (Popen, name)
work_directory = None
keep_directory = False


def note(message):
    sys.stderr.write("fleet-loop: " + message + "\n")
    sys.stderr.flush()


def cleanup():
    # Followers first, then etcd, so no follower logs the cluster going away.
    followers = [entry for entry in children if not entry[1].startswith("etcd ")]
    members = [entry for entry in children if entry[1].startswith("etcd ")]
    for group in (followers, members):
        for process, _ in group:
            if process.poll() is None:
                try:
                    process.terminate()
                except OSError:
                    pass
        deadline = time.monotonic() + 5
        for process, _ in group:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    children.clear()
    if work_directory and not keep_directory:
        shutil.rmtree(work_directory, ignore_errors=True)


def fail(message):
    note(message)
    cleanup()
    sys.exit(1)


def on_signal(number, _frame):
    note("stopped by signal %d" % number)
    cleanup()
    sys.exit(128 + number)


libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def die_with_parent():
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def start(arguments, log_path, name, environment=None):
    log = open(log_path, "ab")
    process = subprocess.Popen(
        arguments, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=environment, preexec_fn=die_with_parent
    )
    log.close()
    children.append((process, name))
    pids = os.environ.get("FLEET_LOOP_PIDS")
    if pids:
        with open(pids, "a", encoding="utf-8") as handle:
            handle.write("%d\n" % process.pid)
    return process


def tail(path, lines=8):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return "\n".join(handle.read().splitlines()[-lines:])
    except OSError:
        return ""


# MARK: etcd and its JSON gateway


def b64(text):
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def unb64(text):
    return base64.b64decode(text)


def prefix_end(prefix):
    """The range end covering every key that starts with `prefix` (etcd's rule)."""
    data = bytearray(prefix.encode())
    while data and data[-1] == 0xFF:
        data.pop()
    data[-1] += 1
    return bytes(data)


def free_ports(count):
    sockets = []
    try:
        for _ in range(count):
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            sockets.append(server)
        return [server.getsockname()[1] for server in sockets]
    finally:
        for server in sockets:
            server.close()


class Gateway:
    """One kept-alive HTTP/1.1 connection to a member's JSON gateway."""

    def __init__(self, endpoint, timeout=5):
        host, port = endpoint.rsplit("//", 1)[1].split(":")
        self.host, self.port, self.timeout = host, int(port), timeout
        self.connection = None

    def post(self, path, body):
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
                response = self.connection.getresponse()
                data = response.read()
                if response.status != 200:
                    raise RuntimeError("%s answered %d: %s" % (path, response.status, data[:200]))
                return json.loads(data)
            except (OSError, http.client.HTTPException):
                self.connection.close()
                self.connection = None
                if attempt == 1:
                    raise
        return None


def start_cluster(directory, heartbeat=50, election=500):
    ports = free_ports(6)
    members = []
    for index in range(3):
        members.append(
            {
                "name": "m%d" % index,
                "client": "http://127.0.0.1:%d" % ports[2 * index],
                "peer": "http://127.0.0.1:%d" % ports[2 * index + 1],
            }
        )
    initial = ",".join("%s=%s" % (member["name"], member["peer"]) for member in members)
    token = "fleet-loop-%d" % os.getpid()
    for index, member in enumerate(members):
        start(
            [
                etcd_binary(), "--name", member["name"], "--data-dir", os.path.join(directory, member["name"] + ".etcd"),
                "--listen-client-urls", member["client"], "--advertise-client-urls", member["client"],
                "--listen-peer-urls", member["peer"], "--initial-advertise-peer-urls", member["peer"],
                "--initial-cluster", initial, "--initial-cluster-token", token, "--initial-cluster-state", "new",
                "--heartbeat-interval", str(heartbeat), "--election-timeout", str(election),
                "--logger", "zap", "--log-outputs", "stderr",
            ],
            os.path.join(directory, "member-%d.log" % index),
            "etcd " + member["name"],
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        leaders = set()
        try:
            for member in members:
                answer = Gateway(member["client"], timeout=1).post("/v3/maintenance/status", {})
                leaders.add(str(answer.get("leader", "0")))
        except Exception:
            leaders = set()
        if len(leaders) == 1 and "0" not in leaders:
            return [member["client"] for member in members]
        for process, name in children:
            if process.poll() is not None:
                fail("%s exited:\n%s" % (name, tail(os.path.join(directory, "member-%s.log" % name[-1]))))
        time.sleep(0.05)
    fail("the etcd members did not agree on a leader within 30 s")


def etcd_binary():
    for directory in os.environ.get("PATH", "").split(":") + ["/usr/bin"]:
        path = os.path.join(directory, "etcd")
        if os.access(path, os.X_OK):
            return path
    fail("needs etcd (Debian's etcd-server package) on PATH or in /usr/bin")


# MARK: The watch on the statuses


class Fleet:
    """Each host's newest status of the domain, as the watch delivers them."""

    def __init__(self, hosts, refusing):
        self.hosts = hosts
        self.refusing = refusing
        self.condition = threading.Condition()
        self.statuses = {}  # host -> (status dict, first arrival ns of this revision and digest)
        self.deletes = 0
        self.events = 0
        self.error = None

    def record(self, key, value, arrived):
        status_prefix = PREFIX + "status/"
        rest = key[len(status_prefix):]
        if "/" not in rest:
            return  # an enrolment
        host, domain = rest.split("/", 1)
        if domain != DOMAIN:
            return
        with self.condition:
            self.events += 1
            if value is None:
                self.deletes += 1
                self.statuses.pop(host, None)
            else:
                status = json.loads(value)
                old = self.statuses.get(host)
                if old and old[0]["revision"] == status["revision"] and old[0].get("digest") == status.get("digest"):
                    arrived = old[1]  # the same status again (a new lease): it arrived before
                self.statuses[host] = (status, arrived)
            self.condition.notify_all()

    def verified(self, revision, level):
        """With the lock held: the time the fleet became verified for `revision`, or None."""
        if len(self.statuses) < len(self.hosts):
            return None
        digests = {True: set(), False: set()}
        latest = 0
        for host in self.hosts:
            entry = self.statuses.get(host)
            if entry is None:
                return None
            status, arrived = entry
            if status["revision"] < revision:
                return None
            refuses = host in self.refusing and level > LEVEL_MAXIMUM
            if refuses:
                if status["valid"] or not any(reason.get("key") == "Level" for reason in status.get("reasons", [])):
                    return None
            elif not status["valid"]:
                return None
            digests[host in self.refusing and level > LEVEL_MAXIMUM].add(status.get("digest"))
            latest = max(latest, arrived)
        if any(len(group) > 1 for group in digests.values()) or None in digests[False]:
            return None
        return latest

    def first_arrival(self, revision):
        times = [arrived for status, arrived in self.statuses.values() if status["revision"] >= revision]
        return min(times) if times else None

    def applied_times(self, revision):
        return [status["time"] for status, _ in self.statuses.values() if status["revision"] >= revision]

    def lagging(self, revision, level):
        lines = []
        for host in self.hosts:
            entry = self.statuses.get(host)
            if entry is None:
                lines.append("%s: no status" % host)
            else:
                status = entry[0]
                lines.append(
                    "%s: revision %d valid %s digest %s reasons %s"
                    % (host, status["revision"], status["valid"], (status.get("digest") or "none")[:19], status.get("reasons"))
                )
        return "\n".join(lines)


def read_chunk(stream):
    """One chunk of a chunked HTTP body; b"" at its end."""
    line = stream.readline()
    if not line:
        return b""
    size = int(line.split(b";")[0].strip() or b"0", 16)
    if size == 0:
        return b""
    data = stream.read(size)
    stream.read(2)
    return data


def watch(endpoint, start_revision, fleet, ready):
    """Follows `<prefix>status/` from `start_revision` and records every change into `fleet`."""
    try:
        host, port = endpoint.rsplit("//", 1)[1].split(":")
        connection = socket.create_connection((host, int(port)))
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        status_prefix = PREFIX + "status/"
        body = json.dumps(
            {
                "create_request": {
                    "key": b64(status_prefix),
                    "range_end": b64(prefix_end(status_prefix)),
                    "start_revision": str(start_revision),
                }
            }
        ).encode()
        connection.sendall(
            b"POST /v3/watch HTTP/1.1\r\nHost: %s:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % (host.encode(), port.encode(), len(body))
            + body
        )
        stream = connection.makefile("rb")
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            byte = stream.read(1)
            if not byte:
                raise RuntimeError("the watch's connection closed before its answer")
            head += byte
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError("the watch was answered %r" % head.split(b"\r\n")[0])
        chunked = b"transfer-encoding: chunked" in head.lower()
        pending = b""
        while True:
            data = read_chunk(stream) if chunked else stream.read1(65536)
            if not data:
                raise RuntimeError("the watch stream ended")
            arrived = time.monotonic_ns()
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                if not line.strip():
                    continue
                message = json.loads(line)
                if "error" in message:
                    raise RuntimeError("the watch failed: %s" % message["error"])
                result = message.get("result", {})
                if result.get("created"):
                    ready.set()
                if result.get("canceled"):
                    raise RuntimeError("the watch was cancelled: %s" % result)
                for event in result.get("events", []):
                    kv = event["kv"]
                    key = unb64(kv["key"]).decode()
                    value = None if event.get("type") == "DELETE" else unb64(kv.get("value", ""))
                    fleet.record(key, value, arrived)
    except Exception as error:  # the main thread reports it
        with fleet.condition:
            fleet.error = "%s: %s" % (type(error).__name__, error)
            fleet.condition.notify_all()
        ready.set()


# MARK: Measuring


def policy(n, level):
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<plist version="1.0"><dict><key>Level</key><integer>%d</integer>'
        "<key>n</key><integer>%d</integer></dict></plist>\n" % (level, n)
    ).encode()


SCHEMA = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
  <key>Domain</key><string>%s</string>
  <key>Keys</key><dict>
    <key>Level</key><dict><key>Type</key><string>integer</string><key>Default</key><integer>50</integer>
      <key>Minimum</key><integer>0</integer><key>Maximum</key><integer>%d</integer></dict>
    <key>n</key><dict><key>Type</key><string>integer</string><key>Default</key><integer>0</integer></dict>
  </dict>
</dict></plist>
""" % (DOMAIN, LEVEL_MAXIMUM)


def nearest_rank(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(len(ordered) * p) - 1))]


def load_average():
    with open("/proc/loadavg", encoding="utf-8") as handle:
        return " ".join(handle.read().split()[:3])


def ms(value):
    return "%.0f" % value if value >= 100 else "%.1f" % value


def parse_options(arguments):
    options = {"binary": None, "hosts": 20, "puts": 200, "refusing": 0, "lease": 2, "samples": None, "keep": False}
    rest = list(arguments)
    while rest:
        argument = rest.pop(0)
        if argument in ("--hosts", "--puts", "--refusing", "--status-lease", "--samples"):
            if not rest:
                fail("%s needs a value" % argument)
            value = rest.pop(0)
            if argument == "--samples":
                options["samples"] = value
            else:
                try:
                    options[{"--status-lease": "lease"}.get(argument, argument[2:])] = int(value)
                except ValueError:
                    fail("%s needs a number, not %s" % (argument, value))
        elif argument == "--keep":
            options["keep"] = True
        elif not argument.startswith("-") and options["binary"] is None:
            options["binary"] = argument
        else:
            fail("unknown argument %s" % argument)
    if (
        not options["binary"]
        or options["hosts"] < 1
        or options["puts"] < 1
        or not 0 <= options["refusing"] <= options["hosts"]
        or options["lease"] < 1
    ):
        fail(
            "usage: fleet-loop.py PREFERENCES-FLEET [--hosts N] [--puts K] [--refusing M] [--status-lease S] [--samples FILE] [--keep]"
        )
    if not os.access(options["binary"], os.X_OK):
        fail("%s is not an executable" % options["binary"])
    return options


def main():
    global work_directory, keep_directory
    options = parse_options(sys.argv[1:])
    load_at_start = load_average()
    keep_directory = options["keep"]
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, on_signal)
    work_directory = tempfile.mkdtemp(prefix="fleet-loop-", dir=os.environ.get("FLEET_LOOP_TMPDIR") or None)
    if keep_directory:
        note("working in %s" % work_directory)

    etcd_version = subprocess.run([etcd_binary(), "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    endpoints = start_cluster(work_directory)
    gateway = Gateway(endpoints[0])

    count = options["hosts"]
    width = max(2, len(str(count - 1)))
    hosts = ["host-%0*d" % (width, index) for index in range(count)]
    # Refusing hosts spread evenly over the names.
    refusing = set(hosts[(index * count) // options["refusing"]] for index in range(options["refusing"])) if options["refusing"] else set()
    for host in hosts:
        root = os.path.join(work_directory, host)
        for part in ("home", "preferences", "system", "schemas"):
            os.makedirs(os.path.join(root, part), mode=0o755)
        if host in refusing:
            with open(os.path.join(root, "schemas", DOMAIN + ".plist"), "w", encoding="utf-8") as handle:
                handle.write(SCHEMA)
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.path.join(root, "home"),
            "PREFERENCES_HOME": os.path.join(root, "preferences"),
            "PREFERENCES_SYSTEM_DIR": os.path.join(root, "system"),
            "PREFERENCES_SCHEMA_PATH": os.path.join(root, "schemas"),
            "XDG_DATA_HOME": os.path.join(root, "home", ".local", "share"),
            "XDG_DATA_DIRS": os.path.join(root, "share"),
            "XDG_CONFIG_HOME": os.path.join(root, "home", ".config"),
        }
        start(
            [
                options["binary"], "--endpoints", ",".join(endpoints), "--prefix", PREFIX, "--hostname", host,
                "--status-lease", str(options["lease"]), "--log-to-standard-error",
            ],
            os.path.join(root, "follower.log"),
            host,
            environment,
        )

    # Every host enrolled: <prefix>status/<host> exists.
    status_prefix = PREFIX + "status/"
    deadline = time.monotonic() + 120
    while True:
        answer = gateway.post(
            "/v3/kv/range", {"key": b64(status_prefix), "range_end": b64(prefix_end(status_prefix)), "keys_only": True}
        )
        enrolled = {unb64(kv["key"]).decode()[len(status_prefix):] for kv in answer.get("kvs", [])}
        missing = [host for host in hosts if host not in enrolled]
        if not missing:
            break
        for process, name in children:
            if process.poll() is not None:
                fail("%s exited (%s):\n%s" % (name, process.returncode, tail(os.path.join(work_directory, name, "follower.log"))))
        if time.monotonic() > deadline:
            fail("%d hosts did not enrol within 120 s, e.g. %s:\n%s" % (len(missing), missing[0], tail(os.path.join(work_directory, missing[0], "follower.log"))))
        time.sleep(0.05)
    start_revision = int(answer["header"]["revision"]) + 1
    note("%d hosts enrolled (%d with a refusing schema); etcd at revision %d" % (count, len(refusing), start_revision - 1))

    fleet = Fleet(hosts, refusing)
    ready = threading.Event()
    # On another member than the puts go to, as an administrator's watch would often be.
    threading.Thread(target=watch, args=(endpoints[1], start_revision, fleet, ready), daemon=True).start()
    if not ready.wait(10) or fleet.error:
        fail("the watch did not start: %s" % fleet.error)

    key = PREFIX + "fleet/" + DOMAIN
    samples = {"verified": [], "first": [], "applied": [], "response": []}
    load_before = None
    for index in range(WARM_UP + options["puts"]):
        if index == WARM_UP:
            load_before = load_average()
        time.sleep(random.uniform(0.020, 0.050))
        level = 150 if refusing and index % 2 == 1 else 50
        value = policy(index + 1, level)
        started_wall = time.time()
        started = time.monotonic_ns()
        try:
            answer = gateway.post("/v3/kv/put", {"key": b64(key), "value": b64(value)})
        except Exception as error:
            fail("put %d failed: %s" % (index + 1, error))
        answered = time.monotonic_ns()
        revision = int(answer["header"]["revision"])
        deadline = time.monotonic() + 30
        with fleet.condition:
            while True:
                if fleet.error:
                    fail("while waiting for revision %d: %s" % (revision, fleet.error))
                done = fleet.verified(revision, level)
                if done is not None:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    fail("revision %d (put %d) was not verified on all hosts within 30 s:\n%s" % (revision, index + 1, fleet.lagging(revision, level)))
                fleet.condition.wait(left)
            first = fleet.first_arrival(revision)
            applied = fleet.applied_times(revision)
        if index < WARM_UP:
            continue
        samples["verified"].append((done - started) / 1000)
        samples["first"].append((first - started) / 1000)
        samples["response"].append((answered - started) / 1000)
        latest_applied = max(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() for text in applied)
        samples["applied"].append((latest_applied - started_wall) * 1000)
    load_after = load_average()
    with fleet.condition:
        deletes, events = fleet.deletes, fleet.events

    if options["samples"]:
        with open(options["samples"], "w", encoding="utf-8") as handle:
            for name, unit in (("verified", "us"), ("first", "us"), ("applied", "ms"), ("response", "us")):
                for sample in samples[name]:
                    handle.write("%s-%s %.1f\n" % ({"first": "first-status"}.get(name, name), unit, sample))

    def row(name, values, scale, note):
        values = [value / scale for value in values]
        return "| %s | %s | %s | %s | %s | %d | %s |" % (
            name, ms(nearest_rank(values, 0.5)), ms(nearest_rank(values, 0.9)), ms(nearest_rank(values, 0.99)), ms(max(values)), len(values), note,
        )

    if refusing:
        verified_note = (
            "every host's status at the put's revision or later, seen through one watch on the status prefix: "
            "the %d without a schema valid with one digest, the %d whose schema caps Level at %d valid on a put of Level 50 "
            "and invalid with Level's reason on a put of 150 (every other put), one digest per group"
            % (count - len(refusing), len(refusing), LEVEL_MAXIMUM)
        )
    else:
        verified_note = "every host's status at the put's revision or later, valid, one digest on all hosts; seen through one watch on the status prefix"
    title = "etcd put → verified status of all %d hosts" % count if count > 1 else "etcd put → verified status of all 1 host"
    lines = [
        "| preferences-fleet, %d follower%s, ms | p50 | p90 | p99 | max | n | |" % (count, "s" if count > 1 else ""),
        "|---|---:|---:|---:|---:|---:|---|",
        row(title, samples["verified"], 1000, verified_note),
        row("etcd put → first host's status seen", samples["first"], 1000, "the fastest host's status event through the same watch"),
        row(
            "etcd put → last host applied (its status's time)",
            samples["applied"], 1, "from the statuses' `time` fields (wall clock, millisecond resolution): the rest of the first row is the status put and the watch",
        ),
        row("etcd put request → response (part of the above)", samples["response"], 1000, "the gateway's round trip, commit included"),
    ]
    refusing_text = " (%d with a schema refusing Level above %d)" % (len(refusing), LEVEL_MAXIMUM) if refusing else ""
    block = """#### preferences-fleet: etcd put → every host's verified status

%s

Load average (1, 5, 15 min): %s before etcd and the followers started, %s before the puts, %s after them. %s, 3 members on loopback, heartbeat 50 ms, \
election timeout 500 ms; %d `preferences-fleet follow` process%s%s on the same machine (%d CPUs), status lease %d s, \
each with its own system directory; `%s`; one put at a time through the JSON gateway of one member, the statuses watched \
through another's; gaps of 20 to 50 ms between puts; %d untimed warm-up puts; %d status events seen, %d status deletions.
""" % (
        "\n".join(lines), load_at_start, load_before, load_after, etcd_version, count, "es" if count > 1 else "", refusing_text, os.cpu_count(), options["lease"],
        options["binary"], WARM_UP, events, deletes,
    )
    sys.stdout.write(block)
    sys.stdout.flush()
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
