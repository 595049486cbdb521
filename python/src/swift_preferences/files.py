"""The file layer: reading a domain file safely and committing a new version exactly as the Swift writer does.

A commit (see :func:`commit`):

1. the directory's protocol marker is checked (a newer or unreadable version refuses the write
   before any file is made), the directory is made (0700, parents synced) or checked;
2. ``flock(LOCK_EX)`` on ``.<file>.lock`` (0600, ``O_NOFOLLOW``, checked like a domain file),
   waiting at most the lock timeout; the marker is checked again under the lock;
3. temporary files a killed writer left (``.<file>.tmp-<digits>-<digits>``) are removed;
4. the file is re-read under the lock (a damaged file that changed within the last 10 ms is
   read again: someone may be rewriting it in place); only this writer's changes are applied;
5. unchanged values write nothing; empty values remove the file; otherwise the new bytes go to
   ``.<file>.tmp-<pid>-<n>`` in ``.swift-preferences-staging`` (or beside the file), mode 0600,
   with the commit record ``user.swift-preferences.commit`` and the wall clock as mtime, synced;
6. the replaced file is kept as generation ``.<file>.history/<N>.plist`` by hard link (a copy
   without the private keys' values when it holds any), a corrupt file is kept aside as
   ``<file>.corrupt-<yyyyMMddTHHmmss>``, the new file is renamed into place, the directory synced,
   the commit counter raised, old generations pruned, removed private values purged;
7. unlock.
"""

from __future__ import annotations

import ctypes
import datetime
import errno as errnos
import fcntl
import itertools
import logging
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from . import bplist
from .counter import open_counter
from .errors import (Corrupt, LockTimeout, PreferencesError, RefusedFile, TooLarge,
                     UnsupportedProtocolVersion)

PROTOCOL_VERSION = 1
_log = logging.getLogger("swift_preferences")
PROTOCOL_MARKER = ".swift-preferences-protocol"
#: The most bytes a protocol marker may hold (PROTOCOL.md V1).
MARKER_SIZE_LIMIT = 64
STAGING_DIRECTORY = ".swift-preferences-staging"
COMMIT_RECORD_ATTRIBUTE = "user.swift-preferences.commit"
COMMIT_ORIGIN_ATTRIBUTE = "user.swift-preferences.origin"
TIMESTAMP_GRANULARITY_NS = 10_000_000
CRASH_POINTS = ("locked", "temporary-written", "temporary-synced", "generation-kept", "renamed", "directory-synced")

#: Called with a crash point's name at that point of every commit (the adapter's crash requests).
crash_hook: Callable[[str], None] | None = None


def _reached(point: str) -> None:
    wanted = os.environ.get("SWIFT_PREFERENCES_CRASH_AT")
    if wanted == point:
        os._exit(137)
    if crash_hook is not None:
        crash_hook(point)


@dataclass
class FilePolicy:
    """The limits and trust rules a domain file is read and written under (the Swift ``FilePolicy`` defaults)."""

    size_limit: int = 1 << 20
    lock_timeout: float = 10.0
    trusted_owners: tuple[int, ...] = field(default_factory=lambda: (os.geteuid(),))
    creates_directory: bool = True
    generation_limit: int = 32
    generation_byte_limit: int = 8 << 20
    file_mode: int = 0o600
    directory_mode: int = 0o700
    private_keys: frozenset[str] = frozenset()

    @staticmethod
    def system() -> "FilePolicy":
        """The policy of the system and managed layers as read: root's files are trusted too."""
        return FilePolicy(trusted_owners=tuple(sorted({0, os.geteuid()})), creates_directory=False)


# MARK: Checks and reads


def check_status(status: os.stat_result, path: str, role: str, policy: FilePolicy) -> None:
    """Refuses a file that is not regular, not a trusted owner's, group/other-writable, or too large."""
    if not stat.S_ISREG(status.st_mode):
        raise RefusedFile(f"{role} is {_describe_type(status.st_mode)}, not a regular file; remove it so that a regular file can take its place", path=path)
    if status.st_uid not in policy.trusted_owners:
        owners = ", ".join(str(owner) for owner in policy.trusted_owners)
        raise RefusedFile(
            f"{role} is owned by uid {status.st_uid}, not by uid {owners}; a file owned by another user is never trusted, so check who created it, then chown or remove it",
            path=path)
    if status.st_mode & 0o022:
        raise RefusedFile(
            f"{role} is group- or world-writable (mode {stat.S_IMODE(status.st_mode):04o}), so other users could change it; run chmod go-w on it", path=path)
    if status.st_size > policy.size_limit:
        raise TooLarge(f"{role} is {status.st_size} bytes, over the limit of {policy.size_limit} bytes", path=path)


def _describe_type(mode: int) -> str:
    for test, text in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return text
    return "a special file"


def read_checked_bytes(path: str, policy: FilePolicy, role: str = "the domain file") -> tuple[bytes, os.stat_result] | None:
    """Opens without following links or blocking, checks through the descriptor, reads within the limit; None if missing."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errnos.ELOOP:
            raise RefusedFile(f"{role} is a symbolic link; links are never followed, so replace it with the file itself", path=path, errno=error.errno) from None
        if error.errno == errnos.ENXIO:
            raise RefusedFile(f"{role} is a socket or device, not a regular file; remove it so that a regular file can take its place", path=path, errno=error.errno) from None
        raise PreferencesError(f"{role} could not be opened for reading: {error.strerror}", path=path, errno=error.errno) from None
    try:
        status = os.fstat(descriptor)
        check_status(status, path, role, policy)
        chunks = []
        total = 0
        while True:
            chunk = os.read(descriptor, max(65536, min(status.st_size + 1, policy.size_limit + 1)))
            if not chunk:
                break
            total += len(chunk)
            if total > policy.size_limit:
                raise TooLarge(f"{role} grew past the limit of {policy.size_limit} bytes while it was read", path=path)
            chunks.append(chunk)
        return b"".join(chunks), status
    except OSError as error:
        raise PreferencesError(f"{role} could not be read: {error.strerror}", path=path, errno=error.errno) from None
    finally:
        os.close(descriptor)


def decode_domain(data: bytes, path: str) -> dict[str, Any]:
    """Decodes a domain file's bytes with the bounded decoder; the top level must be a dictionary."""
    try:
        top = bplist.decode(data)
    except bplist.PropertyListError as error:
        raise Corrupt(f"the domain file is not a valid binary property list: {error}", path=path) from None
    if not isinstance(top, dict):
        kind = {list: "an array", str: "a string", bytes: "a data", bool: "a boolean", int: "an integer", float: "a real"}.get(type(top), "a date")
        raise Corrupt(f"the domain file's top-level value is {kind}, not a dictionary", path=path)
    return top


def read_domain(path: str, policy: FilePolicy) -> dict[str, Any] | None:
    """The values of the domain file at ``path``; None if it does not exist."""
    read = read_checked_bytes(path, policy)
    if read is None:
        return None
    return decode_domain(read[0], path)


# MARK: Protocol version


def read_marker(directory: str) -> tuple[int | None, str | None]:
    """The protocol version a directory's marker names: ``(version, None)``, ``(1, None)`` if absent, ``(None, text)`` if garbage."""
    path = directory.rstrip("/") + "/" + PROTOCOL_MARKER
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return PROTOCOL_VERSION, None
    except NotADirectoryError:
        return PROTOCOL_VERSION, None
    except OSError as error:
        # A link, a directory, a file its owner cannot read: a marker that names no version.
        # Anything else (out of descriptors, an I/O error) says nothing about the version: the
        # caller's write fails as an I/O error instead (PROTOCOL.md V1).
        if error.errno in (errnos.ELOOP, errnos.EACCES, errnos.EISDIR, errnos.ENXIO):
            return None, f"<unreadable: {error.strerror}>"
        raise PreferencesError(f"the protocol marker of {directory} could not be read: {error.strerror}",
                               path=path, errno=error.errno) from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None, "<not a regular file>"
        raw = os.read(descriptor, MARKER_SIZE_LIMIT + 1)
    finally:
        os.close(descriptor)
    # PROTOCOL.md V1: at most 64 bytes; decimal digits (at most 9, value > 0) with ASCII white
    # space (0x20, 0x09-0x0D, exactly what bytes.strip() removes) around them.
    digits = raw.strip()
    if len(raw) <= MARKER_SIZE_LIMIT and 0 < len(digits) <= 9 and all(0x30 <= byte <= 0x39 for byte in digits):
        version = int(digits)
        if version > 0:
            return version, None
    return None, raw[:MARKER_SIZE_LIMIT].decode("utf-8", errors="replace").strip()


def protocol_version(directory: str) -> int:
    """The protocol version of a preferences directory: 1 without a marker.

    Raises :class:`Corrupt` if the marker's content is not a version number (a directory
    with such a marker is read, never written).
    """
    version, text = read_marker(directory)
    if version is None:
        raise Corrupt(f"the protocol marker of {directory} holds {text!r}, not a version number", path=directory)
    return version


def check_writable_protocol(*directories: str) -> None:
    """Raises :class:`UnsupportedProtocolVersion` if any of ``directories`` follows a newer (or unreadable) protocol version.

    A writer checks the file's own directory and the preferences directory whose marker covers
    it (its parent, for a file in ``ByHost/`` or ``managed/``), as PROTOCOL.md V1 says.
    """
    for directory in dict.fromkeys(directories):
        version, text = read_marker(directory)
        if version is None:
            raise UnsupportedProtocolVersion(directory, text or "", PROTOCOL_VERSION)
        if version > PROTOCOL_VERSION:
            raise UnsupportedProtocolVersion(directory, version, PROTOCOL_VERSION)


# MARK: The domain file


@dataclass(frozen=True)
class DomainFile:
    """One domain file: its directory, name, and the directory whose protocol marker covers it."""

    directory: str
    file_name: str
    protocol_directory: str

    @property
    def path(self) -> str:
        """The file's path."""
        return f"{self.directory}/{self.file_name}"

    @property
    def lock_path(self) -> str:
        """``.<file>.lock`` beside the file."""
        return f"{self.directory}/.{self.file_name}.lock"

    @property
    def temporary_prefix(self) -> str:
        """``.<file>.tmp-``."""
        return f".{self.file_name}.tmp-"

    @property
    def staging_directory(self) -> str:
        """``.swift-preferences-staging`` beside the file."""
        return f"{self.directory}/{STAGING_DIRECTORY}"

    @property
    def history_directory(self) -> str:
        """``.<file>.history`` beside the file."""
        return f"{self.directory}/.{self.file_name}.history"


_temporary_counter = itertools.count()
_copy_counter = itertools.count()
_process_locks: dict[str, threading.Lock] = {}
_process_locks_guard = threading.Lock()


def _process_lock(path: str) -> threading.Lock:
    with _process_locks_guard:
        return _process_locks.setdefault(path, threading.Lock())


# The thread holding each domain file's process lock, so that a write nested in a transaction
# of the same file on the same thread fails at once instead of waiting for itself forever.
_process_lock_owners: dict[str, int] = {}


def _commit_record(sequence: int, mtime_ns: int) -> bytes:
    unit = _systemd_unit()
    return f"1 {sequence} {os.getpid()} {mtime_ns} {unit or '-'}".encode()


_unit_cache: list[str | None] = []


def _systemd_unit() -> str | None:
    """The systemd unit this process runs in, read from /proc/self/cgroup exactly as the Swift ``ProcessUnit`` does."""
    if _unit_cache:
        return _unit_cache[0]
    unit = None
    try:
        with open("/proc/self/cgroup", "rb") as handle:
            text = handle.read(65536).decode("utf-8", errors="replace")
        lines = [line for line in text.split("\n") if line]
        line = next((l for l in lines if l.startswith("0::")), None) or next((l for l in lines if ":name=systemd:" in l), None)
        if line is not None:
            parts = [part for part in line.split(":", 2)[-1].split("/") if part]
            last = parts[-1] if parts else None
            if last and last.endswith((".service", ".scope")) and " " not in last:
                unit = last
    except OSError:
        pass
    _unit_cache.append(unit)
    return unit


def parse_commit_record(data: bytes) -> tuple[int, int, int, str | None] | None:
    """``(sequence, pid, mtime_ns, unit)`` of a commit record, or None if it is not one."""
    if len(data) > 512:
        return None
    try:
        fields = data.decode("utf-8").split(" ")
        if len(fields) != 5 or fields[0] != "1" or not fields[4]:
            return None
        sequence, pid, mtime = int(fields[1]), int(fields[2]), int(fields[3])
    except (UnicodeDecodeError, ValueError):
        return None
    if sequence <= 0 or pid <= 0:
        return None
    return sequence, pid, mtime, None if fields[4] == "-" else fields[4]


def _read_record(path: str) -> tuple[int, int, int, str | None] | None:
    try:
        return parse_commit_record(os.getxattr(path, COMMIT_RECORD_ATTRIBUTE, follow_symlinks=False))
    except OSError:
        return None


def _set_xattr(descriptor: int, name: str, value: bytes) -> None:
    try:
        os.setxattr(descriptor, name, value)
    except OSError:
        # ENOTSUP where the file system has no user attributes, ENOSPC, a quota: the writer
        # is then unknown, which is no reason to refuse the write (as in Swift).
        pass


def _fsync_directory(path: str) -> None:
    descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _utc_timestamp() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S")


def ensure_directory(directory: str, policy: FilePolicy) -> None:
    """Makes the directory (and parents, mode 0700, parents synced) or checks the one there."""
    try:
        status = os.stat(directory)
    except FileNotFoundError:
        if not policy.creates_directory:
            raise PreferencesError("the preferences directory does not exist", path=directory, errno=errnos.ENOENT) from None
        created = []
        prefix = ""
        for component in [part for part in directory.split("/") if part]:
            prefix += "/" + component
            try:
                os.mkdir(prefix, policy.directory_mode)
                created.append(prefix)
            except FileExistsError:
                continue
            except OSError as error:
                raise PreferencesError(f"the preferences directory could not be created: {error.strerror}", path=prefix, errno=error.errno) from None
        for path in created:
            try:
                _fsync_directory(os.path.dirname(path) or "/")
            except OSError:
                pass
        return
    if not stat.S_ISDIR(status.st_mode):
        raise PreferencesError("the preferences directory is not a directory", path=directory, errno=errnos.ENOTDIR)
    if status.st_uid not in policy.trusted_owners:
        raise RefusedFile(
            f"the preferences directory is owned by uid {status.st_uid}; another user could replace or delete its files, so nothing is written there", path=directory)
    if status.st_mode & 0o022 and not status.st_mode & stat.S_ISVTX:
        raise RefusedFile(
            f"the preferences directory is group- or world-writable (mode {stat.S_IMODE(status.st_mode):04o}), so other users could replace or delete its files; run chmod go-w on it",
            path=directory)


class _FileLock:
    """An exclusive flock on a domain's lock file, taken within a timeout; released by :meth:`release`."""

    def __init__(self, path: str, policy: FilePolicy) -> None:
        deadline = time.monotonic() + policy.lock_timeout
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o600)
        except OSError as error:
            if error.errno == errnos.ELOOP:
                raise RefusedFile("the domain's lock file is a symbolic link; links are never followed, so remove it", path=path, errno=error.errno) from None
            raise PreferencesError(f"the domain's lock file could not be opened: {error.strerror}", path=path, errno=error.errno) from None
        try:
            check_status(os.fstat(descriptor), path, "the domain's lock file", policy)
            delay = 0.0005
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockTimeout(
                            f"another writer held the domain's lock for longer than {policy.lock_timeout:g} seconds; nothing was written", path=path) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.005)
        except BaseException:
            os.close(descriptor)
            raise
        self.descriptor = descriptor

    def release(self) -> None:
        """Unlocks and closes."""
        try:
            fcntl.flock(self.descriptor, fcntl.LOCK_UN)
        finally:
            os.close(self.descriptor)


# MARK: History


def generation_number(name: str) -> int | None:
    """The number in a generation's file name ``<N>.plist`` (no leading zero), else None."""
    if not name.endswith(".plist"):
        return None
    digits = name[:-6]
    if not digits or len(digits) > 19 or digits[0] == "0" or not (digits.isascii() and digits.isdigit()):
        return None
    return int(digits)


def newest_good_generation(file: DomainFile, policy: FilePolicy) -> tuple[int, dict[str, Any]] | None:
    """The newest kept generation that is safe and decodes to a dictionary, with its number; None if there is none.

    The Swift ``DomainHistory.newestGoodGeneration``: a refused history directory (R2) has none;
    each generation is read as a domain file (R1, E3), and its name must still be that file
    once it is read (a Swift writer may recycle a generation past the bounds as a temporary).
    """
    try:
        directory = _open_history(file, policy, creating=False)
    except PreferencesError:
        return None
    if directory is None:
        return None
    try:
        numbers = sorted((n for n in map(generation_number, os.listdir(directory)) if n is not None), reverse=True)
    except OSError:
        numbers = []
    finally:
        os.close(directory)
    for number in numbers:
        path = f"{file.history_directory}/{number}.plist"
        for _ in range(5):
            try:
                read = read_checked_bytes(path, policy, f"generation {number} of {file.file_name}")
            except PreferencesError:
                read = None
                break
            if read is None:
                break
            try:
                now = os.lstat(path)
            except OSError:
                read = None
                break
            if (now.st_dev, now.st_ino) == (read[1].st_dev, read[1].st_ino):
                break
        if read is None:
            continue
        try:
            return number, decode_domain(read[0], path)
        except Corrupt:
            continue
    return None


def _is_temporary_copy_name(name: str) -> bool:
    if not (name.startswith(".") and name.endswith(".tmp")):
        return False
    middle = name[1:-4]
    dot = middle.rfind(".")
    if dot < 0:
        return False
    parts = middle[dot + 1:].split("-")
    return generation_number(middle[:dot]) is not None and len(parts) == 2 and all(p.isascii() and p.isdigit() for p in parts)


def _open_history(file: DomainFile, policy: FilePolicy, creating: bool) -> int | None:
    """Opens the history directory (O_NOFOLLOW|O_DIRECTORY) after checking it; None if missing and not creating."""
    path = file.history_directory
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        if not creating:
            return None
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        return _open_history(file, policy, False)
    except OSError as error:
        raise RefusedFile(f"the history directory cannot be used: {error.strerror}", path=path, errno=error.errno) from None
    status = os.fstat(descriptor)
    if status.st_uid not in policy.trusted_owners or status.st_mode & 0o022:
        os.close(descriptor)
        raise RefusedFile("the history directory is another user's or group/other-writable; no generation is kept there", path=path)
    return descriptor


def _write_copy(source: str, data: bytes, directory: int, name: str, replacing: bool) -> None:
    """Writes ``data`` as ``name`` in ``directory`` with ``source``'s mode, commit record, origin and mtime, synced first."""
    status = os.lstat(source)
    temporary = f".{name}.{os.getpid()}-{next(_copy_counter)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=directory)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
            if stat.S_IMODE(status.st_mode) != 0o600:
                os.fchmod(descriptor, stat.S_IMODE(status.st_mode))
            for attribute in (COMMIT_RECORD_ATTRIBUTE, COMMIT_ORIGIN_ATTRIBUTE):
                try:
                    _set_xattr(descriptor, attribute, os.getxattr(source, attribute, follow_symlinks=False))
                except OSError:
                    pass
            os.utime(descriptor, ns=(status.st_atime_ns, status.st_mtime_ns))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if replacing:
            os.rename(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
        else:
            os.link(temporary, name, src_dir_fd=directory, dst_dir_fd=directory, follow_symlinks=False)
            os.unlink(temporary, dir_fd=directory)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=directory)
        except OSError:
            pass
        raise


def _generations_past_bounds(generations: dict[int, int], newest: int, policy: FilePolicy) -> list[int]:
    count = 0
    total = 0
    past: list[int] = []
    for number, size in sorted(generations.items(), key=lambda item: -item[0]):
        count += 1
        total += size
        if number != newest and (past or count > policy.generation_limit or total > policy.generation_byte_limit):
            past.append(number)
    return list(reversed(past))


_RENAME_NOREPLACE = 1
_AT_FDCWD = -100
_libc = ctypes.CDLL(None, use_errno=True)


def _rename_noreplace(name: str, directory: int, destination: str) -> None:
    """Moves ``name`` in the open ``directory`` to the absolute path ``destination``, never replacing what is there.

    ``renameat2(RENAME_NOREPLACE)`` where the C library has it, else a hard link and an unlink
    (which also fails rather than replace).
    """
    function = getattr(_libc, "renameat2", None)
    if function is not None:
        if function(ctypes.c_int(directory), os.fsencode(name), ctypes.c_int(_AT_FDCWD), os.fsencode(destination),
                    ctypes.c_uint(_RENAME_NOREPLACE)) == 0:
            return
        error = ctypes.get_errno()
        if error not in (errnos.ENOSYS, errnos.EINVAL):
            raise OSError(error, os.strerror(error), name)
    os.link(name, destination, src_dir_fd=directory, follow_symlinks=False)
    os.unlink(name, dir_fd=directory)


class _HistoryCommit:
    """One commit's part in the history (the Swift ``DomainHistory.Commit``).

    When keeping a generation puts the oldest past the bounds, that oldest generation's file is
    recycled as the commit's temporary file (PROTOCOL.md H3), as the Swift writer does: creating
    a new inode and freeing the pruned one's blocks each commit cost most of a commit on a file
    system mounted with ``discard`` (Benchmarks/RESULTS.md, cross-language latency).
    """

    def __init__(self, sequence: int, directory: int | None = None, number: int | None = None, size: int = 0,
                 generations: dict[int, int] | None = None, redacted: bytes | None = None, source: str = "",
                 recyclable: int | None = None, path: str = "") -> None:
        self.recyclable = recyclable
        self.path = path
        self.sequence = sequence
        self.directory = directory
        self.number = number
        self.size = size
        self.generations = dict(generations or {})
        self.redacted = redacted
        self.source = source
        self.kept: int | None = None

    def recycle(self, temporary: str) -> int | None:
        """Moves the oldest generation past the bounds to ``temporary`` and opens it for writing; None if there is none or it is not safe to write over.

        Once moved it is no generation: it becomes the new version or is removed as a temporary
        file. It is written over only if it is still a regular file of this user's with no other
        name (a hard link made by hand elsewhere keeps its contents). A reader that opened it as
        a generation finds its name gone after reading and reads again (PROTOCOL.md H1).
        """
        number, self.recyclable = self.recyclable, None
        if self.directory is None or number is None:
            return None
        try:
            _rename_noreplace(f"{number}.plist", self.directory, temporary)
        except OSError:
            return None
        self.generations.pop(number, None)
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            _unlink_quietly(temporary)
            return None
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_nlink != 1 or status.st_uid != os.geteuid():
            os.close(descriptor)
            _unlink_quietly(temporary)
            return None
        return descriptor

    def keep(self) -> None:
        if self.directory is None or self.number is None:
            return
        name = f"{self.number}.plist"
        try:
            if self.redacted is not None:
                _write_copy(self.source, self.redacted, self.directory, name, replacing=False)
                self.generations[self.number] = len(self.redacted)
            else:
                os.link(self.source, name, dst_dir_fd=self.directory, follow_symlinks=False)
                self.generations[self.number] = self.size
            self.kept = self.number
        except OSError:
            pass

    def finish(self, policy: FilePolicy) -> None:
        """The new version is in place: prunes the history to its bounds and remembers what it holds for the next commit."""
        if self.directory is None:
            return
        try:
            if self.kept is not None:
                for number in _generations_past_bounds(self.generations, self.kept, policy):
                    try:
                        os.unlink(f"{number}.plist", dir_fd=self.directory)
                        self.generations.pop(number, None)
                    except OSError:
                        _forget_listing(self.path)
                        return
                _remember_listing(self.path, os.fstat(self.directory), self.sequence, self.generations)
        finally:
            self.close()

    def abandon(self) -> None:
        if self.directory is None:
            return
        _forget_listing(self.path)
        if self.kept is not None:
            try:
                os.unlink(f"{self.kept}.plist", dir_fd=self.directory)
            except OSError:
                pass
        self.close()

    def close(self) -> None:
        if self.directory is not None:
            os.close(self.directory)
            self.directory = None


# The listing cache (the Swift ``DomainHistory.Listing``): listing the history and examining every
# generation cost more than the rest of keeping one, so a commit that finds the domain file still
# the version this process wrote (its record names the sequence remembered), in a history
# directory whose status is unchanged, uses what this process left there instead.
_listings: dict[str, tuple[tuple[int, int, int, int], int, dict[int, int]]] = {}
_listings_lock = threading.Lock()


def _directory_identity(status: os.stat_result) -> tuple[int, int, int, int]:
    return (status.st_dev, status.st_ino, status.st_mtime_ns, status.st_ctime_ns)


def _remember_listing(path: str, status: os.stat_result, sequence: int, generations: dict[int, int]) -> None:
    with _listings_lock:
        _listings[path] = (_directory_identity(status), sequence, dict(generations))


def _forget_listing(path: str) -> None:
    with _listings_lock:
        _listings.pop(path, None)


def _remembered_listing(path: str, status: os.stat_result, recorded: int) -> dict[int, int] | None:
    with _listings_lock:
        remembered = _listings.get(path)
    if recorded > 0 and remembered is not None and remembered[1] == recorded and remembered[0] == _directory_identity(status):
        return dict(remembered[2])
    return None


def _list_history(directory: int) -> dict[int, int]:
    """The generations in an open history directory and their sizes; removes orphaned private copies on the way (the caller holds the lock)."""
    generations: dict[int, int] = {}
    for name in os.listdir(directory):
        number = generation_number(name)
        if number is not None:
            try:
                generations[number] = os.stat(name, dir_fd=directory, follow_symlinks=False).st_size
            except OSError:
                generations[number] = 0
        elif _is_temporary_copy_name(name):
            try:
                os.unlink(name, dir_fd=directory)
            except OSError:
                pass
    return generations


def _begin_commit(file: DomainFile, current: dict[str, Any] | None, current_status: os.stat_result | None,
                  corrupt: bool, policy: FilePolicy) -> _HistoryCommit:
    """The Swift ``DomainHistory.beginCommit``: the generation number and the new version's sequence."""
    exists = current is not None or corrupt
    recorded = 0
    if exists:
        record = _read_record(file.path)
        try:
            mtime = current_status.st_mtime_ns if current_status is not None else os.lstat(file.path).st_mtime_ns
        except OSError:
            mtime = None
        if record is not None and record[2] == mtime:
            recorded = record[0]
    if policy.generation_limit <= 0:
        return _HistoryCommit(recorded + 1)
    try:
        directory = _open_history(file, policy, creating=current is not None)
    except (OSError, PreferencesError):
        return _HistoryCommit(recorded + 1)
    if directory is None:
        return _HistoryCommit(recorded + 1)
    history_path = file.history_directory
    generations = _remembered_listing(history_path, os.fstat(directory), recorded)
    if generations is None:
        generations = _list_history(directory)
    highest = max(generations, default=0)
    if current is None:
        return _HistoryCommit(max(highest, recorded) + 1, directory, generations=generations, path=history_path)
    number = recorded if recorded > highest else highest + 1
    # Never the newest kept before this commit: the rename that replaced it may not be durable
    # yet, and after a power cut the domain's name could still be that file's, half written over.
    after_keeping = dict(generations)
    after_keeping[number] = current_status.st_size if current_status else 0
    past = _generations_past_bounds(after_keeping, number, policy)
    recyclable = past[0] if past and past[0] < highest else None
    redacted = None
    if any(key in current for key in policy.private_keys):
        kept = {key: value for key, value in current.items() if key not in policy.private_keys}
        try:
            redacted = bplist.encode(kept)
        except (TypeError, ValueError):
            redacted = bplist.encode({})
    return _HistoryCommit(number + 1, directory, number, current_status.st_size if current_status else 0, generations,
                          redacted, file.path, recyclable, history_path)


# MARK: Purging


def _byte_forms(value: Any) -> list[bytes]:
    if isinstance(value, str):
        forms = [value.encode("utf-8"), value.encode("utf-16-be")]
        return [form for form in forms if len(form) >= 4]
    if isinstance(value, (bytes, bytearray)):
        return [bytes(value)] if len(value) >= 4 else []
    if isinstance(value, list):
        return [form for element in value for form in _byte_forms(element)]
    if isinstance(value, dict):
        return [form for element in value.values() for form in _byte_forms(element)]
    return []


#: The largest kept copy a purge reads to scrub: the history's own byte bound.
_SCRUB_SIZE_LIMIT = 8 << 20


def _scrub(path: str, secrets: list[Any], folder: int, name: str) -> bool:
    try:
        descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return False
    try:
        # Only what this library could have written there: a regular file of this user's, no
        # larger than a history may hold (a FIFO or a planted file is left alone).
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid() or status.st_size > _SCRUB_SIZE_LIMIT:
            return False
        data = bytearray()
        while chunk := os.read(descriptor, 1 << 16):
            data += chunk
            if len(data) > _SCRUB_SIZE_LIMIT:
                return False
    except OSError:
        return False
    finally:
        os.close(descriptor)
    changed = False
    for pattern in (form for secret in secrets for form in _byte_forms(secret)):
        start = data.find(pattern)
        while start >= 0:
            data[start:start + len(pattern)] = bytes(len(pattern))
            changed = True
            start = data.find(pattern, start + len(pattern))
    if changed:
        _write_copy(path, bytes(data), folder, name, replacing=True)
    return changed


def purge_while_locked(file: DomainFile, keys: set[str], known: list[Any], policy: FilePolicy) -> None:
    """Takes ``keys``' values out of every kept generation and every corrupt copy (the Swift ``purgeWhileLocked``)."""
    secrets = list(known)
    try:
        directory = _open_history(file, policy, creating=False)
    except PreferencesError:
        directory = None
    if directory is not None:
        try:
            undecodable = []
            rewrites = []
            for number in sorted(n for n in map(generation_number, os.listdir(directory)) if n is not None):
                path = f"{file.history_directory}/{number}.plist"
                try:
                    read = read_checked_bytes(path, policy, "a generation")
                    if read is None:
                        continue
                    values = decode_domain(read[0], path)
                except (Corrupt, TooLarge, RefusedFile):
                    undecodable.append(number)
                    continue
                held = {key: value for key, value in values.items() if key in keys}
                if held:
                    secrets += held.values()
                    rewrites.append((number, {key: value for key, value in values.items() if key not in keys}))
            changed = False
            for number, values in rewrites:
                _write_copy(f"{file.history_directory}/{number}.plist", bplist.encode(values), directory, f"{number}.plist", replacing=True)
                changed = True
            for number in undecodable:
                changed |= _scrub(f"{file.history_directory}/{number}.plist", secrets, directory, f"{number}.plist")
            if changed:
                os.fsync(directory)
        finally:
            os.close(directory)
    prefix = file.file_name + ".corrupt-"
    try:
        names = sorted(name for name in os.listdir(file.directory) if name.startswith(prefix) and not name.endswith(".tmp"))
    except OSError:
        return
    if not names:
        return
    folder = os.open(file.directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        changed = False
        for name in names:
            changed |= _scrub(f"{file.directory}/{name}", secrets, folder, name)
        if changed:
            os.fsync(folder)
    finally:
        os.close(folder)


# MARK: Committing


def _usable_staging(file: DomainFile) -> str | None:
    staging = file.staging_directory
    try:
        status = os.lstat(staging)
    except FileNotFoundError:
        try:
            os.mkdir(staging, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return None
        try:
            status = os.lstat(staging)
        except OSError:
            return None
    except OSError:
        return None
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o022:
        return None
    return staging


def _remove_orphaned_temporary_files(file: DomainFile) -> None:
    prefix = file.temporary_prefix
    for folder in (file.staging_directory, file.directory):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not name.startswith(prefix):
                continue
            parts = name[len(prefix):].split("-")
            if len(parts) == 2 and all(part and part.isascii() and part.isdigit() for part in parts):
                try:
                    os.unlink(f"{folder}/{name}")
                except OSError:
                    pass


def _read_waiting_for_writer(file: DomainFile, policy: FilePolicy) -> tuple[dict[str, Any], os.stat_result] | None:
    attempt = 0
    while True:
        read = read_checked_bytes(file.path, policy)
        if read is None:
            return None
        try:
            return decode_domain(read[0], file.path), read[1]
        except Corrupt:
            status = read[1]
            now = time.time_ns()
            if attempt >= 5 or now - max(status.st_mtime_ns, status.st_ctime_ns) >= TIMESTAMP_GRANULARITY_NS:
                raise
            attempt += 1
            time.sleep(TIMESTAMP_GRANULARITY_NS / 1e9)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _write_temporary(file: DomainFile, data: bytes, mode: int, sequence: int,
                     recycling: Callable[[str], int | None] = lambda _: None) -> tuple[str, int]:
    """Writes ``data`` to a new temporary file (or a recycled generation's, from ``recycling``), synced; returns its path and a read-only descriptor."""
    folder = _usable_staging(file) or file.directory
    offer_recycling = True
    for _ in range(1000):
        candidate = f"{folder}/{file.temporary_prefix}{os.getpid()}-{next(_temporary_counter)}"
        if offer_recycling:
            offer_recycling = False
            recycled = recycling(candidate)
            if recycled is not None:
                descriptor = recycled
                break
        try:
            descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            break
        except FileExistsError:
            continue
        except OSError as error:
            raise PreferencesError(
                f"a temporary file for the new domain file could not be created in {file.directory}: {error.strerror}; the old file is unchanged",
                path=file.path, errno=error.errno) from None
    else:
        raise PreferencesError(f"no free temporary file name was found for {file.file_name}; the old file is unchanged", path=file.directory)
    try:
        status = os.fstat(descriptor)
        if stat.S_IMODE(status.st_mode) != mode:
            os.fchmod(descriptor, mode)
        # A recycled file is written over from its start and cut to the new length; its old
        # commit record names another mtime and so no longer counts (H2, H3).
        offset = 0
        view = memoryview(data)
        while view:
            written = os.pwrite(descriptor, view, offset)
            offset += written
            view = view[written:]
        if status.st_size > len(data):
            os.ftruncate(descriptor, len(data))
        _reached("temporary-written")
        mtime = time.time_ns()
        _set_xattr(descriptor, COMMIT_RECORD_ATTRIBUTE, _commit_record(sequence, mtime))
        os.utime(descriptor, ns=(mtime, mtime))
        os.fsync(descriptor)
        _reached("temporary-synced")
        # Closed through a read-only descriptor, as Swift does: closing the writing one after
        # the rename would raise IN_CLOSE_WRITE under the domain's name.
        reader = os.open(candidate, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        os.close(descriptor)
        try:
            os.unlink(candidate)
        except OSError:
            pass
        raise PreferencesError(f"could not write the temporary file: {error.strerror}; the old domain file is unchanged",
                               path=file.path, errno=error.errno) from None
    os.close(descriptor)
    return candidate, reader


def _keep_corrupt_aside(file: DomainFile) -> str:
    base = f"{file.file_name}.corrupt-{_utc_timestamp()}"
    for attempt in range(1, 1001):
        candidate = f"{file.directory}/{base if attempt == 1 else f'{base}-{attempt}'}"
        try:
            os.link(file.path, candidate, follow_symlinks=False)
            return candidate
        except FileExistsError:
            continue
        except OSError as error:
            raise PreferencesError(f"the corrupt domain file could not be kept aside as {candidate}: {error.strerror}; nothing was written",
                                   path=file.path, errno=error.errno) from None
    raise PreferencesError("no free name was found to keep the corrupt domain file aside; nothing was written", path=file.path)


@dataclass
class CommitOutcome:
    """What a commit did: the values on disk after it, whether the directory changed, the body's result."""

    values: dict[str, Any]
    before: dict[str, Any]
    changed_directory: bool
    result: Any = None


class LockedCommit:
    """A commit in progress: the domain's lock held, the current values read; :meth:`finish` writes, :meth:`abort` does not.

    :func:`commit` is this in one call; a transaction holds one across the user's block.
    """

    def __init__(self, file: DomainFile, policy: FilePolicy, *, fallback: dict[str, Any] | None = None,
                 runtime_directory: str | None = None) -> None:
        check_writable_protocol(file.directory, file.protocol_directory)
        self.file = file
        self.policy = policy
        self.runtime_directory = runtime_directory
        self._process_lock = _process_lock(file.path)
        if _process_lock_owners.get(file.path) == threading.get_ident():
            raise PreferencesError(
                f"a write to {file.path} inside this thread's own open transaction of it would wait for itself; "
                "make the change through the transaction", path=file.path)
        # Other threads of this process take turns as other processes do: within the lock timeout (L3).
        acquired = self._process_lock.acquire(True, policy.lock_timeout) if policy.lock_timeout > 0 else self._process_lock.acquire(False)
        if not acquired:
            raise LockTimeout(
                f"another thread of this process held the lock of {file.path} for more than {policy.lock_timeout:g} s",
                path=file.path)
        _process_lock_owners[file.path] = threading.get_ident()
        self._lock: _FileLock | None = None
        try:
            ensure_directory(file.directory, policy)
            self._lock = _FileLock(file.lock_path, policy)
            check_writable_protocol(file.directory, file.protocol_directory)
            _reached("locked")
            _remove_orphaned_temporary_files(file)
            self.corrupt = False
            self.status: os.stat_result | None = None
            try:
                read = _read_waiting_for_writer(file, policy)
                self.current = read[0] if read else None
                self.status = read[1] if read else None
            except Corrupt:
                self.current = None
                self.corrupt = True
            if self.corrupt:
                # A corrupt file's values are those reads serve (R3): the newest generation
                # that decodes, as the Swift writer commits on top of the recovered values;
                # ``fallback`` (the caller's last good values) only when there is none.
                good = newest_good_generation(file, policy)
                self.before: dict[str, Any] = dict(good[1]) if good is not None else dict(fallback or {})
            else:
                self.before = dict(self.current or {})
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        try:
            if self._lock is not None:
                self._lock.release()
                self._lock = None
        finally:
            if self._process_lock is not None:
                _process_lock_owners.pop(self.file.path, None)
                self._process_lock.release()
                self._process_lock = None  # type: ignore[assignment]

    def abort(self) -> None:
        """Writes nothing and lets the lock go."""
        self._release()

    def finish(self, values: dict[str, Any]) -> CommitOutcome:
        """Commits ``values`` (if they differ from the file's) and lets the lock go."""
        try:
            return _write_locked(self, values)
        finally:
            self._release()


def commit(file: DomainFile, policy: FilePolicy, body: Callable[[dict[str, Any]], Any], *,
           fallback: dict[str, Any] | None = None, runtime_directory: str | None = None) -> CommitOutcome:
    """Runs ``body`` on the file's current values under the domain's lock and commits what it leaves, durably.

    ``body`` gets a dictionary it may change in place; if it raises, nothing is written and the
    exception propagates. A corrupt file's values start from its newest generation that
    decodes, else from ``fallback`` (the corrupt file itself is kept aside once something is
    written).
    """
    session = LockedCommit(file, policy, fallback=fallback, runtime_directory=runtime_directory)
    try:
        values = dict(session.before)
        result = body(values)
    except BaseException:
        session.abort()
        raise
    outcome = session.finish(values)
    outcome.result = result
    return outcome


def _write_locked(session: LockedCommit, values: dict[str, Any]) -> CommitOutcome:
    file, policy, current, corrupt, status = session.file, session.policy, session.current, session.corrupt, session.status
    before = session.before
    result = None
    runtime_directory = session.runtime_directory
    if not corrupt and bplist.same(values, current or {}):
        return CommitOutcome(dict(current or {}), before, False, result)
    data = b""
    if values:
        try:
            data = bplist.encode(values)
        except bplist.PropertyListError as error:
            raise TooLarge(f"the new values exceed the property-list limits: {error}; nothing was written", path=file.path) from None
        if len(data) > policy.size_limit:
            raise TooLarge(f"the new values encode to {len(data)} bytes, over the limit of {policy.size_limit} bytes; nothing was written", path=file.path)
    history = _begin_commit(file, current, status, corrupt, policy)
    removed_private = {key: current[key] for key in policy.private_keys if current and key in current and key not in values}
    aside = None
    try:
        if not values:
            history.keep()
            _reached("generation-kept")
            if corrupt:
                aside = _keep_corrupt_aside(file)
            try:
                os.unlink(file.path)
            except FileNotFoundError:
                pass
            _reached("renamed")
        else:
            temporary, reader = _write_temporary(file, data, policy.file_mode, history.sequence, history.recycle)
            try:
                if corrupt:
                    aside = _keep_corrupt_aside(file)
                history.keep()
                _reached("generation-kept")
                os.rename(temporary, file.path)
            except BaseException:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                raise
            finally:
                os.close(reader)
            _reached("renamed")
    except OSError as error:
        history.abandon()
        if aside:
            try:
                os.unlink(aside)
            except OSError:
                pass
        raise PreferencesError(f"the new domain file could not be put in place: {error.strerror}; the old file is unchanged",
                               path=file.path, errno=error.errno) from None
    except BaseException:
        history.abandon()
        raise
    # The new version is in place. Whatever fails from here, the counter is raised first (W11:
    # readers of every process must see the commit), the history pruned (W13) and removed
    # private values purged (P3); only then is a failure reported.
    try:
        counter = open_counter(file.directory, file.file_name, runtime_directory)
        if counter is not None:
            counter.raise_()
    finally:
        try:
            history.finish(policy)
        finally:
            if removed_private:
                try:
                    purge_while_locked(file, set(removed_private), list(removed_private.values()), policy)
                except (PreferencesError, OSError) as error:
                    # As Swift reports a purge that failed after its commit: a warning, the
                    # commit itself stands; the next removal or `purge` tries again.
                    _log.warning("the removed private values of %s could not be purged from every kept copy: %s", file.path, error)
    try:
        _fsync_directory(file.directory)
    except OSError:
        # W12: a failed sync is never trusted; once more with a new descriptor.
        try:
            _fsync_directory(file.directory)
        except OSError as error:
            raise PreferencesError(
                f"the new domain file is in place but its directory could not be synced: {error.strerror}; "
                "the commit may not survive a power cut", path=file.directory, errno=error.errno) from None
    _reached("directory-synced")
    return CommitOutcome(values, before, True, result)
