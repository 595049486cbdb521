#!/usr/bin/env bash
# Power loss at every point of the write path, the way ALICE and CrashMonkey test the users
# of file systems: record what a real workload asks of the file system, build every state a
# power cut could leave, and open each one with the real library.
#
# Usage: bash Tests/Scripts/power-loss.sh [--workload write|purge] [--writer swift|python]
#                                          [--quick|--long] [--rounds N] [--omit file|directory] [BIN-PATH]
#   --workload  write (the default): the write path, as below; purge: a purge of a key from
#             every kept copy of a domain (issue 32), as at the end of this comment
#   --quick   2 writer processes, 6 rounds each (the test suite's run); purge: 4 commits
#   (default) 3 writer processes, 12 rounds each; purge: 8 commits
#   --long    4 writer processes, 180 rounds each (over 10,000 distinct crash states); purge:
#             120 commits (about 500 distinct states)
#   --rounds N  N rounds per writer instead (run-all.sh: --long --rounds 40, to keep the suite
#             within its 12 minutes); purge: N commits before the purge (run-all.sh: 32)
#   --writer  swift (the default): the write workload's writers are `PreferencesWorker
#             power-loss-writer`; python: they are Tests/Scripts/power-loss-writer.py, the same
#             rounds through the Python package (python/src, or PYTHONPATH), so the Swift checker
#             opens every state a Python writer's power cut can leave (issue 39). Write workload
#             only; no durability window (a Python `set` is durable when it returns). With
#             --omit, the writer takes the sync out of the package's commit itself.
#   --omit X  run the workload with a sync taken out (PREFERENCES_TEST_OMIT_SYNC, debug builds
#             only): `file` drops the new file's fsync before its rename, `directory` the
#             directory's fsync after it. The run must then find failing states; it names the
#             first one and exits 0 if it does, 1 if the harness missed the fault.
# Needs strace and python3 (Tests/Scripts/install-dependencies.sh installs them).
#
# Recording: a system-call trace (`strace -f -y -xx`). It needs no kernel module and no root
# (device-mapper's log-writes target is not in this kernel, and a FUSE pass-through would put
# the library on a file system it must poll), it sees every process of the workload, and it
# gives each call's data, in the order the calls returned. The workload is several
# `PreferencesWorker power-loss-writer` processes writing one domain at once: plain flushes
# and transactions, a history kept to 2 generations (so every commit prunes one and writes
# its new version over that generation's file, at the closest distance allowed), the lock file, the
# commit counter beside the file, and the preferences directory made by the first write.
# After each flush returns, a writer calls `access` on a marker path, so the trace says from
# which call on each value must survive.
#
# Crash states, for every prefix of the recorded calls (a cut after call k):
# - strict model, "only what was fsynced survives": each directory holds the entries it had
#   at its last fsync (never synced: as the workload found it, or absent if the workload made
#   it and its parent's entry was never synced), each file the bytes it had at its last fsync
#   (never synced: empty).
# - ext4 data=ordered model: name operations (create, rename, link, unlink, mkdir, rmdir) reach
#   the journal in order, and any fsync commits every one before it; so a cut keeps the name
#   operations up to any point between the last fsync and the cut. A file's data written
#   since its last fsync may be lost, kept whole or written in part (its first half): every
#   combination for the files written since the last fsync.
# Each state is checked by `PreferencesWorker power-loss-check`, which opens the domain with
# a store and reads it, then writes to it. A state fails when: the store cannot open or its
# write fails; the store reports a file it could not use (a domain file that neither decodes
# nor is recovered from a generation) or logs that it refused the commit counter; a value whose flush had returned before the cut is
# missing or older; a transaction's two keys differ (a state mixing two commits).
#
# The purge workload (`--workload purge`): one `PreferencesWorker power-loss-purger` process
# makes N commits (transactions), commit n setting `secret` to `purge-secret-n-c0ffee` and
# `keep` to n, with every generation kept (generations 1 to N-1), and puts a copy of the
# domain file aside as corrupt holding the first secret; then, between two markers (`access`
# on /swift-preferences-purge/start and /done), `PreferenceFiles.purge(keys: ["secret"])`:
# a commit removing the key (which keeps the replaced file as generation N), every generation
# rewritten through a synced temporary file renamed over it, the history directory synced,
# the corrupt copy scrubbed the same way, its directory synced. Only the purge is cut:
# everything before the start marker counts as durable (a history built long before the power
# cut), and the states are built from there as above, plus one cut after the done marker.
# `PreferencesWorker power-loss-purge-check` judges each state's files before a store opens
# it: every `N.plist` in the history directory decodes whole and holds `keep` = n and `secret`
# either as committed or not at all; generations 1 to N-1 are all there; no other name is
# there but a copy's temporary file (`.N.plist.*.tmp`), and the library lists exactly the
# `N.plist` files as generations; the corrupt copy is as it was or scrubbed; the domain holds
# `keep` = N and its secret or none. A state cut after the purge returned fails if any file
# under its home holds a secret's bytes. Then the store opens, reads and writes as above.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mode=default omit="" rounds_override=0 workload=write writer=swift
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) mode=quick; shift ;;
        --long) mode=long; shift ;;
        --omit) omit="$2"; shift 2 ;;
        --rounds) rounds_override="$2"; shift 2 ;;
        --workload) workload="$2"; shift 2 ;;
        --writer) writer="$2"; shift 2 ;;
        *) break ;;
    esac
done
bin="${1:-$(swift build --show-bin-path)}"
command -v strace >/dev/null || { echo "strace is not installed: run Tests/Scripts/install-dependencies.sh" >&2; exit 1; }
[[ $rounds_override =~ ^[0-9]+$ ]] || { echo "power-loss: --rounds takes a number" >&2; exit 64; }
[[ $workload == write || $workload == purge ]] || { echo "power-loss: --workload is write or purge" >&2; exit 64; }
[[ $writer == swift || ( $writer == python && $workload == write ) ]] || { echo "power-loss: --writer is swift or python (python: the write workload only)" >&2; exit 64; }
exec python3 - "$bin/PreferencesWorker" "$mode" "$omit" "$rounds_override" "$workload" "$writer" <<'PY'
import hashlib, itertools, json, os, re, shutil, subprocess, sys, tempfile

worker, mode, omit, workload, writer_language = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[5], sys.argv[6]
writers, rounds = {"quick": (2, 6), "default": (3, 12), "long": (4, 180)}[mode]
# The purge workload: one process, `rounds` commits (so rounds-1 generations, and the
# purge's own commit keeps one more) before the purge.
if workload == "purge":
    writers, rounds = 1, {"quick": 4, "default": 8, "long": 120}[mode]
if int(sys.argv[4]) > 0:
    rounds = int(sys.argv[4])
domain = "com.example.powerloss"

# ---------------------------------------------------------------- recording

def record(work):
    home = os.path.join(work, "home")
    os.makedirs(home, mode=0o700)
    log = os.path.join(work, "trace.log")
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    env.update(PREFERENCES_HOME=home + "/preferences", PREFERENCES_SYSTEM_DIR=home + "/system", HOME=home)
    if omit:
        env["PREFERENCES_TEST_OMIT_SYNC"] = omit
    # Every writer must succeed: `wait` on each, not a bare `wait` (which always says 0).
    if workload == "purge":
        script = "exec %s power-loss-purger %s %d" % (worker, domain, rounds)
    else:
        if writer_language == "python":
            # The same rounds through the Python package: the repository's, then PYTHONPATH's.
            package = os.path.join(os.getcwd(), "python", "src")
            env["PYTHONPATH"] = package + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            program = "%s %s" % (sys.executable, os.path.join(os.getcwd(), "Tests", "Scripts", "power-loss-writer.py"))
        else:
            program = "%s power-loss-writer" % worker
        script = "pids=; " + " ".join("%s %s %d %d & pids=\"$pids $!\";" % (program, domain, w, rounds) for w in range(writers)) \
            + ' for p in $pids; do wait "$p" || exit 1; done'
    calls = "openat,creat,write,pwrite64,writev,fsync,fdatasync,rename,renameat,renameat2,link,linkat,unlink,unlinkat,mkdir,mkdirat,rmdir,ftruncate,close,access,faccessat,faccessat2"
    subprocess.run(["strace", "-f", "-qq", "-y", "-xx", "-s", "4000000", "-e", "trace=" + calls, "-o", log, "sh", "-c", script],
                   env=env, check=True, stdout=subprocess.DEVNULL, timeout=600)
    return home, log

line_re = re.compile(r"^(\d+)\s+(.*)$")
call_re = re.compile(r"^([a-z0-9_]+)\((.*)\)\s+=\s+(-?\d+)")

def unhex(text):
    return bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-f]{2})", text))

def split_args(text):
    """Top-level comma-separated arguments (with -xx every string is hex escapes: no quote or
    comma inside one)."""
    args, depth, current = [], 0, ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        args.append(current.strip())
    return args

def decode(text):
    return unhex(text).decode("utf-8", "surrogateescape")

def fd_path(arg):
    """`12<hex escapes>` -> the path the descriptor had when the call was made, or None."""
    m = re.match(r"^-?\d+<(.*)>$", arg)
    return decode(m.group(1)) if m else None

def resolve(dirarg, patharg):
    path = decode(patharg) if patharg.startswith('"') else patharg
    if path.startswith("/"):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(fd_path(dirarg) or os.getcwd(), path))

def completed_calls(log, timestamps=False):
    """(time or None, match of call_re) for each call in an `strace -f` log, in the order the
    calls returned: a call another thread's line interrupted (`<unfinished ...>`) is put back
    together with its `resumed` line."""
    pending = {}
    line_pattern = re.compile(r"^(\d+)\s+([\d.]+)\s+(.*)$") if timestamps else line_re
    for raw in open(log, errors="surrogateescape"):
        m = line_pattern.match(raw.rstrip("\n"))
        if not m:
            continue
        tid, text = m.group(1), m.group(m.lastindex)
        stamp = float(m.group(2)) if timestamps else None
        if text.endswith("<unfinished ...>"):
            pending[tid] = text[: -len("<unfinished ...>")].rstrip()
            continue
        r = re.match(r"^<\.\.\. ([a-z0-9_]+) resumed>(.*)$", text)
        if r:
            text = pending.pop(tid, "") + r.group(2)
        c = call_re.match(text)
        if c:
            yield stamp, c

def parse(log):
    """The calls, in the order they returned, as tuples; failed calls are left out (but the
    marker `access` calls, which fail by design, are kept)."""
    ops = []
    for _, c in completed_calls(log):
        name, args, result = c.group(1), split_args(c.group(2)), int(c.group(3))
        if name in ("access", "faccessat", "faccessat2"):
            path = decode(args[0] if name == "access" else args[1])
            if path.startswith("/swift-preferences-flushed/"):
                _, _, writer, key, value = path.split("/")
                ops.append(("flushed", writer, key, int(value)))
            elif path == "/swift-preferences-purge/start":
                ops.append(("settled",))
            elif path == "/swift-preferences-purge/done":
                ops.append(("flushed", "purge", "purged", 1))
            continue
        if result < 0:
            continue
        if name == "openat":
            flags = args[2]
            writes = "O_WRONLY" in flags or "O_RDWR" in flags
            ops.append(("open", resolve(args[0], args[1]), "O_CREAT" in flags, "O_TRUNC" in flags, "O_DIRECTORY" in flags,
                        writes, "O_APPEND" in flags))
        elif name in ("write", "pwrite64"):
            data = unhex(args[1])[:result]
            ops.append(("write", fd_path(args[0]), data, int(args[3]) if name == "pwrite64" else None))
        elif name in ("fsync", "fdatasync"):
            ops.append(("fsync", fd_path(args[0])))
        elif name == "rename":
            ops.append(("rename", resolve("AT_FDCWD", args[0]), resolve("AT_FDCWD", args[1])))
        elif name in ("renameat", "renameat2"):
            ops.append(("rename", resolve(args[0], args[1]), resolve(args[2], args[3])))
        elif name == "link":
            ops.append(("link", resolve("AT_FDCWD", args[0]), resolve("AT_FDCWD", args[1])))
        elif name == "linkat":
            ops.append(("link", resolve(args[0], args[1]), resolve(args[2], args[3])))
        elif name == "unlink":
            ops.append(("unlink", resolve("AT_FDCWD", args[0])))
        elif name == "unlinkat":
            ops.append(("rmdir" if "AT_REMOVEDIR" in c.group(2) else "unlink", resolve(args[0], args[1])))
        elif name == "mkdir":
            ops.append(("mkdir", resolve("AT_FDCWD", args[0])))
        elif name == "mkdirat":
            ops.append(("mkdir", resolve(args[0], args[1])))
        elif name == "rmdir":
            ops.append(("rmdir", resolve("AT_FDCWD", args[0])))
        elif name == "ftruncate":
            ops.append(("truncate", fd_path(args[0]), int(args[1])))
    return ops

# ---------------------------------------------------------------- replay

class FS:
    """What the workload's calls did, step by step: directory entries (name -> inode), file
    bytes, and what each sync made durable. A descriptor is known by the path it had when
    used (strace -y), which names the inode at that moment."""

    def __init__(self, root):
        self.root = root
        self.next_inode = 1
        self.dirs = {root: {}}           # directory path -> {name: inode}
        self.data = {}                   # file inode -> bytearray
        self.kind = {}                   # inode -> "file" | "dir"
        self.synced_data = {}            # file inode -> bytes at its last fsync
        self.synced_dirs = {root: {}}    # directory path -> entries at its last fsync
        self.dirty = set()               # file inodes written since their last fsync
        self.position = {}               # file inode -> offset of the next write() through
                                         # the descriptor last opened for writing (one writer
                                         # per file at a time: a commit writes under the lock)

    def settle(self):
        """Everything so far is durable (the purge workload's history, built long before the
        power cut)."""
        self.synced_dirs = {path: dict(entries) for path, entries in self.dirs.items()}
        self.synced_data = {inode: bytes(data) for inode, data in self.data.items()}
        self.dirty.clear()

    def inside(self, path):
        return path is not None and (path == self.root or path.startswith(self.root + "/"))

    def inode_at(self, path):
        parent, name = os.path.split(path)
        return self.dirs.get(parent, {}).get(name)

    def creates(self, op):
        """Whether `op` adds, moves or removes a name (before it is applied)."""
        if op[0] == "open":
            return self.inside(op[1]) and op[2] and not op[4] and self.inode_at(op[1]) is None
        return op[0] in ("rename", "link", "unlink", "mkdir", "rmdir") and self.inside(op[1])

    def apply(self, op):
        kind = op[0]
        if kind == "open":
            _, path, creat, trunc, directory, writes, append = op
            if not self.inside(path) or directory:
                return
            inode = self.inode_at(path)
            if inode is None and creat:
                inode = self.next_inode
                self.next_inode += 1
                self.kind[inode] = "file"
                self.data[inode] = bytearray()
                self.dirs.setdefault(os.path.dirname(path), {})[os.path.basename(path)] = inode
            if inode is not None and trunc and self.kind.get(inode) == "file":
                self.data[inode] = bytearray()
                self.dirty.add(inode)
            # A file opened for writing is written from its start (a commit may write over a
            # recycled generation's file), or from its end with O_APPEND.
            if inode is not None and writes and self.kind.get(inode) == "file":
                self.position[inode] = len(self.data[inode]) if append else 0
        elif kind == "write":
            _, path, data, offset = op
            inode = self.inode_at(path) if self.inside(path) else None
            if inode is None or self.kind.get(inode) != "file":
                return
            buffer = self.data[inode]
            at = self.position.get(inode, len(buffer)) if offset is None else offset
            if len(buffer) < at:
                buffer.extend(b"\0" * (at - len(buffer)))
            buffer[at:at + len(data)] = data
            if offset is None:
                self.position[inode] = at + len(data)
            self.dirty.add(inode)
        elif kind == "truncate":
            _, path, length = op
            inode = self.inode_at(path) if self.inside(path) else None
            if inode is not None and self.kind.get(inode) == "file":
                del self.data[inode][length:]
                self.dirty.add(inode)
        elif kind == "fsync":
            _, path = op
            if not self.inside(path):
                return
            if path in self.dirs:
                self.synced_dirs[path] = dict(self.dirs[path])
            else:
                inode = self.inode_at(path)
                if inode is not None and self.kind.get(inode) == "file":
                    self.synced_data[inode] = bytes(self.data[inode])
                    self.dirty.discard(inode)
        elif kind == "rename":
            _, old, new = op
            inode = self.inode_at(old)
            if inode is None:
                return
            del self.dirs[os.path.dirname(old)][os.path.basename(old)]
            self.dirs.setdefault(os.path.dirname(new), {})[os.path.basename(new)] = inode
        elif kind == "link":
            _, old, new = op
            inode = self.inode_at(old)
            if inode is not None:
                self.dirs.setdefault(os.path.dirname(new), {})[os.path.basename(new)] = inode
        elif kind == "unlink":
            self.dirs.get(os.path.dirname(op[1]), {}).pop(os.path.basename(op[1]), None)
        elif kind == "mkdir":
            path = op[1]
            if self.inside(path) and path not in self.dirs:
                inode = self.next_inode
                self.next_inode += 1
                self.kind[inode] = "dir"
                self.dirs[path] = {}
                self.dirs.setdefault(os.path.dirname(path), {})[os.path.basename(path)] = inode
        elif kind == "rmdir":
            self.dirs.get(os.path.dirname(op[1]), {}).pop(os.path.basename(op[1]), None)
            self.dirs.pop(op[1], None)

def tree(fs, dirs, data_of):
    """The files under the root as {relative path: bytes, relative directory + "/": None},
    from the directory tables `dirs` (a directory with no table of its own is empty)."""
    files, stack = {}, [(fs.root, "")]
    while stack:
        path, relative = stack.pop()
        for name, inode in dirs.get(path, {}).items():
            child, child_relative = os.path.join(path, name), os.path.join(relative, name)
            if fs.kind.get(inode) == "dir":
                files[child_relative + "/"] = None
                stack.append((child, child_relative))
            else:
                files[child_relative] = data_of(inode)
    return files

def states(ops, root):
    """Every crash state: (name, files, obligations), for a cut after each call, and at the
    end if a marker followed the last call; with a `settled` marker in the calls (the purge
    workload), for a cut after each call after it only, everything before it being
    durable."""
    out, flushed = [], {}
    fs = FS(root)
    name_tables = [{root: {}}]   # the directory tables after each name operation
    names_at_sync = 0

    def cut(index):
        obligations = dict(flushed)
        out.append(("strict@%d" % index, tree(fs, fs.synced_dirs, lambda inode: fs.synced_data.get(inode, b"")), obligations))
        dirty = sorted(fs.dirty)
        if len(dirty) <= 3:
            variants = list(itertools.product(("lost", "whole", "half"), repeat=len(dirty)))
        else:
            variants = [("lost",) * len(dirty), ("whole",) * len(dirty), ("half",) * len(dirty)]
        for kept in range(names_at_sync, len(name_tables)):
            for variant in variants:
                choice = dict(zip(dirty, variant))
                def data_of(inode, choice=choice):
                    current = bytes(fs.data.get(inode, b""))
                    how = choice.get(inode)
                    if how == "lost":
                        return fs.synced_data.get(inode, b"")
                    if how == "half":
                        return current[: len(current) // 2]
                    return current
                label = "ext4@%d:names%d/%d:%s" % (index, kept, len(name_tables) - 1, ",".join(variant) or "synced")
                out.append((label, tree(fs, name_tables[kept], data_of), obligations))

    cutting = not any(op[0] == "settled" for op in ops)
    last_cut = None   # the obligations of the last cut
    for index, op in enumerate(ops):
        if op[0] == "flushed":
            flushed[(op[1], op[2])] = op[3]
            continue
        if op[0] == "settled":
            fs.settle()
            name_tables = [{path: dict(entries) for path, entries in fs.dirs.items()}]
            names_at_sync, cutting = 0, True
            continue
        creates = fs.creates(op)
        fs.apply(op)
        if creates:
            name_tables.append({path: dict(entries) for path, entries in fs.dirs.items()})
        if op[0] == "fsync" and fs.inside(op[1]):
            names_at_sync = len(name_tables) - 1
        if cutting:
            cut(index)
            last_cut = dict(flushed)
    # A marker after the last call (the purge's return): the cut after it, when everything
    # the workload did must be there.
    if cutting and last_cut != flushed:
        cut(len(ops))
    return out

# ---------------------------------------------------------------- checking

def materialise(base, number, files):
    home = os.path.join(base, "s%d" % number)
    os.makedirs(home, mode=0o700)
    for relative, data in sorted(files.items(), key=lambda item: item[0].count("/")):
        path = os.path.join(home, relative)
        if data is None:
            os.makedirs(path, mode=0o700, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o600)
    return home

def check(work, crash_states):
    """Opens every distinct state with the library; the failing ones as (name, why)."""
    unique = {}
    for name, files, obligations in crash_states:
        key = hashlib.sha256(repr((sorted((k, v or b"") for k, v in files.items()), sorted(obligations.items()))).encode(
            "utf-8", "surrogateescape")).hexdigest()
        unique.setdefault(key, (name, files, obligations))
    states_list = list(unique.values())
    base = os.path.join(work, "states")
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "PREFERENCES_TEST_OMIT_SYNC")}
    failures = []
    for start in range(0, len(states_list), 400):
        batch = states_list[start:start + 400]
        os.makedirs(base)
        homes, lines = {}, []
        for number, (name, files, obligations) in enumerate(batch):
            state = materialise(base, number, files)
            homes[state + "/preferences"] = (name, obligations)
            # A purge state cut after the purge returned: no file under it may hold a secret.
            lines.append(state + "/preferences" + ("\t" + state if ("purge", "purged") in obligations else ""))
        listing = os.path.join(work, "batch.txt")
        with open(listing, "w") as f:
            f.write("\n".join(lines) + "\n")
        command = [worker, "power-loss-check", domain, listing] if workload == "write" else \
            [worker, "power-loss-purge-check", domain, str(rounds), listing]
        result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
        reports = [json.loads(line) for line in result.stdout.decode().splitlines() if line.startswith("{")]
        if len(reports) != len(batch):
            failures.append(("checker", "the checker stopped after %d of %d states (exit %d): %s" % (
                len(reports), len(batch), result.returncode, result.stderr.decode()[-800:])))
        for report in reports:
            name, obligations = homes[report["home"]]
            problems = []
            if "error" in report:
                problems.append("the store did not open: " + report["error"])
            elif report.get("write") != "ok":
                problems.append("a write after the crash failed: %s" % report.get("write"))
            for problem in report.get("problems", []):
                problems.append("a file the store could not use: " + problem)
            # Logged while opening: a refused commit counter (fresh reads turned off for
            # good) or a file that could not be read. A recovery from a generation is fine.
            for entry in report.get("log", []):
                if entry.split(" ")[0] in ("d41c6f0e8a2b4975b7e3c9a1f5d80e36", "7ea7d374aa6a423db4198c9d363f2d95"):
                    problems.append("logged: " + entry)
            # The purge checker judges the state's files and values itself.
            problems += report.get("purge", [])
            values = report.get("values", {})
            for (writer, key), value in sorted(obligations.items()) if workload == "write" else ():
                found = values.get(key)
                if found is None or found < value:
                    problems.append("%s=%d had been flushed, found %s" % (key, value, found))
            for writer in range(writers if workload == "write" else 0):
                a, b = values.get("t%da" % writer), values.get("t%db" % writer)
                if a != b:
                    problems.append("t%da=%s but t%db=%s: two commits mixed" % (writer, a, writer, b))
            if problems:
                failures.append((name, "; ".join(problems)))
        shutil.rmtree(base)
    return len(states_list), failures

def durability_window(work, count=20):
    """How long after a `set` with no `flush()` the value is durable: from the marker before
    the set to the end of the first `fsync` of the preferences directory after the domain
    file's next rename, in milliseconds, per set."""
    home = os.path.join(work, "window")
    os.makedirs(home, mode=0o700)
    log = os.path.join(work, "window.log")
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    env.update(PREFERENCES_HOME=home + "/preferences", PREFERENCES_SYSTEM_DIR=home + "/system", HOME=home)
    subprocess.run(["strace", "-f", "-qq", "-ttt", "-y", "-xx", "-e", "trace=access,rename,fsync", "-o", log,
                    worker, "power-loss-setter", domain, str(count)], env=env, check=True, stdout=subprocess.DEVNULL, timeout=120)
    events = []
    target = home + "/preferences/" + domain + ".plist"
    for stamp, c in completed_calls(log, timestamps=True):
        args = split_args(c.group(2))
        if c.group(1) == "access" and decode(args[0]).startswith("/swift-preferences-set/"):
            events.append(("set", stamp))
        elif c.group(1) == "rename" and int(c.group(3)) == 0 and resolve("AT_FDCWD", args[1]) == target:
            events.append(("rename", stamp))
        elif c.group(1) == "fsync" and int(c.group(3)) == 0 and fd_path(args[0]) == home + "/preferences":
            events.append(("dirsync", stamp))
    windows = []
    for index, (kind, stamp) in enumerate(events):
        if kind != "set":
            continue
        renamed = next((i for i in range(index + 1, len(events)) if events[i][0] == "rename"), None)
        synced = next((events[i][1] for i in range(renamed + 1, len(events)) if events[i][0] == "dirsync"), None) if renamed is not None else None
        if synced is not None:
            windows.append((synced - stamp) * 1000)
    return sorted(windows)

work = tempfile.mkdtemp(prefix="swift-preferences-power-loss-")
try:
    home, log = record(work)
    ops = parse(log)
    root = home
    crash_states = states(ops, root)
    # The purge workload is cut from its `settled` marker on: the calls from there.
    cut_from = next((index for index, op in enumerate(ops) if op[0] == "settled"), 0)
    recorded = [op for op in ops[cut_from:] if op[0] not in ("close", "flushed", "settled")]
    counts = {}
    for op in recorded:
        counts[op[0]] = counts.get(op[0], 0) + 1
    flushes = sum(1 for op in ops if op[0] == "flushed")
    strict = sum(1 for name, _, _ in crash_states if name.startswith("strict"))
    distinct, failures = check(work, crash_states)
    windows = [] if omit or workload != "write" or writer_language != "swift" else durability_window(work)
finally:
    shutil.rmtree(work, ignore_errors=True)

if workload == "purge":
    print("power-loss: purge of `secret` from %d commits' files (%d generations, a corrupt copy and the domain file)%s; %d states after it returned" % (
        rounds, rounds, " (omitting the %s sync)" % omit if omit else "",
        sum(1 for _, _, obligations in crash_states if obligations)))
else:
    print("power-loss: %d %s writer processes x %d rounds%s: %d flushes and transactions returned" % (
        writers, writer_language.capitalize(), rounds, " (omitting the %s sync)" % omit if omit else "", flushes))
print("power-loss: %d file-system calls recorded%s (%s)" % (len(recorded), " from the purge's start" if cut_from else "", ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
print("power-loss: %d crash states (strict %d, ext4 data=ordered %d), %d distinct, all checked" % (
    len(crash_states), strict, len(crash_states) - strict, distinct))
if windows:
    print("power-loss: durability window after a set without flush(): p50 %.1f ms, max %.1f ms (%d sets; the set to the directory's fsync after the rename)" % (
        windows[len(windows) // 2], windows[-1], len(windows)))
for name, problem in failures[:10]:
    print("  FAIL %s: %s" % (name, problem))
print("power-loss: %d failing states" % len(failures))
if omit:
    if failures:
        print("power-loss: the harness caught the omitted %s sync; first failing state: %s" % (omit, failures[0][0]))
        sys.exit(0)
    print("power-loss: the omitted %s sync was NOT caught" % omit)
    sys.exit(1)
sys.exit(1 if failures else 0)
PY
