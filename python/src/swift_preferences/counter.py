"""The commit counter: a 32-bit word in a small shared file, raised by every writer after its rename.

Layout (64 bytes): ``SPCOMMIT`` magic, format version 1 (u32 LE) at 8, the counter (u32 LE) at
16, the number of futex sleepers (u32 LE) at 20. It lives at
``$XDG_RUNTIME_DIR/swift-preferences/<file name, first 180 bytes>-<FNV-1a-64 of the file's path, 16 hex>``,
or beside the domain file as ``.<file>.commits`` without a runtime directory. Writers raise it
under the domain's flock (so a plain load and store is safe), then wake sleepers with
``futex(FUTEX_WAKE)`` when the sleeper count is not zero. Readers compare it with the value
they saw to know whether another process committed since (fresh reads).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import platform
import stat
import struct
import threading

from .errors import Corrupt, PreferencesError, RefusedFile

MAGIC = b"SPCOMMIT"
VERSION = 1
COUNTER_OFFSET = 16
WAITERS_OFFSET = 20
SIZE = 64

_SYS_FUTEX = {"x86_64": 202, "aarch64": 98, "arm64": 98}.get(platform.machine())
_FUTEX_WAKE = 1
_INT_MAX = 0x7FFFFFFF

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def fnv1a64(text: str) -> int:
    """FNV-1a, 64 bits, over the UTF-8 bytes: the same in every process and language."""
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8", errors="surrogateescape"):
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def location(directory: str, file_name: str, runtime_directory: str | None) -> tuple[str, str]:
    """The counter's directory and path for the domain file ``directory/file_name``."""
    if runtime_directory and runtime_directory.startswith("/") and os.path.isdir(runtime_directory) and os.access(runtime_directory, os.X_OK):
        folder = runtime_directory.rstrip("/") + "/swift-preferences"
        prefix = file_name.encode("utf-8", errors="surrogateescape")[:180].decode("utf-8", errors="replace")
        path = (directory.rstrip("/") or "") + "/" + file_name
        return folder, f"{folder}/{prefix}-{fnv1a64(path):016x}"
    return directory, f"{directory.rstrip('/')}/.{file_name}.commits"


class CommitCounter:
    """One domain file's mapped counter."""

    def __init__(self, path: str, mapping: mmap.mmap) -> None:
        self.path = path
        self._mapping = mapping
        self._word = ctypes.c_uint32.from_buffer(mapping, COUNTER_OFFSET)
        self._lock = threading.Lock()

    @property
    def value(self) -> int:
        """The counter now (one aligned 32-bit load)."""
        return int(self._word.value)

    def raise_(self) -> int:
        """Raises the counter (the caller holds the domain's flock) and wakes futex sleepers; returns the new value.

        The word is stored whole through a 32-bit C integer (a byte-wise ``struct.pack_into``
        could be read half-written by a Swift reader's atomic load). Python has no fetch-add,
        so it is a load and a store under the domain's lock, which PROTOCOL.md N3 allows. The
        wake-up is always made: without a fence between the store and loading the waiter
        count, a sleeper that just counted itself in could otherwise be missed.
        """
        with self._lock:
            new = (self.value + 1) & 0xFFFFFFFF
            self._word.value = new
        if _SYS_FUTEX is not None:
            _libc.syscall(ctypes.c_long(_SYS_FUTEX), ctypes.c_void_p(ctypes.addressof(self._word)), ctypes.c_int(_FUTEX_WAKE),
                          ctypes.c_int(_INT_MAX), None, None, ctypes.c_int(0))
        return new


_open_counters: dict[str, CommitCounter] = {}
_open_lock = threading.Lock()


def open_counter(directory: str, file_name: str, runtime_directory: str | None) -> CommitCounter | None:
    """Opens (creating it as the Swift library does) and maps the counter of a domain file; None if it is refused."""
    folder, path = location(directory, file_name, runtime_directory)
    with _open_lock:
        existing = _open_counters.get(path)
        if existing is not None:
            try:
                now = os.lstat(path)
                if (now.st_dev, now.st_ino) == existing._identity:  # type: ignore[attr-defined]
                    return existing
            except OSError:
                pass
        try:
            counter = _open(folder, path)
        except (OSError, PreferencesError):
            return None
        _open_counters[path] = counter
        return counter


def _open(folder: str, path: str) -> CommitCounter:
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    status = os.lstat(folder)
    if not stat.S_ISDIR(status.st_mode):
        raise RefusedFile("the commit counters' directory is not a directory", path=folder)
    if status.st_uid != os.geteuid() or (status.st_mode & 0o022 and not status.st_mode & stat.S_ISVTX):
        raise RefusedFile("the commit counters' directory is not private", path=folder)
    descriptor = -1
    for _ in range(3):
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
            break
        except FileNotFoundError:
            _create(path)
    if descriptor < 0:
        raise PreferencesError("the commit counter kept disappearing while it was opened", path=path)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o022:
            raise RefusedFile("the commit counter is not a private regular file", path=path)
        if status.st_size != SIZE:
            raise Corrupt(f"the commit counter is {status.st_size} bytes, not {SIZE}", path=path)
        header = os.pread(descriptor, 12, 0)
        if header[:8] != MAGIC or struct.unpack_from("<I", header, 8)[0] != VERSION:
            raise Corrupt("the commit counter does not start with the library's header", path=path)
        mapping = mmap.mmap(descriptor, SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        counter = CommitCounter(path, mapping)
        counter._identity = (status.st_dev, status.st_ino)  # type: ignore[attr-defined]
        return counter
    finally:
        os.close(descriptor)


def _create(path: str) -> None:
    """Writes a new counter under a temporary name, syncs it and links it into place unless one is there."""
    temporary = f"{path}.tmp-{os.getpid()}-{threading.get_native_id()}"
    data = MAGIC + struct.pack("<I", VERSION) + b"\x00" * (SIZE - 12)
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(descriptor, 0o600)
        os.write(descriptor, data)
        os.fsync(descriptor)
    except OSError:
        os.close(descriptor)
        os.unlink(temporary)
        raise
    os.close(descriptor)
    try:
        os.link(temporary, path)
    except FileExistsError:
        pass
    finally:
        try:
            os.unlink(temporary)
        except OSError:
            pass
