#!/usr/bin/env python3
"""Conformance suite for the on-disk preferences protocol (see README.md beside this file).

    python3 Tests/Conformance/run.py [--list] [--case NAME]... [--peer 'CMD'] -- ADAPTER COMMAND...

Runs every case (or those named; NAME may be a shell pattern such as 'hostile.*') against the
adapter, one line per case, and exits 1 if any case failed. Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import errno
import fnmatch
import itertools
import json
import math
import os
import plistlib
import queue
import random
import re
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback

# A hang guard for one answer, never a pass/fail threshold: a case fails on it only because
# an adapter stopped answering.
ANSWER_TIMEOUT = 60.0
EVENT_TIMEOUT = 30.0

COUNTER_MAGIC = b"SPCOMMIT"
COMMIT_XATTR = "user.swift-preferences.commit"
MARKER = ".swift-preferences-protocol"
STAGING = ".swift-preferences-staging"


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


# ---------------------------------------------------------------------------------------------
# Values: tagged JSON (the contract) <-> plistlib's Python values

EPOCH_2001 = datetime.datetime(2001, 1, 1)


def S(text):
    return {"string": text}


def I(number):
    return {"integer": number}


def R(number):
    return {"real": number}


def B(flag):
    return {"bool": flag}


def D(seconds):
    return {"date": seconds}


def DATA(raw):
    return {"data": base64.b64encode(raw).decode()}


def A(*values):
    return {"array": list(values)}


def DICT(**values):
    return {"dict": values}


def to_python(tagged):
    """A tagged value as plistlib writes it."""
    (tag, content), = tagged.items()
    if tag == "string":
        return content
    if tag == "integer":
        return int(content)
    if tag == "real":
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(content, content) if isinstance(content, str) else float(content)
    if tag == "bool":
        return bool(content)
    if tag == "date":
        return EPOCH_2001 + datetime.timedelta(seconds=content)
    if tag == "data":
        return base64.b64decode(content)
    if tag == "array":
        return [to_python(v) for v in content]
    if tag == "dict":
        return {k: to_python(v) for k, v in content.items()}
    raise ValueError(f"not a tagged value: {tagged!r}")


def from_python(value):
    """A value plistlib read, tagged."""
    if isinstance(value, bool):
        return B(value)
    if isinstance(value, int):
        return I(value)
    if isinstance(value, float):
        if math.isnan(value):
            return R("nan")
        if math.isinf(value):
            return R("inf" if value > 0 else "-inf")
        return R(value)
    if isinstance(value, str):
        return S(value)
    if isinstance(value, (bytes, bytearray)):
        return DATA(bytes(value))
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return D((value - EPOCH_2001).total_seconds())
    if isinstance(value, list):
        return A(*[from_python(v) for v in value])
    if isinstance(value, dict):
        return {"dict": {k: from_python(v) for k, v in value.items()}}
    raise ValueError(f"not a property-list value: {value!r}")


def same(a, b, date_slack=0.0):
    """Whether two tagged values are equal: reals bit-for-bit (nan equals nan, -0.0 is not 0.0)."""
    if a is None or b is None:
        return a is None and b is None
    if not isinstance(a, dict) or not isinstance(b, dict) or len(a) != 1 or len(b) != 1:
        return False
    (ta, ca), = a.items()
    (tb, cb), = b.items()
    if ta != tb:
        return False
    if ta == "real":
        if isinstance(ca, str) or isinstance(cb, str):
            return ca == cb
        return float(ca) == float(cb) and math.copysign(1, float(ca)) == math.copysign(1, float(cb))
    if ta == "date":
        return abs(float(ca) - float(cb)) <= date_slack
    if ta == "integer":
        return int(ca) == int(cb)
    if ta == "array":
        return len(ca) == len(cb) and all(same(x, y, date_slack) for x, y in zip(ca, cb))
    if ta == "dict":
        return ca.keys() == cb.keys() and all(same(ca[k], cb[k], date_slack) for k in ca)
    return ca == cb


def show(value):
    return json.dumps(value, sort_keys=True)[:300]


# Every value type and the edges of its encoding (sizes that change the binary form's markers).
SAMPLE_VALUES = {
    "string.empty": S(""),
    "string.ascii": S("hello, world"),
    "string.unicode": S("héllo ✓ 😀 日本"),
    "string.long": S("x" * 300),
    "string.long-unicode": S("ü" * 40),
    "integer.zero": I(0),
    "integer.minus-one": I(-1),
    "integer.255": I(255),
    "integer.256": I(256),
    "integer.65536": I(65536),
    "integer.2^31": I(2**31),
    "integer.2^32": I(2**32),
    "integer.int64-min": I(-(2**63)),
    "integer.int64-max": I(2**63 - 1),
    "integer.uint64-max": I(2**64 - 1),
    "real.zero": R(0.0),
    "real.minus-zero": R(-0.0),
    "real.tenth": R(0.1),
    "real.big": R(1e300),
    "real.subnormal": R(5e-324),
    "real.inf": R("inf"),
    "real.minus-inf": R("-inf"),
    "bool.true": B(True),
    "bool.false": B(False),
    "date.reference": D(0.0),
    "date.half": D(700000000.5),
    "date.before": D(-1000.25),
    "data.empty": DATA(b""),
    "data.bytes": DATA(bytes(range(256))),
    "array.empty": A(),
    "array.mixed": A(S("a"), I(1), R(1.5), B(False), DATA(b"\x00\x01"), A(S("nested")), DICT(k=S("v"))),
    "array.twenty": A(*[I(i) for i in range(20)]),
    "dict.empty": DICT(),
    "dict.nested": DICT(inner=DICT(deeper=A(I(1), I(2)), flag=B(True))),
    "dict.twenty": {"dict": {f"key{i}": I(i) for i in range(20)}},
    "dict.unicode-keys": {"dict": {"ключ": S("значение"), "🔑": I(1)}},
}
SAMPLE_KEYS = {"key with spaces": S("s"), "dotted.key.name": S("d"), "ünïcödé": S("u"), "@at": S("a")}


# ---------------------------------------------------------------------------------------------
# Binary property lists the runner crafts itself (for the hostile cases)

def bplist(objects, top=0, ref_size=1, offset_size=None):
    """A binary plist from already-encoded object bodies (bytes), object refs of ref_size."""
    body = bytearray(b"bplist00")
    offsets = []
    for obj in objects:
        offsets.append(len(body))
        body += obj
    table_offset = len(body)
    offset_size = offset_size or (1 if table_offset < 256 else 2 if table_offset < 65536 else 4)
    for off in offsets:
        body += off.to_bytes(offset_size, "big")
    body += bytes(6) + bytes([offset_size, ref_size]) + struct.pack(">QQQ", len(objects), top, table_offset)
    return bytes(body)


def cyclic_bplist():
    # Object 0: a dict {"k": object 0} — it contains itself.
    return bplist([bytes([0xD1, 1, 0]), b"\x51k"])


def deep_bplist(depth=200):
    objects = [bytes([0xD1, 1, 2]), b"\x51k"]  # top dict {"k": array chain}
    for level in range(depth):
        objects.append(bytes([0xA1, 3 + level]))  # array of one: the next
    objects.append(b"\x10\x07")  # integer 7
    return bplist(objects, ref_size=1 if len(objects) < 256 else 2) if len(objects) < 256 else _deep_wide(depth)


def _deep_wide(depth):
    objects = [b"\xD1" + (1).to_bytes(2, "big") + (2).to_bytes(2, "big"), b"\x51k"]
    for level in range(depth):
        objects.append(b"\xA1" + (3 + level).to_bytes(2, "big"))
    objects.append(b"\x10\x07")
    return bplist(objects, ref_size=2)


# ---------------------------------------------------------------------------------------------
# Adapters

class Adapter:
    """One adapter process: requests in, answers matched by id, events kept in order."""

    _order = itertools.count()

    def __init__(self, ctx, command, env, name):
        self.ctx = ctx
        self.name = name
        self.command = command
        self.stderr_path = os.path.join(ctx.root, f"stderr-{name}.txt")
        self._stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env,
            cwd=ctx.root, bufsize=0)
        self.pid = self.process.pid
        self.ids = itertools.count(1)
        self.lock = threading.Condition()
        self.answers = {}  # id -> (arrival order, answer)
        self.events = []  # (arrival order, event)
        self.closed = False
        self.bad_lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.hello = None

    def _read(self):
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            order = next(Adapter._order)
            try:
                message = json.loads(line)
            except ValueError:
                with self.lock:
                    self.bad_lines.append(line)
                    self.lock.notify_all()
                continue
            with self.lock:
                if isinstance(message, dict) and "event" in message and "ok" not in message:
                    self.events.append((order, message))
                elif isinstance(message, dict) and "ok" in message:
                    self.answers[json.dumps(message.get("id"))] = (order, message)
                else:
                    self.bad_lines.append(line)
                self.lock.notify_all()
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    def send(self, op, **fields):
        """Sends a request and returns its id without waiting."""
        request_id = f"{self.name}-{next(self.ids)}"
        request = {"op": op, "id": request_id, **fields}
        try:
            self.process.stdin.write((json.dumps(request) + "\n").encode())
        except BrokenPipeError:
            pass
        return request_id

    def wait(self, request_id, timeout=ANSWER_TIMEOUT):
        """The answer to request_id, as (arrival order, answer)."""
        key = json.dumps(request_id)
        deadline = time.monotonic() + timeout
        with self.lock:
            while key not in self.answers:
                if self.bad_lines:
                    raise Failure(f"{self.name}: a line that is not a JSON answer or event: {self.bad_lines[0][:200]}")
                if self.closed:
                    raise Failure(f"{self.name} exited (status {self.process.poll()}) before answering {request_id}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Failure(f"{self.name} gave no answer to {request_id} within {timeout:.0f} s (hang guard)")
                self.lock.wait(left)
            return self.answers.pop(key)

    def call(self, op, **fields):
        """Sends a request and returns its answer; fails the case if the answer is an error."""
        answer = self.try_call(op, **fields)
        if not answer.get("ok"):
            raise Failure(f"{self.name}: {op} {show(fields)} failed: {show(answer.get('error'))}")
        return answer

    def try_call(self, op, **fields):
        order, answer = self.wait(self.send(op, **fields))
        return answer

    def error(self, op, kind, **fields):
        """Sends a request that must fail with error kind `kind`; returns the error."""
        answer = self.try_call(op, **fields)
        check(not answer.get("ok"), f"{self.name}: {op} {show(fields)} succeeded; expected error {kind}")
        err = answer.get("error") or {}
        check(err.get("kind") == kind, f"{self.name}: {op} {show(fields)} failed with {show(err)}; expected kind {kind}")
        return err

    def get(self, domain, key):
        return self.call("get", domain=domain, key=key).get("value")

    def own(self, domain):
        value = self.call("own", domain=domain).get("value")
        check(isinstance(value, dict) and "dict" in value, f"{self.name}: own answered {show(value)}, not a dict")
        return value["dict"]

    def wait_event(self, predicate, what, timeout=EVENT_TIMEOUT):
        """The first event not yet taken that satisfies predicate; earlier ones stay."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for index, (order, event) in enumerate(self.events):
                    if predicate(event):
                        del self.events[index]
                        return event
                if self.closed:
                    raise Failure(f"{self.name} exited before {what}")
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [show(e) for _, e in self.events][-5:]
                    raise Failure(f"{self.name}: no event {what} within {timeout:.0f} s (hang guard); events seen: {seen}")
                self.lock.wait(left)

    def quit(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write(b'{"op":"quit","id":"quit"}\n')
                self.process.stdin.close()
            except (BrokenPipeError, ValueError):
                pass
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stderr.close()

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self._stderr.close()

    def stderr_text(self):
        try:
            with open(self.stderr_path, "rb") as handle:
                return handle.read().decode("utf-8", "replace")
        except OSError:
            return ""


class Context:
    """One case's private tree and its adapters."""

    def __init__(self, main_command, peer_command):
        self.main_command = main_command
        self.peer_command = peer_command
        self.root = tempfile.mkdtemp(prefix="prefs-conformance-")
        self.home = os.path.join(self.root, "home")
        self.user = os.path.join(self.root, "user-prefs")
        self.system = os.path.join(self.root, "system")
        self.schemas = os.path.join(self.root, "schemas")
        self.runtime = os.path.join(self.root, "runtime")
        self.config = os.path.join(self.home, ".config")
        self.elsewhere = os.path.join(self.root, "elsewhere")
        for path in (self.home, self.schemas, self.elsewhere):
            os.makedirs(path, mode=0o700)
        os.mkdir(self.runtime, 0o700)
        os.chmod(self.runtime, 0o700)
        self.adapters = []
        self.names = itertools.count(1)

    def env(self, **overrides):
        env = {
            "HOME": self.home,
            "PREFERENCES_HOME": self.user,
            "PREFERENCES_SYSTEM_DIR": self.system,
            "PREFERENCES_SCHEMA_PATH": self.schemas,
            "XDG_CONFIG_HOME": self.config,
            "XDG_RUNTIME_DIR": self.runtime,
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
        }
        # PYTHONPATH and the like: how an adapter's own interpreter finds its code, not the
        # user's settings.
        for name in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "LD_LIBRARY_PATH"):
            if name in os.environ:
                env[name] = os.environ[name]
        # Adapters run in the case's directory: relative search paths are made absolute.
        for name in ("PYTHONPATH", "LD_LIBRARY_PATH"):
            if name in env:
                env[name] = ":".join(os.path.abspath(p) if p else p for p in env[name].split(":"))
        for name, value in overrides.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        return env

    def start(self, peer=False, hello=True, **env):
        command = self.peer_command if peer else self.main_command
        name = f"{'peer' if peer else 'adapter'}{next(self.names)}"
        adapter = Adapter(self, command, self.env(**env), name)
        self.adapters.append(adapter)
        if hello:
            answer = adapter.call("hello")
            check(answer.get("protocol") == 1, f"{name}: hello answered protocol {answer.get('protocol')!r}, not 1")
            adapter.hello = answer
        return adapter

    def writers(self, count):
        """count adapters: half of them the peer's if there is one."""
        return [self.start(peer=self.peer_command is not None and index % 2 == 1) for index in range(count)]

    def close(self):
        for adapter in self.adapters:
            if adapter.process.poll() is None:
                adapter.quit()
            elif not adapter._stderr.closed:
                adapter._stderr.close()

    def stderr_report(self):
        parts = []
        for adapter in self.adapters:
            text = adapter.stderr_text().strip()
            if text:
                lines = [line for line in text.splitlines() if line.strip()]
                # A crash's reason is at the top of a backtrace, the last words at the bottom.
                shown = lines if len(lines) <= 16 else lines[:8] + ["..."] + lines[-6:]
                parts.append(f"--- {adapter.name} stderr ---\n" + "\n".join(shown))
        return "\n".join(parts)

    # Files ---------------------------------------------------------------------------------

    def domain_path(self, domain, directory=None):
        return os.path.join(directory or self.user, domain + ".plist")

    def plant(self, path, values, mode=0o600, fmt=plistlib.FMT_BINARY, raw=None):
        """Writes a file as a hand edit does: a temporary file renamed over the name."""
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        data = raw if raw is not None else plistlib.dumps({k: to_python(v) for k, v in values.items()}, fmt=fmt, sort_keys=True)
        temporary = os.path.join(os.path.dirname(path), f".runner-{os.getpid()}-{random.getrandbits(32)}.tmp")
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.rename(temporary, path)
        return data

    def read_plist(self, path):
        with open(path, "rb") as handle:
            data = handle.read()
        check(data.startswith(b"bplist00"), f"{path} does not start with bplist00: {data[:16]!r}")
        try:
            top = plistlib.loads(data, fmt=plistlib.FMT_BINARY)
        except Exception as error:  # noqa: BLE001 - any decoding error is the finding
            raise Failure(f"{path} does not decode as a binary property list: {error}")
        check(isinstance(top, dict), f"{path}'s top object is a {type(top).__name__}, not a dictionary")
        return {k: from_python(v) for k, v in top.items()}

    def snapshot(self, directory):
        """Every entry below directory: relative path -> (kind, mode, bytes or link target)."""
        result = {}
        if not os.path.lexists(directory):
            return result
        for base, dirs, files in os.walk(directory):
            for name in dirs + files:
                path = os.path.join(base, name)
                info = os.lstat(path)
                if stat.S_ISREG(info.st_mode):
                    with open(path, "rb") as handle:
                        content = handle.read()
                elif stat.S_ISLNK(info.st_mode):
                    content = os.readlink(path)
                else:
                    content = None
                result[os.path.relpath(path, directory)] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), content)
        return result


def machine_id():
    try:
        with open("/etc/machine-id") as handle:
            value = handle.read().strip()
        return value or None
    except OSError:
        return None


def fnv1a64(text):
    value = 0xCBF29CE484222325
    for byte in text.encode():
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def counter_path(ctx, file_path):
    name = os.path.basename(file_path).encode()[:180].decode("utf-8", "ignore")
    return os.path.join(ctx.runtime, "swift-preferences", f"{name}-{fnv1a64(file_path):016x}")


def read_counter(path):
    with open(path, "rb") as handle:
        data = handle.read()
    return data


def commit_record(path):
    try:
        raw = os.getxattr(path, COMMIT_XATTR, follow_symlinks=False)
    except OSError as error:
        raise Failure(f"{path} has no {COMMIT_XATTR} attribute: {error}")
    text = raw.decode("utf-8", "replace")
    match = re.fullmatch(r"1 ([1-9][0-9]*) ([1-9][0-9]*) (-?[0-9]+) (\S+)", text)
    check(match, f"{path}'s commit record {text!r} is not '1 <seq> <pid> <mtime-ns> <unit or ->'")
    return int(match.group(1)), int(match.group(2)), int(match.group(3)), match.group(4)


def expected_unit(pid):
    """W6's <unit>: the last component of the process's cgroup path if it ends in .service or
    .scope, else "-"."""
    try:
        with open(f"/proc/{pid}/cgroup") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return "-"
    # The unified hierarchy's line ("0::/path"), else systemd's own (cgroup v1).
    chosen = next((l for l in lines if l.startswith("0::")), None) or next((l for l in lines if ":name=systemd:" in l), "")
    last = chosen.split(":", 2)[-1].rstrip("/").rsplit("/", 1)[-1]
    return last if last.endswith(".service") or last.endswith(".scope") else "-"


def all_bytes_below(directory):
    """(path, bytes) of every regular file below directory."""
    for base, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(base, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                with open(path, "rb") as handle:
                    yield path, handle.read()


def encodings_of(text):
    return [text.encode("utf-8"), text.encode("utf-16-be")]


# ---------------------------------------------------------------------------------------------
# Cases

CASES = []


def case(name, rules=(), needs_peer=False):
    def register(function):
        CASES.append((name, tuple(rules), function, needs_peer))
        return function
    return register


DOMAIN = "org.conformance.test"


@case("layout.domain-file", rules=["D1", "D4", "D5", "E1"])
def layout_domain_file(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("v"))
    path = ctx.domain_path(DOMAIN)
    info = os.lstat(path)
    check(stat.S_ISREG(info.st_mode), f"{path} is not a regular file")
    check(stat.S_IMODE(info.st_mode) == 0o600, f"{path} has mode {stat.S_IMODE(info.st_mode):o}, not 600")
    directory = os.lstat(ctx.user)
    check(stat.S_IMODE(directory.st_mode) == 0o700, f"{ctx.user} has mode {stat.S_IMODE(directory.st_mode):o}, not 700")
    values = ctx.read_plist(path)
    check(same(values.get("k"), S("v")), f"the file holds {show(values)}")


@case("layout.hidden-files", rules=["D4", "L1", "L2", "W5", "W10"])
def layout_hidden_files(ctx):
    a = ctx.start()
    for index in range(3):
        a.call("set", domain=DOMAIN, key="k", value=I(index))
    a.call("transaction", domain=DOMAIN, set={"x": I(1), "y": I(2)}, delete=["k"])
    a.call("increment", domain=DOMAIN, key="n", by=1, count=2)
    for name in os.listdir(ctx.user):
        check(name == DOMAIN + ".plist" or name.startswith("."), f"{name} in the user directory is neither the domain file nor hidden")
    lock = os.path.join(ctx.user, f".{DOMAIN}.plist.lock")
    check(os.path.lexists(lock), f"no lock file {lock}")
    check(stat.S_ISREG(os.lstat(lock).st_mode), f"{lock} is not a regular file")
    leftovers = [n for n in os.listdir(ctx.user) if ".tmp" in n]
    check(not leftovers, f"temporary files left in the domain directory after commits: {leftovers}")
    staging = os.path.join(ctx.user, STAGING)
    if os.path.lexists(staging):
        info = os.lstat(staging)
        check(stat.S_ISDIR(info.st_mode), f"{staging} is not a directory")
        check(stat.S_IMODE(info.st_mode) == 0o700, f"{staging} has mode {stat.S_IMODE(info.st_mode):o}, not 700")
        check(not os.listdir(staging), f"files left in the staging directory after commits: {os.listdir(staging)}")


@case("layout.domain-names", rules=["D3"])
def layout_domain_names(ctx):
    a = ctx.start()
    for bad in ["", ".hidden", "a/b", "a b", "x" * 201, "ü", "../escape", "a\nb"]:
        a.error("set", "invalid-domain-name", domain=bad, key="k", value=S("v"))
        a.error("get", "invalid-domain-name", domain=bad, key="k")
    check(not os.path.lexists(ctx.user) or not [n for n in os.listdir(ctx.user) if not n.startswith(".")],
          "a refused domain name left a file")
    check(not os.path.lexists(os.path.join(ctx.root, "escape.plist")), "a ../ domain name escaped the directory")
    for good in ["x" * 200, "A-z_0.9", "a"]:
        a.call("set", domain=good, key="k", value=S("v"))
        check(os.path.exists(ctx.domain_path(good)), f"no file for the valid domain name {good[:20]}...")


@case("layout.directory-fallbacks", rules=["D1", "D5"])
def layout_directory_fallbacks(ctx):
    a = ctx.start(PREFERENCES_HOME=None)
    a.call("set", domain=DOMAIN, key="k", value=S("xdg"))
    path = os.path.join(ctx.config, "preferences", DOMAIN + ".plist")
    check(os.path.exists(path), f"without PREFERENCES_HOME the file is not at {path}")
    mode = stat.S_IMODE(os.lstat(os.path.dirname(path)).st_mode)
    check(mode == 0o700, f"the user directory the writer created has mode {mode:o}, not 700")
    b = ctx.start(PREFERENCES_HOME=None, XDG_CONFIG_HOME=None)
    b.call("set", domain="org.conformance.other", key="k", value=S("home"))
    path = os.path.join(ctx.home, ".config", "preferences", "org.conformance.other.plist")
    check(os.path.exists(path), f"without PREFERENCES_HOME and XDG_CONFIG_HOME the file is not at {path}")
    c = ctx.start(PREFERENCES_HOME=None, XDG_CONFIG_HOME="relative/config")
    c.call("set", domain="org.conformance.third", key="k", value=S("home"))
    path = os.path.join(ctx.home, ".config", "preferences", "org.conformance.third.plist")
    check(os.path.exists(path), f"a relative XDG_CONFIG_HOME is not ignored: no file at {path}")
    check(not os.path.exists(os.path.join(ctx.root, "relative")), "a relative XDG_CONFIG_HOME was used")


@case("search.precedence", rules=["D4", "D6", "M1"])
def search_precedence(ctx):
    host = machine_id()
    if not host:
        raise Skip("no /etc/machine-id, so no by-host layer")
    # Key kN is present in layer N and every layer after it; each layer's value names it.
    layers = [
        ("managed", os.path.join(ctx.system, "managed", DOMAIN + ".plist")),
        ("by-host", os.path.join(ctx.user, "ByHost", f"{DOMAIN}.{host}.plist")),
        ("any-host", ctx.domain_path(DOMAIN)),
        ("global-by-host", os.path.join(ctx.user, "ByHost", f".GlobalPreferences.{host}.plist")),
        ("global", os.path.join(ctx.user, ".GlobalPreferences.plist")),
        ("system", os.path.join(ctx.system, DOMAIN + ".plist")),
        ("system-global", os.path.join(ctx.system, ".GlobalPreferences.plist")),
    ]
    os.makedirs(ctx.user, mode=0o700)
    os.makedirs(ctx.system, mode=0o755)
    for index, (name, path) in enumerate(layers):
        ctx.plant(path, {f"k{n}": S(name) for n in range(index + 1)},
                  mode=0o644 if path.startswith(ctx.system) else 0o600)
        if os.path.dirname(path).startswith(ctx.system):
            os.chmod(os.path.dirname(path), 0o755)
    a = ctx.start()
    for index, (name, _) in enumerate(layers):
        value = a.get(DOMAIN, f"k{index}")
        check(same(value, S(name)), f"k{index} resolves to {show(value)}, expected the {name} layer's value")
    resolved = a.call("resolved", domain=DOMAIN)["value"]["dict"]
    for index, (name, _) in enumerate(layers):
        check(same(resolved.get(f"k{index}"), S(name)), f"resolved: k{index} is {show(resolved.get(f'k{index}'))}, expected {name}")
    own = a.own(DOMAIN)
    check(set(own) == {"k0", "k1", "k2"} and all(same(v, S("any-host")) for v in own.values()),
          f"own answered {show(own)}, expected the any-host file's keys only")


@case("search.managed-forces", rules=["M1", "M2", "W15"])
def search_managed_forces(ctx):
    managed = os.path.join(ctx.system, "managed")
    os.makedirs(managed, mode=0o755)
    os.chmod(ctx.system, 0o755)
    ctx.plant(os.path.join(managed, DOMAIN + ".plist"), {"forced": S("managed")}, mode=0o644)
    before = ctx.snapshot(ctx.system)
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="forced", value=S("user"))
    check(same(a.get(DOMAIN, "forced"), S("managed")), "get of a forced key does not return the managed value")
    check(same(ctx.read_plist(ctx.domain_path(DOMAIN)).get("forced"), S("user")), "the write of a forced key did not reach the user file")
    check(same(a.own(DOMAIN).get("forced"), S("user")), "own does not show the user file's value of a forced key")
    b = ctx.start()
    check(same(b.get(DOMAIN, "forced"), S("managed")), "another process reads the user value of a forced key")
    check(ctx.snapshot(ctx.system) == before, "the system directory changed")


@case("encoding.between-adapters", rules=["E2"])
def encoding_between_adapters(ctx):
    pairs = [(False, False)]
    if ctx.peer_command:
        pairs += [(False, True), (True, False)]
    for writer_peer, reader_peer in pairs:
        domain = f"org.conformance.enc{int(writer_peer)}{int(reader_peer)}"
        writer, reader = ctx.start(peer=writer_peer), ctx.start(peer=reader_peer)
        values = {**SAMPLE_VALUES, **SAMPLE_KEYS}
        for key, value in values.items():
            writer.call("set", domain=domain, key=key, value=value)
        writer.call("transaction", domain=domain, set={"t." + k: v for k, v in SAMPLE_VALUES.items()}, delete=[])
        for key, value in list(values.items()) + [("t." + k, v) for k, v in SAMPLE_VALUES.items()]:
            got = reader.get(domain, key)
            check(same(got, value), f"{writer.name}→{reader.name}: {key!r} reads back as {show(got)}, wrote {show(value)}")
            got = writer.get(domain, key)
            check(same(got, value), f"{writer.name} itself: {key!r} reads back as {show(got)}, wrote {show(value)}")
        own = reader.own(domain)
        check(set(own) == set(values) | {"t." + k for k in SAMPLE_VALUES}, "own has other keys than those written")


@case("encoding.nan", rules=["E2"])
def encoding_nan(ctx):
    # Its own case: NaN is unequal to itself, the classic trap for a store that diffs values.
    writer, reader = ctx.start(), ctx.start(peer=ctx.peer_command is not None)
    writer.call("set", domain=DOMAIN, key="nan", value=R("nan"))
    writer.call("set", domain=DOMAIN, key="nan-in-array", value=A(R("nan"), R(1.0)))
    writer.call("set", domain=DOMAIN, key="other", value=S("after"))
    for key, value in (("nan", R("nan")), ("nan-in-array", A(R("nan"), R(1.0))), ("other", S("after"))):
        check(same(reader.get(DOMAIN, key), value), f"{key} reads back as {show(reader.get(DOMAIN, key))}")
    values = ctx.read_plist(ctx.domain_path(DOMAIN))
    check(same(values.get("nan"), R("nan")), f"the file holds {show(values.get('nan'))} for nan")
    ctx.plant(ctx.domain_path("org.conformance.planted"), {"nan": R("nan")})
    check(same(reader.get("org.conformance.planted", "nan"), R("nan")), "a NaN the runner wrote does not read back")


@case("encoding.file-written-by-adapter", rules=["E1", "E2"])
def encoding_file_written_by_adapter(ctx):
    a = ctx.start()
    a.call("transaction", domain=DOMAIN, set={**SAMPLE_VALUES, **SAMPLE_KEYS}, delete=[])
    values = ctx.read_plist(ctx.domain_path(DOMAIN))
    for key, value in {**SAMPLE_VALUES, **SAMPLE_KEYS}.items():
        # plistlib keeps dates to the microsecond.
        check(same(values.get(key), value, date_slack=1e-6), f"{key!r} in the file is {show(values.get(key))}, wrote {show(value)}")


@case("encoding.file-written-by-runner", rules=["E1", "E2"])
def encoding_file_written_by_runner(ctx):
    written = {**SAMPLE_VALUES, **SAMPLE_KEYS}
    ctx.plant(ctx.domain_path(DOMAIN), written)
    # plistlib's dates are whole microseconds: compare with what it wrote.
    expected = ctx.read_plist(ctx.domain_path(DOMAIN))
    a = ctx.start()
    for key in written:
        got = a.get(DOMAIN, key)
        check(same(got, expected[key], date_slack=1e-6), f"{key!r} reads as {show(got)}; the file holds {show(expected[key])}")


@case("atomicity.reader-never-sees-part", rules=["W10", "N4", "R4"])
def atomicity_reader(ctx):
    writer, reader = ctx.start(), ctx.start(peer=ctx.peer_command is not None)
    writer.call("transaction", domain=DOMAIN, set={"a": I(0), "b": I(0), "c": I(0)}, delete=[])
    rounds = 150
    ids = [writer.send("transaction", domain=DOMAIN, set={"a": I(i), "b": I(i), "c": I(i * i)}, delete=[]) for i in range(1, rounds + 1)]
    seen = set()
    last = None
    path = ctx.domain_path(DOMAIN)
    while True:
        with writer.lock:
            done = json.dumps(ids[-1]) in writer.answers or writer.closed
        own = reader.own(DOMAIN)
        a, b, c = (own.get(k, {}).get("integer") for k in ("a", "b", "c"))
        check(a == b and c == (a or 0) ** 2, f"{reader.name} saw part of a transaction: {show(own)}")
        got = [reader.get(DOMAIN, k) for k in ("a", "b", "c")]
        seen.add(a)
        check(last is None or a >= last, f"{reader.name} went back from {last} to {a}")
        last = a
        # The runner reads the file too: every rename leaves a whole file.
        values = ctx.read_plist(path)
        fa, fb, fc = (values[k]["integer"] for k in ("a", "b", "c"))
        check(fa == fb and fc == fa * fa, f"the file held part of a transaction: {show(values)}")
        del got
        if done:
            break
    for request_id in ids:
        _, answer = writer.wait(request_id)
        check(answer.get("ok"), f"a transaction failed: {show(answer)}")
    final = reader.own(DOMAIN)
    check(final["a"]["integer"] == rounds, f"after all commits own reads {show(final)}")
    # How many distinct states the reader saw while the writer ran: 1 means it never overlapped.
    ctx.note = f"reader saw {len(seen)} states"


def increment_value(answer):
    """An increment's answer: the contract's "last integer", tagged ({"integer": n}) or bare."""
    value = answer.get("value")
    if isinstance(value, dict) and isinstance(value.get("integer"), int):
        return value["integer"]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise Failure(f"increment answered {show(answer)}: no integer value")


def increments_case(ctx, writers, per_writer):
    adapters = ctx.writers(writers)
    ids = [(a, a.send("increment", domain=DOMAIN, key="n", by=1, count=per_writer)) for a in adapters]
    for adapter, request_id in ids:
        _, answer = adapter.wait(request_id)
        check(answer.get("ok"), f"{adapter.name}: increment failed: {show(answer)}")
    total = writers * per_writer
    check(same(adapters[0].get(DOMAIN, "n"), I(total)), f"after {writers}×{per_writer} increments n is {show(adapters[0].get(DOMAIN, 'n'))}")
    check(same(ctx.read_plist(ctx.domain_path(DOMAIN)).get("n"), I(total)), "the file does not hold the total")


@case("concurrency.increments", rules=["L1", "W3"])
def concurrency_increments(ctx):
    increments_case(ctx, 4, 40)


@case("concurrency.increments-one-at-a-time", rules=["L1", "W3"])
def concurrency_increments_separate(ctx):
    adapters = ctx.writers(4)
    ids = []
    for _ in range(25):
        for adapter in adapters:
            ids.append((adapter, adapter.send("increment", domain=DOMAIN, key="n", by=1)))
    answers = []
    for adapter, request_id in ids:
        _, answer = adapter.wait(request_id)
        check(answer.get("ok"), f"{adapter.name}: increment failed: {show(answer)}")
        answers.append(increment_value(answer))
    check(sorted(answers) == list(range(1, 101)), f"the increments' answers are not 1...100 each once: {sorted(answers)[:10]}...")
    check(same(adapters[0].get(DOMAIN, "n"), I(100)), "n is not 100")


@case("concurrency.disjoint-keys", rules=["W3"])
def concurrency_disjoint_keys(ctx):
    adapters = ctx.writers(4)
    ids = []
    for round_ in range(20):
        for index, adapter in enumerate(adapters):
            ids.append((adapter, adapter.send("set", domain=DOMAIN, key=f"w{index}.{round_}", value=I(round_))))
    for adapter, request_id in ids:
        _, answer = adapter.wait(request_id)
        check(answer.get("ok"), f"{adapter.name}: set failed: {show(answer)}")
    values = ctx.read_plist(ctx.domain_path(DOMAIN))
    missing = [f"w{i}.{r}" for i in range(4) for r in range(20) if f"w{i}.{r}" not in values]
    check(not missing, f"keys other processes wrote were lost: {missing[:10]}")


@case("crash.killed-writer", rules=["L3", "W2", "W10"])
def crash_killed_writer(ctx):
    rng = random.Random(0xC0FFEE)
    path = ctx.domain_path(DOMAIN)
    acknowledged = 0
    for round_ in range(12):
        a = ctx.start()
        ids = [a.send("increment", domain=DOMAIN, key="n", by=1) for _ in range(400)]
        # Wait for a random number of answers, then a little more, then kill.
        wait_for = rng.randrange(1, 60)
        _, answer = a.wait(ids[wait_for - 1])
        time.sleep(rng.random() * 0.02)
        a.kill()
        with a.lock:
            values = [increment_value(m) for _, m in a.answers.values() if m.get("ok")]
        acknowledged = max([acknowledged, increment_value(answer)] + values)
        values_on_disk = ctx.read_plist(path)
        n = values_on_disk["n"]["integer"]
        check(n in (acknowledged, acknowledged + 1),
              f"round {round_}: after SIGKILL the file holds n={n}; {acknowledged} increments were acknowledged")
        acknowledged = n
    b = ctx.start()
    b.call("set", domain=DOMAIN, key="after", value=S("ok"))
    final = b.get(DOMAIN, "n")
    check(final is not None and final["integer"] == acknowledged, f"a new writer reads n={show(final)}, the file said {acknowledged}")
    check(same(ctx.read_plist(path).get("after"), S("ok")), "a new writer's set did not reach the file")
    # The killed writers' temporaries are orphans the new writer's commit removed (W2).
    leftovers = [n for d in (ctx.user, os.path.join(ctx.user, STAGING)) if os.path.isdir(d)
                 for n in os.listdir(d) if re.fullmatch(rf"\.{re.escape(DOMAIN)}\.plist\.tmp-[0-9]+-[0-9]+", n)]
    check(not leftovers, f"temporary files of killed writers are left after a new commit: {leftovers}")


CRASH_POINTS = ["locked", "temporary-written", "temporary-synced", "generation-kept", "renamed", "directory-synced"]


@case("crash.points", rules=["L3", "W2", "W10", "W14"])
def crash_points(ctx):
    probe = ctx.start()
    supported = probe.hello.get("crash_points") or []
    probe.quit()
    skipped = [p for p in CRASH_POINTS if p not in supported]
    if not [p for p in CRASH_POINTS if p in supported]:
        raise Skip(f"the adapter supports none of the crash points {CRASH_POINTS}")
    path = ctx.domain_path(DOMAIN)
    for point in CRASH_POINTS:
        if point not in supported:
            continue
        a = ctx.start()
        a.call("set", domain=DOMAIN, key="k", value=S("old"))
        a.send("crash", domain=DOMAIN, key="k", value=S("new"), at=point)
        status = a.process.wait(timeout=ANSWER_TIMEOUT)
        check(status == 137, f"crash at {point}: the adapter exited with {status}, not 137")
        value = ctx.read_plist(path).get("k")
        expected = [S("old")] if point in ("locked", "temporary-written", "temporary-synced", "generation-kept") else [S("new")]
        check(any(same(value, e) for e in expected), f"crash at {point}: the file holds k={show(value)}, expected {show(expected)}")
        b = ctx.start()
        b.call("set", domain=DOMAIN, key="k", value=S("after-" + point))
        check(same(ctx.read_plist(path).get("k"), S("after-" + point)), f"after a crash at {point} a new writer's set did not commit")
        # W2: the dead writer's temporary file is gone once the next writer has held the lock.
        for folder in (ctx.user, os.path.join(ctx.user, STAGING)):
            names = os.listdir(folder) if os.path.isdir(folder) else []
            left = [n for n in names if n.startswith(f".{DOMAIN}.plist.tmp-")]
            check(not left, f"after a crash at {point} and a new commit, temporary files are left in {folder}: {left}")
        b.quit()
    if skipped:
        ctx.note = "not supported by the adapter: " + ", ".join(skipped)


@case("reads.never-wait-for-a-writer", rules=["R4"])
def reads_never_wait(ctx):
    holder = ctx.start()
    reader = ctx.start(peer=ctx.peer_command is not None)
    holder.call("set", domain=DOMAIN, key="k", value=S("before"))
    check(same(reader.get(DOMAIN, "k"), S("before")), "the reader does not see the first commit")
    held = holder.send("transaction", domain=DOMAIN, set={"k": S("held")}, delete=[], hold_ms=3000)
    holder.wait_event(lambda e: e.get("event") == "locked" and e.get("id") == held, "locked")
    read_order, read = reader.wait(reader.send("get", domain=DOMAIN, key="k"))
    own_order, own = reader.wait(reader.send("own", domain=DOMAIN))
    held_order, held_answer = holder.wait(held)
    check(read.get("ok") and same(read.get("value"), S("before")), f"the read during the hold answered {show(read)}")
    check(own.get("ok"), f"own during the hold failed: {show(own)}")
    check(read_order < held_order and own_order < held_order, "a read answered only after the writer holding the lock committed")
    check(held_answer.get("ok"), f"the held transaction failed: {show(held_answer)}")
    check(same(reader.get(DOMAIN, "k"), S("held")), "after the held commit the reader does not see it")


@case("watch.another-process", rules=["N1", "N2"])
def watch_another_process(ctx):
    watcher, writer = ctx.start(), ctx.start(peer=ctx.peer_command is not None)
    writer.call("set", domain=DOMAIN, key="other", value=S("x"))
    watcher.call("watch", domain=DOMAIN)
    steps = [("set", S("v1"), None, S("v1")), ("set", S("v2"), S("v1"), S("v2")), ("delete", None, S("v2"), None)]
    for op, value, old, new in steps:
        if op == "set":
            writer.call("set", domain=DOMAIN, key="k", value=value)
        else:
            writer.call("delete", domain=DOMAIN, key="k")
        event = watcher.wait_event(lambda e: e.get("event") == "change" and e.get("key") == "k" and same(e.get("new"), new), f"k → {show(new)}")
        check(event.get("domain") == DOMAIN, f"the event names domain {event.get('domain')!r}")
        check(same(event.get("old"), old), f"the change to {show(new)} says old {show(event.get('old'))}, expected {show(old)}")
    writer.call("transaction", domain=DOMAIN, set={"t1": I(1), "t2": I(2)}, delete=[])
    for key, value in (("t1", I(1)), ("t2", I(2))):
        watcher.wait_event(lambda e, key=key, value=value: e.get("key") == key and same(e.get("new"), value), f"{key} → {show(value)}")


@case("watch.hand-edit", rules=["N1", "N2"])
def watch_hand_edit(ctx):
    watcher = ctx.start()
    watcher.call("set", domain=DOMAIN, key="k", value=S("library"))
    watcher.call("watch", domain=DOMAIN)
    ctx.plant(ctx.domain_path(DOMAIN), {"k": S("by-hand"), "new": I(5)})
    event = watcher.wait_event(lambda e: e.get("key") == "k" and same(e.get("new"), S("by-hand")), "k → by-hand")
    check(same(event.get("old"), S("library")), f"the hand edit's change says old {show(event.get('old'))}")
    watcher.wait_event(lambda e: e.get("key") == "new" and same(e.get("new"), I(5)), "new → 5")
    check(same(watcher.get(DOMAIN, "k"), S("by-hand")), "after the event get does not return the hand-edited value")


@case("watch.managed-layer", rules=["N1", "N2", "M1"])
def watch_managed_layer(ctx):
    managed = os.path.join(ctx.system, "managed")
    os.makedirs(managed, mode=0o755)
    os.chmod(ctx.system, 0o755)
    watcher = ctx.start()
    watcher.call("set", domain=DOMAIN, key="k", value=S("user"))
    watcher.call("watch", domain=DOMAIN)
    ctx.plant(os.path.join(managed, DOMAIN + ".plist"), {"k": S("forced")}, mode=0o644)
    event = watcher.wait_event(lambda e: e.get("key") == "k" and same(e.get("new"), S("forced")), "k → forced (managed)")
    check(same(event.get("old"), S("user")), f"the managed change says old {show(event.get('old'))}")
    check(same(watcher.get(DOMAIN, "k"), S("forced")), "get does not return the newly forced value")


@case("history.generations", rules=["H1", "H2", "W6", "W9"])
def history_generations(ctx):
    a = ctx.start()
    path = ctx.domain_path(DOMAIN)
    history = os.path.join(ctx.user, f".{DOMAIN}.plist.history")
    inodes = []
    for index in range(1, 5):
        a.call("set", domain=DOMAIN, key="k", value=I(index))
        info = os.lstat(path)
        seq, pid, mtime, unit = commit_record(path)
        check(seq == index, f"commit {index}: the record's sequence is {seq}")
        check(pid == a.pid, f"commit {index}: the record names pid {pid}, the adapter is {a.pid}")
        check(mtime == info.st_mtime_ns, f"commit {index}: the record's mtime {mtime} is not the file's {info.st_mtime_ns}")
        check(unit == expected_unit(a.pid), f"commit {index}: the record names unit {unit!r}, expected {expected_unit(a.pid)!r} from the writer's cgroup")
        inodes.append((info.st_dev, info.st_ino))
    check(os.path.isdir(history), f"no history directory {history}")
    names = sorted(os.listdir(history))
    check(names == [f"{n}.plist" for n in range(1, 4)], f"the history holds {names}, expected 1.plist 2.plist 3.plist")
    for number in range(1, 4):
        generation = os.path.join(history, f"{number}.plist")
        info = os.lstat(generation)
        check((info.st_dev, info.st_ino) == inodes[number - 1], f"{number}.plist is not a hard link of the file that commit replaced")
        check(same(ctx.read_plist(generation).get("k"), I(number)), f"{number}.plist does not hold k={number}")
        check(commit_record(generation)[0] == number, f"{number}.plist's record has another sequence")


@case("history.commit-record-other-process", rules=["H2", "W6"])
def history_commit_record_other(ctx):
    a, b = ctx.start(), ctx.start(peer=ctx.peer_command is not None)
    a.call("set", domain=DOMAIN, key="k", value=I(1))
    b.call("set", domain=DOMAIN, key="k", value=I(2))
    seq, pid, mtime, _ = commit_record(ctx.domain_path(DOMAIN))
    check(seq == 2 and pid == b.pid, f"after a second process's commit the record says seq {seq} pid {pid}; expected 2 and {b.pid}")
    check(mtime == os.lstat(ctx.domain_path(DOMAIN)).st_mtime_ns, "the record's mtime is not the file's")


NATIVE_SCHEMA = {
    "Domain": DOMAIN,
    "Keys": {
        "Secret": {"Type": "string", "Private": True},
        "Plain": {"Type": "string"},
        "Volume": {"Type": "integer", "Default": 50, "Minimum": 0, "Maximum": 100},
    },
}

BUNDLE_SCHEMA = {
    "PreferenceSpecifiers": [
        {"Type": "PSTextFieldSpecifier", "Title": "Secret", "Key": "Secret", "DefaultValue": "", "IsSecure": True},
        {"Type": "PSTextFieldSpecifier", "Title": "Plain", "Key": "Plain", "DefaultValue": ""},
    ],
}


def private_case(ctx):
    a = ctx.start()
    old_secrets = ["SECRET-first-4711", "SECRET-second-0815", "SECRET-ünï-9999"]
    a.call("set", domain=DOMAIN, key="Plain", value=S("p0"))
    a.call("set", domain=DOMAIN, key="Secret", value=S(old_secrets[0]))
    a.call("set", domain=DOMAIN, key="Plain", value=S("p1"))
    a.call("set", domain=DOMAIN, key="Secret", value=S(old_secrets[1]))
    a.call("transaction", domain=DOMAIN, set={"Secret": S(old_secrets[2]), "Plain": S("p2")}, delete=[])
    a.call("set", domain=DOMAIN, key="Secret", value=S("SECRET-current-1234"))
    a.call("set", domain=DOMAIN, key="Plain", value=S("p3"))
    check(same(a.get(DOMAIN, "Secret"), S("SECRET-current-1234")), "the private key does not read back")
    # A corrupt copy holding a secret: the file goes bad while it holds one.
    a.call("delete", domain=DOMAIN, key="Secret")
    for path, data in all_bytes_below(ctx.user):
        for secret in old_secrets + ["SECRET-current-1234"]:
            for encoded in encodings_of(secret):
                check(encoded not in data, f"{os.path.relpath(path, ctx.root)} still holds the private value {secret!r}")
    history = os.path.join(ctx.user, f".{DOMAIN}.plist.history")
    check(os.path.isdir(history) and os.listdir(history), "no generations were kept at all (the check above proves nothing)")
    a.quit()
    for secret in old_secrets + ["SECRET-current-1234"]:
        check(secret not in a.stderr_text(), f"the adapter's standard error (its log) holds the private value {secret!r}")


@case("private.native-schema", rules=["P1", "P2", "P3", "H2"])
def private_native(ctx):
    with open(os.path.join(ctx.schemas, DOMAIN + ".plist"), "wb") as handle:
        plistlib.dump(NATIVE_SCHEMA, handle)
    private_case(ctx)


@case("private.settings-bundle", rules=["P1", "P2", "P3", "H2"])
def private_bundle(ctx):
    os.makedirs(os.path.join(ctx.schemas, DOMAIN + ".bundle"))
    with open(os.path.join(ctx.schemas, DOMAIN + ".bundle", "Root.plist"), "wb") as handle:
        plistlib.dump(BUNDLE_SCHEMA, handle)
    private_case(ctx)


@case("private.corrupt-copy-purged", rules=["P3", "W8"])
def private_corrupt_copy(ctx):
    with open(os.path.join(ctx.schemas, DOMAIN + ".plist"), "wb") as handle:
        plistlib.dump(NATIVE_SCHEMA, handle)
    secret = "SECRET-in-a-corrupt-copy-31337"
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="Plain", value=S("p0"))
    a.call("set", domain=DOMAIN, key="Secret", value=S(secret))
    a.quit()
    path = ctx.domain_path(DOMAIN)
    with open(path, "rb") as handle:
        data = handle.read()
    check(secret.encode() in data, "the domain file does not hold the private value in the clear (nothing to test)")
    # The file goes bad with the secret's bytes in it: its trailer is cut off.
    ctx.plant(path, {}, raw=data[:-20])
    b = ctx.start()
    b.call("set", domain=DOMAIN, key="Plain", value=S("p1"))
    kept = [n for n in os.listdir(ctx.user) if n.startswith(DOMAIN + ".plist.corrupt-")]
    check(kept, "the write did not keep the corrupt file aside (W8)")
    with open(os.path.join(ctx.user, kept[0]), "rb") as handle:
        check(secret.encode() in handle.read(), "the corrupt copy does not hold the private value (nothing to test)")
    # The key has the value again, then it is removed: every kept copy loses those bytes.
    b.call("set", domain=DOMAIN, key="Secret", value=S(secret))
    b.call("delete", domain=DOMAIN, key="Secret")
    for found, content in all_bytes_below(ctx.user):
        check(secret.encode() not in content, f"{os.path.relpath(found, ctx.root)} still holds the removed private value")


@case("schema.rules-and-defaults", rules=["P1"])
def schema_rules(ctx):
    with open(os.path.join(ctx.schemas, DOMAIN + ".plist"), "wb") as handle:
        plistlib.dump(NATIVE_SCHEMA, handle)
    a = ctx.start()
    check(same(a.get(DOMAIN, "Volume"), I(50)), f"the declared default reads as {show(a.get(DOMAIN, 'Volume'))}")
    a.error("set", "invalid-value", domain=DOMAIN, key="Volume", value=I(101))
    a.error("set", "invalid-value", domain=DOMAIN, key="Volume", value=S("loud"))
    a.error("transaction", "invalid-value", domain=DOMAIN, set={"Volume": I(-1), "Plain": S("x")}, delete=[])
    check(not os.path.exists(ctx.domain_path(DOMAIN)) or "Plain" not in ctx.read_plist(ctx.domain_path(DOMAIN)),
          "a refused transaction wrote part of itself")
    a.call("set", domain=DOMAIN, key="Volume", value=I(70))
    check(same(a.get(DOMAIN, "Volume"), I(70)), "an allowed value does not read back")
    a.call("set", domain=DOMAIN, key="Undeclared", value=S("anything"))
    # An invalid stored value reads as the default and is never thrown away.
    ctx.plant(ctx.domain_path(DOMAIN), {"Volume": S("bad"), "Undeclared": S("anything")})
    b = ctx.start()
    check(same(b.get(DOMAIN, "Volume"), I(50)), f"an invalid stored value reads as {show(b.get(DOMAIN, 'Volume'))}, not the default")
    b.call("set", domain=DOMAIN, key="Plain", value=S("p"))
    check(same(ctx.read_plist(ctx.domain_path(DOMAIN)).get("Volume"), S("bad")), "the invalid stored value was thrown away")


def check_not_served(adapter, kind, what):
    """get of a key held only by an unusable file: null, or an error of the file's kind (the
    contract's get has no error of its own; both are read as "not served")."""
    answer = adapter.try_call("get", domain=DOMAIN, key="k")
    if answer.get("ok"):
        check(answer.get("value") is None, f"get served {show(answer.get('value'))} from {what}")
    else:
        check((answer.get("error") or {}).get("kind") == kind, f"get of {what} failed with {show(answer.get('error'))}, not {kind}")


def refused_file_case(ctx, make, expect_kind):
    """make(path) plants something hostile at the domain file's name; writes must refuse it."""
    os.makedirs(ctx.user, mode=0o700, exist_ok=True)
    path = ctx.domain_path(DOMAIN)
    make(path)
    before = ctx.snapshot(ctx.root)
    before.pop("stderr-adapter1.txt", None)
    a = ctx.start()
    check_not_served(a, expect_kind, "a refused file")
    for op, fields in (("set", dict(key="k", value=S("new"))), ("delete", dict(key="k")),
                       ("transaction", dict(set={"k": S("t")}, delete=[])), ("increment", dict(key="n", by=1))):
        a.error(op, expect_kind, domain=DOMAIN, **fields)
    a.error("own", expect_kind, domain=DOMAIN)
    after = ctx.snapshot(ctx.root)
    for name in list(after):
        if name.startswith("stderr-") or name.startswith("runtime") or f".{DOMAIN}.plist.lock" in name or STAGING in name:
            after.pop(name)
    for name in list(before):
        if name.startswith("runtime") or STAGING in name:
            before.pop(name)
    changed = [n for n in set(before) | set(after) if before.get(n) != after.get(n)]
    check(not changed, f"refused writes changed files: {sorted(changed)[:6]}")


@case("hostile.symlink", rules=["R1"])
def hostile_symlink(ctx):
    target = os.path.join(ctx.elsewhere, "target.plist")

    def make(path):
        ctx.plant(target, {"k": S("target")})
        os.symlink(target, path)
    refused_file_case(ctx, make, "refused-file")
    check(os.path.islink(ctx.domain_path(DOMAIN)), "the link was replaced")


@case("hostile.group-writable", rules=["R1"])
def hostile_mode(ctx):
    refused_file_case(ctx, lambda path: ctx.plant(path, {"k": S("v")}, mode=0o666), "refused-file")


@case("hostile.other-writable-only", rules=["R1"])
def hostile_mode_other(ctx):
    refused_file_case(ctx, lambda path: ctx.plant(path, {"k": S("v")}, mode=0o602), "refused-file")


@case("hostile.not-a-regular-file", rules=["R1"])
def hostile_directory(ctx):
    refused_file_case(ctx, lambda path: os.mkdir(path, 0o700), "refused-file")


@case("hostile.fifo", rules=["R1"])
def hostile_fifo(ctx):
    refused_file_case(ctx, lambda path: os.mkfifo(path, 0o600), "refused-file")


@case("hostile.oversize-file", rules=["E4"])
def hostile_oversize(ctx):
    refused_file_case(ctx, lambda path: ctx.plant(path, {"k": S("v"), "big": DATA(b"\x5a" * (1 << 20))}), "too-large")


@case("hostile.oversize-write", rules=["E4"])
def hostile_oversize_write(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("v"))
    before = ctx.snapshot(ctx.user)
    a.error("set", "too-large", domain=DOMAIN, key="big", value=DATA(b"\x00" * ((1 << 20) + 1)))
    check(a.get(DOMAIN, "big") is None, "a refused oversize value reads back")
    after = ctx.snapshot(ctx.user)
    check(before.get(DOMAIN + ".plist") == after.get(DOMAIN + ".plist"), "a refused oversize write changed the file")


def corrupt_case(ctx, raw, label):
    path = ctx.domain_path(DOMAIN)
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("first"))
    a.call("set", domain=DOMAIN, key="k", value=S("second"))
    a.quit()
    # The file goes bad; its newest good generation holds the version the last commit replaced.
    ctx.plant(path, {}, raw=raw)
    b = ctx.start()
    answer = b.try_call("get", domain=DOMAIN, key="k")
    # R3's SHOULD, which DESIGN.md makes a rule: checked last, so the MUSTs below are seen too.
    served = answer.get("ok") and same(answer.get("value"), S("first"))
    check(open(path, "rb").read() == raw, f"{label}: the corrupt file changed before anything was written")
    b.call("set", domain=DOMAIN, key="j", value=S("after"))
    values = ctx.read_plist(path)
    check(same(values.get("j"), S("after")), f"{label}: the write after the corrupt file did not commit")
    check(same(values.get("k"), S("first")), f"{label}: the commit over the corrupt file did not start from the newest good generation (W3): k is {show(values.get('k'))}")
    kept = [n for n in os.listdir(ctx.user) if n.startswith(DOMAIN + ".plist.corrupt-")]
    check(len(kept) == 1, f"{label}: corrupt copies kept aside: {kept}, expected one {DOMAIN}.plist.corrupt-<time>")
    check(re.fullmatch(re.escape(DOMAIN) + r"\.plist\.corrupt-[0-9]{8}T[0-9]{6}(-[0-9]+)?", kept[0]),
          f"{label}: the corrupt copy's name {kept[0]} is not F.corrupt-<yyyyMMdd>T<HHmmss>")
    check(open(os.path.join(ctx.user, kept[0]), "rb").read() == raw, f"{label}: the kept corrupt copy is not the corrupt file's bytes")
    check(served, f"{label}: get answered {show(answer)}, not the newest good generation's value (R3 SHOULD; DESIGN.md: served)")


def corrupt_without_history(ctx, raw, label):
    ctx.plant(ctx.domain_path(DOMAIN), {}, raw=raw)
    a = ctx.start()
    check_not_served(a, "corrupt", f"{label} (a corrupt file with no generation)")
    a.error("own", "corrupt", domain=DOMAIN)


@case("hostile.garbage", rules=["E1", "R3", "W8", "D4", "H1", "W3"])
def hostile_garbage(ctx):
    corrupt_case(ctx, b"this is not a property list\x00\xff" * 4, "garbage")


@case("hostile.garbage-no-history", rules=["E1", "R3"])
def hostile_garbage_no_history(ctx):
    corrupt_without_history(ctx, b"bplist00 garbage garbage garbage garbage", "garbage")


@case("hostile.cyclic-bplist", rules=["E3", "R3", "W8", "W3"])
def hostile_cyclic(ctx):
    corrupt_case(ctx, cyclic_bplist(), "cyclic")


@case("hostile.cyclic-bplist-no-history", rules=["E3", "R3"])
def hostile_cyclic_no_history(ctx):
    corrupt_without_history(ctx, cyclic_bplist(), "cyclic")


@case("hostile.deep-bplist", rules=["E3", "R3", "W8", "W3"])
def hostile_deep(ctx):
    corrupt_case(ctx, deep_bplist(200), "nested 200 deep")


@case("hostile.xml-file", rules=["E2", "R3"])
def hostile_xml(ctx):
    corrupt_without_history(ctx, plistlib.dumps({"k": "v"}, fmt=plistlib.FMT_XML), "an XML property list")


@case("hostile.not-a-dictionary", rules=["E1", "R3"])
def hostile_not_dict(ctx):
    corrupt_without_history(ctx, plistlib.dumps(["an", "array"], fmt=plistlib.FMT_BINARY), "array at the top")


@case("counter.raised-per-commit", rules=["D4", "N3", "W11"])
def counter_case(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=I(0))
    file_path = ctx.domain_path(DOMAIN)
    path = counter_path(ctx, file_path)
    if not os.path.exists(path):
        present = os.listdir(os.path.join(ctx.runtime, "swift-preferences")) if os.path.isdir(os.path.join(ctx.runtime, "swift-preferences")) else []
        raise Failure(f"no commit counter {os.path.relpath(path, ctx.root)}; present: {present}")
    info = os.lstat(path)
    check(stat.S_ISREG(info.st_mode) and info.st_size == 64, f"the counter is not a 64-byte regular file ({info.st_size} bytes)")
    check(stat.S_IMODE(info.st_mode) & 0o022 == 0, f"the counter has mode {stat.S_IMODE(info.st_mode):o}")
    data = read_counter(path)
    check(data[:8] == COUNTER_MAGIC, f"the counter starts with {data[:8]!r}, not SPCOMMIT")
    check(struct.unpack_from("<I", data, 8)[0] == 1, f"the counter's format version is {struct.unpack_from('<I', data, 8)[0]}")
    check(data[12:16] == bytes(4) and data[24:] == bytes(40), "the counter's reserved bytes are not zero")
    start = struct.unpack_from("<I", data, 16)[0]
    b = ctx.start(peer=ctx.peer_command is not None)
    for index in range(1, 4):
        (a if index % 2 else b).call("set", domain=DOMAIN, key="k", value=I(index))
        now = struct.unpack_from("<I", read_counter(path), 16)[0]
        check(now == (start + index) & 0xFFFFFFFF, f"after {index} more commits the counter is {now}, it was {start}")
    a.call("transaction", domain=DOMAIN, set={"x": I(1), "y": I(2)}, delete=[])
    now = struct.unpack_from("<I", read_counter(path), 16)[0]
    check(now == (start + 4) & 0xFFFFFFFF, f"a transaction raised the counter to {now}, not by one from {start + 3}")


def version_dir(ctx, marker):
    os.makedirs(ctx.user, mode=0o700)
    ctx.plant(ctx.domain_path(DOMAIN), {"k": S("v"), "n": I(1)})
    if marker is not None:
        with open(os.path.join(ctx.user, MARKER), "wb") as handle:
            handle.write(marker)
        os.chmod(os.path.join(ctx.user, MARKER), 0o600)


def refuses_every_write(ctx, a, version_named):
    before = ctx.snapshot(ctx.user)
    check(same(a.get(DOMAIN, "k"), S("v")), "a read in a newer-version directory does not answer")
    check(same(a.own(DOMAIN).get("n"), I(1)), "own in a newer-version directory does not answer")
    check(ctx.snapshot(ctx.user) == before, "reads changed the newer-version directory")
    # Reads may make the commit counter under XDG_RUNTIME_DIR (R4); refused writes must not
    # raise it.
    runtime_before = ctx.snapshot(ctx.runtime)
    for op, fields in (("set", dict(key="k", value=S("new"))), ("delete", dict(key="k")),
                       ("transaction", dict(set={"k": S("t")}, delete=[])), ("increment", dict(key="n", by=1)),
                       ("set", dict(key="fresh", value=S("x")))):
        err = a.error(op, "unsupported-protocol-version", domain=DOMAIN, **fields)
        message = err.get("message", "")
        if version_named:
            check(re.search(rf"\b{version_named}\b", message) and re.search(r"\b1\b", message),
                  f"{op}: the message {message!r} does not name version {version_named} and version 1")
        check(ctx.user in message, f"{op}: the message {message!r} does not name the directory {ctx.user}")
    check(ctx.snapshot(ctx.user) == before, "a refused write changed the directory (its listing or bytes)")
    runtime_after = ctx.snapshot(ctx.runtime)
    check(runtime_after == runtime_before, "a refused write created or raised a commit counter")
    check(same(a.get(DOMAIN, "k"), S("v")), "after refused writes the read answers another value")


@case("protocol.newer-version-refuses-writes", rules=["V1", "V2", "W1"])
def protocol_v2(ctx):
    version_dir(ctx, b"2\n")
    a = ctx.start()
    refuses_every_write(ctx, a, 2)
    check(not os.path.lexists(os.path.join(ctx.user, f".{DOMAIN}.plist.lock")), "a lock file was made")
    answer = a.call("protocol_version", directory=ctx.user)
    check(answer.get("version") == 2, f"protocol_version answered {answer.get('version')!r}, not 2")


@case("protocol.newer-version-new-domain", rules=["V1", "V2"])
def protocol_v2_new_domain(ctx):
    version_dir(ctx, b" 7 \n")
    before = ctx.snapshot(ctx.user)
    a = ctx.start()
    a.error("set", "unsupported-protocol-version", domain="org.conformance.fresh", key="k", value=S("v"))
    check(ctx.snapshot(ctx.user) == before, "a refused write of a new domain changed the directory")


@case("protocol.garbage-marker-refuses-writes", rules=["V1", "V2"])
def protocol_garbage(ctx):
    version_dir(ctx, b"not a version\n")
    a = ctx.start()
    refuses_every_write(ctx, a, None)


@case("protocol.absent-marker-is-version-1", rules=["V1", "V3"])
def protocol_absent(ctx):
    version_dir(ctx, None)
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("written"))
    check(not os.path.lexists(os.path.join(ctx.user, MARKER)), "a version-1 implementation created the marker")
    answer = a.call("protocol_version", directory=ctx.user)
    check(answer.get("version") == 1, f"protocol_version of a directory without a marker answered {answer.get('version')!r}")


@case("protocol.version-1-marker-untouched", rules=["V1", "V3"])
def protocol_v1_marker(ctx):
    version_dir(ctx, b"  1\n\n")
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("written"))
    a.call("transaction", domain=DOMAIN, set={"a": I(1)}, delete=["n"])
    with open(os.path.join(ctx.user, MARKER), "rb") as handle:
        check(handle.read() == b"  1\n\n", "the marker's bytes changed")
    answer = a.call("protocol_version", directory=ctx.user)
    check(answer.get("version") == 1, f"protocol_version answered {answer.get('version')!r} for a marker holding 1")


@case("protocol.newer-system-directory-still-read", rules=["V1", "V2"])
def protocol_system_v2(ctx):
    os.makedirs(os.path.join(ctx.system, "managed"), mode=0o755)
    ctx.plant(os.path.join(ctx.system, DOMAIN + ".plist"), {"s": S("system")}, mode=0o644)
    ctx.plant(os.path.join(ctx.system, "managed", DOMAIN + ".plist"), {"m": S("managed")}, mode=0o644)
    with open(os.path.join(ctx.system, MARKER), "wb") as handle:
        handle.write(b"2\n")
    a = ctx.start()
    check(same(a.get(DOMAIN, "s"), S("system")), "a system default in a newer-version system directory is not read")
    check(same(a.get(DOMAIN, "m"), S("managed")), "a managed value in a newer-version system directory is not read")
    a.call("set", domain=DOMAIN, key="u", value=S("user"))
    answer = a.call("protocol_version", directory=ctx.system)
    check(answer.get("version") == 2, f"protocol_version of the system directory answered {answer.get('version')!r}")


@case("contract.invalid-request", rules=[])
def contract_invalid_request(ctx):
    a = ctx.start()
    a.error("no-such-op", "invalid-request")
    a.error("set", "invalid-request", domain=DOMAIN, key="k", value={"string": "a", "integer": 1})
    check(same(a.get(DOMAIN, "missing"), None), "a missing key is not null")
    a.call("set", domain=DOMAIN, key="k", value=S("still answering"))


@case("layout.lock-file-kept", rules=["L1", "L2"])
def layout_lock_file_kept(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=I(0))
    lock = os.path.join(ctx.user, f".{DOMAIN}.plist.lock")
    info = os.lstat(lock)
    check(stat.S_IMODE(info.st_mode) == 0o600, f"the lock file has mode {stat.S_IMODE(info.st_mode):o}, not 600")
    b = ctx.start(peer=ctx.peer_command is not None)
    for index in range(1, 6):
        (a if index % 2 else b).call("set", domain=DOMAIN, key="k", value=I(index))
        a.call("delete", domain=DOMAIN, key="k")
        now = os.lstat(lock)
        check((now.st_dev, now.st_ino) == (info.st_dev, info.st_ino), "the lock file was removed or replaced")


@case("layout.empty-preferences-home", rules=["D1"])
def layout_empty_home(ctx):
    a = ctx.start(PREFERENCES_HOME="")
    a.call("set", domain=DOMAIN, key="k", value=S("xdg"))
    path = os.path.join(ctx.config, "preferences", DOMAIN + ".plist")
    check(os.path.exists(path), f"with PREFERENCES_HOME empty the file is not at {path}")


@case("reads.create-nothing", rules=["R4"])
def reads_create_nothing(ctx):
    os.makedirs(ctx.user, mode=0o700)
    ctx.plant(ctx.domain_path(DOMAIN), {"k": S("v")})
    before = ctx.snapshot(ctx.user)
    a = ctx.start()
    check(same(a.get(DOMAIN, "k"), S("v")), "the planted value does not read")
    a.call("resolved", domain=DOMAIN)
    a.own(DOMAIN)
    check(a.get("org.conformance.absent", "k") is None, "a missing domain has a value")
    a.call("watch", domain=DOMAIN)
    a.call("unwatch", domain=DOMAIN)
    a.quit()
    after = ctx.snapshot(ctx.user)
    # R4 lets opening a domain make its counter beside F (there is a runtime directory here, so
    # it belongs there) and the one-time import's marker (O2; there is nothing to import here).
    changed = sorted(n for n in set(after) | set(before) if after.get(n) != before.get(n) and not n.endswith(".foundation-imported"))
    check(not changed, f"reads changed the user directory: {changed}")


@case("writes.orphaned-temporaries-removed", rules=["W2"])
def writes_orphans(ctx):
    os.makedirs(os.path.join(ctx.user, STAGING), mode=0o700)
    orphans = [os.path.join(ctx.user, STAGING, f".{DOMAIN}.plist.tmp-99999-1"), os.path.join(ctx.user, f".{DOMAIN}.plist.tmp-99998-7")]
    strangers = [os.path.join(ctx.user, STAGING, f".{DOMAIN}.plist.tmp-x-1"), os.path.join(ctx.user, f".other.plist.tmp-1-1")]
    for path in orphans + strangers:
        with open(path, "wb") as handle:
            handle.write(b"left behind")
        os.chmod(path, 0o600)
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("v"))
    for path in orphans:
        check(not os.path.lexists(path), f"the orphaned temporary {os.path.relpath(path, ctx.user)} was not removed by a commit")
    for path in strangers:
        check(os.path.lexists(path), f"{os.path.relpath(path, ctx.user)}, not this domain's temporary, was removed")


@case("writes.unchanged-writes-nothing", rules=["W4"])
def writes_unchanged(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("v"))
    a.call("set", domain=DOMAIN, key="j", value=S("w"))
    path = ctx.domain_path(DOMAIN)
    before = os.lstat(path)
    history = ctx.snapshot(os.path.join(ctx.user, f".{DOMAIN}.plist.history"))
    b = ctx.start(peer=ctx.peer_command is not None)
    for adapter in (a, b):
        adapter.call("set", domain=DOMAIN, key="k", value=S("v"))
        adapter.call("delete", domain=DOMAIN, key="absent")
        adapter.call("transaction", domain=DOMAIN, set={"j": S("w")}, delete=["absent"])
    after = os.lstat(path)
    check((after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), "a commit that changed no value replaced the file")
    check(ctx.snapshot(os.path.join(ctx.user, f".{DOMAIN}.plist.history")) == history, "a commit that changed no value kept a generation")


@case("writes.empty-removes-file", rules=["W4", "W9", "H2"])
def writes_empty(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("v"))
    a.call("set", domain=DOMAIN, key="k", value=S("w"))
    a.call("delete", domain=DOMAIN, key="k")
    check(not os.path.lexists(ctx.domain_path(DOMAIN)), "removing the last key left a file (it must be removed, not emptied)")
    history = os.path.join(ctx.user, f".{DOMAIN}.plist.history")
    kept = sorted(os.listdir(history)) if os.path.isdir(history) else []
    check(kept, "removing the file kept no generation")
    newest = max(kept, key=lambda n: int(n.split(".")[0]))
    check(same(ctx.read_plist(os.path.join(history, newest)).get("k"), S("w")), "the newest generation is not the removed file")
    check(a.get(DOMAIN, "k") is None, "the removed key still reads")
    a.call("set", domain=DOMAIN, key="k", value=S("again"))
    check(same(ctx.read_plist(ctx.domain_path(DOMAIN)).get("k"), S("again")), "a commit after the removal did not write the file")
    highest = max(int(n.split(".")[0]) for n in os.listdir(history))
    seq = commit_record(ctx.domain_path(DOMAIN))[0]
    check(seq == highest + 1, f"the file written after the removal has sequence {seq}, not the highest kept ({highest}) + 1 (H2)")


@case("history.bounds", rules=["H3", "W13"])
def history_bounds(ctx):
    a = ctx.start()
    for index in range(1, 41):
        a.call("set", domain=DOMAIN, key="k", value=I(index))
    history = os.path.join(ctx.user, f".{DOMAIN}.plist.history")
    numbers = sorted(int(n.split(".")[0]) for n in os.listdir(history))
    check(numbers == list(range(8, 40)), f"after 40 commits the history holds {numbers[:3]}…{numbers[-3:]} ({len(numbers)}), expected 8…39 (the newest 32)")


@case("hostile.foreign-owner", rules=["R1"])
def hostile_foreign_owner(ctx):
    if os.geteuid() != 0:
        raise Skip("planting a file of another user needs root")

    def make(path):
        ctx.plant(path, {"k": S("v")})
        os.chown(path, 4242, 4242)
    refused_file_case(ctx, make, "refused-file")


@case("hostile.lock-file-symlink", rules=["R1", "L1"])
def hostile_lock_symlink(ctx):
    os.makedirs(ctx.user, mode=0o700)
    ctx.plant(ctx.domain_path(DOMAIN), {"k": S("v")})
    target = os.path.join(ctx.elsewhere, "lock-target")
    with open(target, "wb") as handle:
        handle.write(b"not yours")
    os.symlink(target, os.path.join(ctx.user, f".{DOMAIN}.plist.lock"))
    a = ctx.start()
    check(same(a.get(DOMAIN, "k"), S("v")), "a linked lock file stopped a read")
    answer = a.try_call("set", domain=DOMAIN, key="k", value=S("new"))
    check(not answer.get("ok"), "a write went ahead with a symbolic link for its lock file")
    check(open(target, "rb").read() == b"not yours", "the lock link's target changed")
    check(same(ctx.read_plist(ctx.domain_path(DOMAIN)).get("k"), S("v")), "the domain file changed")


@case("hostile.group-writable-directory", rules=["R2"])
def hostile_group_writable_directory(ctx):
    os.makedirs(ctx.user, mode=0o700)
    ctx.plant(ctx.domain_path(DOMAIN), {"k": S("v")})
    os.chmod(ctx.user, 0o777)
    before = ctx.snapshot(ctx.user)
    a = ctx.start()
    answer = a.try_call("set", domain=DOMAIN, key="k", value=S("new"))
    check(not answer.get("ok"), "a write went ahead in a directory others can write")
    check(ctx.snapshot(ctx.user) == before, "a refused write changed the world-writable directory")


@case("hostile.history-symlink", rules=["R2", "H1"])
def hostile_history_symlink(ctx):
    os.makedirs(ctx.user, mode=0o700)
    ctx.plant(ctx.domain_path(DOMAIN), {"k": S("v")})
    elsewhere_history = os.path.join(ctx.elsewhere, "history")
    os.mkdir(elsewhere_history, 0o700)
    os.symlink(elsewhere_history, os.path.join(ctx.user, f".{DOMAIN}.plist.history"))
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("new"))
    check(same(ctx.read_plist(ctx.domain_path(DOMAIN)).get("k"), S("new")), "a linked history stopped the commit")
    check(not os.listdir(elsewhere_history), "a generation was kept through a linked history directory")


@case("hostile.expansion-bomb", rules=["E3", "R3"])
def hostile_expansion(ctx):
    # Seven arrays of ten references to the next: 10^7 values once expanded, 9 objects.
    objects = [bytes([0xD1, 1, 2]), b"\x51k"]
    for level in range(7):
        objects.append(bytes([0xAA]) + bytes([3 + level]) * 10)
    objects.append(b"\x10\x07")
    corrupt_without_history(ctx, bplist(objects), "10^7 shared references")


@case("hostile.too-many-objects", rules=["E3", "R3"])
def hostile_many_objects(ctx):
    count = 70000
    # A dict of one key whose value is an array of 69,998 small integers.
    elements = count - 3
    objects = [b"\xD1" + (1).to_bytes(3, "big") + (2).to_bytes(3, "big"), b"\x51k",
               b"\xAF\x12" + elements.to_bytes(4, "big") + b"".join((3 + i).to_bytes(3, "big") for i in range(elements))]
    objects += [b"\x10\x01"] * elements
    corrupt_without_history(ctx, bplist(objects, ref_size=3), f"{count} objects")


@case("hostile.bad-offsets", rules=["E3", "R3"])
def hostile_bad_offsets(ctx):
    good = plistlib.dumps({"k": "v"}, fmt=plistlib.FMT_BINARY)
    # The trailer's offset-table offset points past the end of the file.
    bad = good[:-8] + struct.pack(">Q", len(good) + 1000)
    corrupt_without_history(ctx, bad, "offset table past the end")


@case("hostile.counter-refused", rules=["N3", "R1"])
def hostile_counter(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=I(0))
    a.quit()
    path = counter_path(ctx, ctx.domain_path(DOMAIN))
    check(os.path.exists(path), "no commit counter to replace")
    os.unlink(path)
    with open(path, "wb") as handle:
        handle.write(b"NOTMAGIC" + bytes(56))
    os.chmod(path, 0o600)
    b = ctx.start()
    c = ctx.start()
    b.call("set", domain=DOMAIN, key="k", value=I(1))
    check(same(c.get(DOMAIN, "k"), I(1)) or same(c.get(DOMAIN, "k"), I(0)), "a refused counter broke reads")
    with open(path, "rb") as handle:
        check(handle.read() == b"NOTMAGIC" + bytes(56), "a counter with the wrong magic was written to")



@case("lock.writer-waits-for-the-lock", rules=["L1", "R4"])
def lock_writer_waits(ctx):
    import fcntl
    a = ctx.start()
    reader = ctx.start(peer=ctx.peer_command is not None)
    a.call("set", domain=DOMAIN, key="k", value=S("before"))
    path = ctx.domain_path(DOMAIN)
    identity = os.lstat(path).st_ino
    lock = os.open(os.path.join(ctx.user, f".{DOMAIN}.plist.lock"), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        pending = [(a, a.send(op, domain=DOMAIN, **fields)) for op, fields in (
            ("set", dict(key="k", value=S("during"))), ("increment", dict(key="n", by=1)))]
        # A reader answers meanwhile (R4); then give the writer every chance to go ahead wrongly.
        check(same(reader.get(DOMAIN, "k"), S("before")), "a read while the lock is held does not answer the old value")
        time.sleep(0.5)
        with a.lock:
            early = [request_id for _, request_id in pending if json.dumps(request_id) in a.answers]
        check(not early, f"{a.name} answered {early} while another process held the domain's lock")
        check(os.lstat(path).st_ino == identity, "the domain file was replaced while another process held its lock")
    finally:
        os.close(lock)
    for adapter, request_id in pending:
        _, answer = adapter.wait(request_id)
        check(answer.get("ok"), f"after the lock was released the write failed: {show(answer)}")
    check(same(reader.get(DOMAIN, "k"), S("during")), "the write made after the lock was released is not read")


@case("hostile.sticky-directory", rules=["R2"])
def hostile_sticky_directory(ctx):
    os.makedirs(ctx.user, mode=0o700)
    ctx.plant(ctx.domain_path(DOMAIN), {"k": S("v")})
    os.chmod(ctx.user, 0o1777)
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("new"))
    check(same(ctx.read_plist(ctx.domain_path(DOMAIN)).get("k"), S("new")), "a write in a sticky world-writable directory did not commit")


@case("hostile.generation-symlink", rules=["R1", "H1", "R3"])
def hostile_generation_symlink(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("first"))
    a.call("set", domain=DOMAIN, key="k", value=S("second"))
    a.quit()
    history = os.path.join(ctx.user, f".{DOMAIN}.plist.history")
    target = os.path.join(ctx.elsewhere, "planted.plist")
    ctx.plant(target, {"k": S("planted")})
    # A newer generation than any kept, as a link to a file elsewhere; then the file goes bad.
    os.symlink(target, os.path.join(history, "99.plist"))
    ctx.plant(ctx.domain_path(DOMAIN), {}, raw=b"garbage, not a property list")
    b = ctx.start()
    answer = b.try_call("get", domain=DOMAIN, key="k")
    check(not (answer.get("ok") and same(answer.get("value"), S("planted"))), "a linked generation was read")


def bplist_objects(data):
    """(marker byte, payload bytes) of every object of a binary plist, by the trailer's table."""
    check(data[:8] == b"bplist00", "the header is not bplist00")
    offset_size, ref_size = data[-26], data[-25]
    count, top, table = struct.unpack(">QQQ", data[-24:])
    check(1 <= offset_size <= 8 and 1 <= ref_size <= 8 and top < count, "the trailer's widths or top index are out of range")
    offsets = [int.from_bytes(data[table + i * offset_size: table + (i + 1) * offset_size], "big") for i in range(count)]
    return [(data[o], data[o:]) for o in offsets]


@case("encoding.writer-object-forms", rules=["E2"])
def encoding_writer_forms(ctx):
    a = ctx.start()
    integers = {"i0": 0, "i255": 255, "i256": 256, "i65535": 65535, "i65536": 65536, "i2^32-1": 2**32 - 1,
                "i2^32": 2**32, "neg": -1, "min": -(2**63), "max": 2**63 - 1, "umax": 2**64 - 1}
    a.call("transaction", domain=DOMAIN, set={**{k: I(v) for k, v in integers.items()},
                                               "ascii": S("plain ascii"), "wide": S("wide ✓"), "when": D(1.5)}, delete=[])
    with open(ctx.domain_path(DOMAIN), "rb") as handle:
        data = handle.read()
    for marker, body in bplist_objects(data):
        kind = marker >> 4
        if kind == 0x1:
            width = 1 << (marker & 0xF)
            value = int.from_bytes(body[1:1 + width], "big", signed=width == 8)
            if width == 16:
                check(body[1:9] == bytes(8), "a 16-byte integer's first 8 bytes are not zero")
                value = int.from_bytes(body[9:17], "big")
                check(value > 2**63 - 1, f"{value} is written in 16 bytes; only values above Int64.max are")
            elif 0 <= value < 2**32:
                expected = 1 if value < 256 else 2 if value < 65536 else 4
                check(width == expected, f"{value} is written in {width} bytes, not {expected} (unsigned)")
            else:
                check(width == 8, f"{value} is written in {width} bytes, not 8")
        elif kind == 0x3:
            check(marker == 0x33, f"a date is written with marker {marker:#x}, not 0x33")
        elif kind == 0x6:
            length = marker & 0xF
            check(length == 15 or any(body[1 + 2 * i: 3 + 2 * i] >= b"\x00\x80" for i in range(length)),
                  "an all-ASCII string is written as UTF-16 (0x6_), not 0x5_")
        elif kind == 0x5:
            length = marker & 0xF
            if length < 15:
                check(all(b < 0x80 for b in body[1:1 + length]), "an ASCII (0x5_) string holds bytes of 0x80 or more")
        check(kind not in (0x0,) or marker in (0x00, 0x08, 0x09), f"marker {marker:#x} (null or fill) in a domain file")
        check(kind not in (0x8, 0xC), f"a UID or set (marker {marker:#x}) in a domain file")
    values = ctx.read_plist(ctx.domain_path(DOMAIN))
    for key, value in integers.items():
        check(same(values.get(key), I(value)), f"{key} decodes as {show(values.get(key))}")


@case("hostile.oversize-with-history", rules=["E4", "W3"])
def hostile_oversize_history(ctx):
    a = ctx.start()
    a.call("set", domain=DOMAIN, key="k", value=S("first"))
    a.call("set", domain=DOMAIN, key="k", value=S("second"))
    a.quit()
    ctx.plant(ctx.domain_path(DOMAIN), {"k": S("big"), "blob": DATA(b"\x5a" * (1 << 20))})
    before = ctx.snapshot(ctx.user)
    b = ctx.start()
    check_not_served(b, "too-large", "an oversize file")
    answer = b.try_call("get", domain=DOMAIN, key="k")
    check(not (answer.get("ok") and same(answer.get("value"), S("first"))), "an oversize file was recovered from a generation (E4: refused, not corrupt)")
    b.error("set", "too-large", domain=DOMAIN, key="j", value=S("x"))
    after = ctx.snapshot(ctx.user)
    check(before.get(DOMAIN + ".plist") == after.get(DOMAIN + ".plist"), "a commit replaced an oversize file")
    check(not [n for n in after if ".corrupt-" in n], "an oversize file was kept aside as corrupt")


@case("protocol.marker-zero-or-link-refuses-writes", rules=["V1", "V2"])
def protocol_zero(ctx):
    version_dir(ctx, b"0\n")
    a = ctx.start()
    refuses_every_write(ctx, a, None)
    os.unlink(os.path.join(ctx.user, MARKER))
    target = os.path.join(ctx.elsewhere, "marker")
    with open(target, "wb") as handle:
        handle.write(b"1\n")
    os.symlink(target, os.path.join(ctx.user, MARKER))
    b = ctx.start()
    refuses_every_write(ctx, b, None)


# ---------------------------------------------------------------------------------------------

def run_case(name, function, main_command, peer_command, keep):
    ctx = Context(main_command, peer_command)
    ctx.note = ""
    started = time.monotonic()
    status, detail = "pass", ""
    try:
        function(ctx)
    except Skip as skip:
        status, detail = "skip", str(skip)
    except Failure as failure:
        status, detail = "fail", str(failure)
    except Exception:  # noqa: BLE001 - a runner bug or an adapter's malformed answer
        status, detail = "fail", "runner error: " + traceback.format_exc().strip().splitlines()[-1]
        detail += "\n" + traceback.format_exc()
    finally:
        try:
            ctx.close()
        except Exception:  # noqa: BLE001
            pass
    elapsed = time.monotonic() - started
    report = ctx.stderr_report() if status == "fail" else ""
    if status == "fail" and keep:
        detail += f"\n(tree kept at {ctx.root})"
    else:
        shutil.rmtree(ctx.root, ignore_errors=True)
    return status, detail, ctx.note, elapsed, report


def absolute_program(command):
    if "/" in command[0] and not os.path.isabs(command[0]):
        return [os.path.abspath(command[0])] + command[1:]
    return command


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="list the cases and the rules each checks")
    parser.add_argument("--case", action="append", default=[], metavar="NAME", help="run only this case (a shell pattern; repeatable)")
    parser.add_argument("--peer", metavar="COMMAND", help="a second adapter (one shell-quoted string) for the mixed cases")
    parser.add_argument("--keep", action="store_true", help="keep a failed case's temporary tree")
    parser.add_argument("adapter", nargs=argparse.REMAINDER, help="-- ADAPTER COMMAND...")
    options = parser.parse_args()
    command = options.adapter[1:] if options.adapter[:1] == ["--"] else options.adapter
    selected = [c for c in CASES if not options.case or any(fnmatch.fnmatchcase(c[0], p) for p in options.case)]
    if options.list:
        for name, rules, _, _ in selected:
            print(f"{name}  {' '.join(rules)}")
        return 0
    if not command:
        parser.error("give the adapter's command after --")
    if not selected:
        parser.error(f"no case matches {options.case}")
    peer = shlex.split(options.peer) if options.peer else None
    # Adapters run in their case's directory: a relative program path is made absolute first.
    command = absolute_program(command)
    peer = absolute_program(peer) if peer else None
    counts = {"pass": 0, "fail": 0, "skip": 0}
    started = time.monotonic()
    for name, rules, function, _ in selected:
        status, detail, note, elapsed, report = run_case(name, function, command, peer, options.keep)
        counts[status] += 1
        line = f"{status:4} {name} [{' '.join(rules)}] ({elapsed:.1f} s)"
        if note:
            line += f" — {note}"
        if detail:
            line += f": {detail}" if status != "fail" else "\n    " + detail.replace("\n", "\n    ")
        print(line, flush=True)
        if report:
            print("    " + report.replace("\n", "\n    "), flush=True)
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped in {time.monotonic() - started:.1f} s", flush=True)
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
