"""Watching: one inotify instance and one daemon thread per process, however many domains are watched.

The watcher watches the DIRECTORIES of every layer (a commit renames a new file over the old,
so the file's inode changes) with the Swift watcher's mask: ``IN_CLOSE_WRITE | IN_MOVED_TO |
IN_MOVED_FROM | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR``. Events
are hints: an event naming a layer's file makes the watch re-read its layers, diff the resolved
values and call the callback once per changed key. ``IN_Q_OVERFLOW`` rescans every watch. A
missing directory is looked for again every 100 ms. Without inotify, every watch is re-read
once a second. Callbacks run on the watcher thread with no lock held.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno as errnos
import os
import select
import struct
import sys
import threading
from typing import Any, Callable, Mapping

from . import bplist
from .domain import Domain, detached, resolve_layers
from .errors import Corrupt
from .snapshot import LayerState, read_layer

IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000

#: The Swift ``WatchLoop.directoryEvents`` mask.
DIRECTORY_EVENTS = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
RETRY_INTERVAL = 0.1
POLLING_INTERVAL = 1.0

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.inotify_init1.argtypes = [ctypes.c_int]
_libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
_libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]


class WatchHandle:
    """One ``Domain.watch``: the callback and the resolved values it last saw; ``close()`` stops it."""

    def __init__(self, domain: Domain, callback: Callable[[str, Any, Any], None]) -> None:
        self.domain = domain
        self.callback = callback
        self.layers = [layer for layer in domain.layers() if layer.file is not None]
        self.files = {(layer.file.directory, layer.file.file_name) for layer in self.layers if layer.file is not None}
        self.directories = sorted({directory for directory, _ in self.files})
        self.states: list[LayerState | None] = [None] * len(self.layers)
        self.layer_values: list[Mapping[str, Any]] = [{} for _ in self.layers]
        self.resolved = self._resolve()
        self.closed = False
        self.lock = threading.Lock()

    def _resolve(self) -> dict[str, Any]:
        """Reads the layers (one ``lstat`` each for a version already known) and resolves them under the schema's rules.

        A corrupt file reads as its newest good generation, as in ``get``; a refused or
        unreadable one keeps the layer's last good values, as the Swift watcher does.
        """
        for position, layer in enumerate(self.layers):
            state = read_layer(layer.file, layer.policy, self.states[position])  # type: ignore[arg-type]
            self.states[position] = state
            if state.problem is None or isinstance(state.problem, Corrupt):
                self.layer_values[position] = state.values
        schema = self.domain.schema()
        layers = [(layer.name, layer.file.path if layer.file else None, values) for layer, values in zip(self.layers, self.layer_values)]
        layers.append(("declared", None, schema.defaults))
        return resolve_layers(layers, schema, self.domain.name).values

    def refresh(self) -> list[tuple[str, Any, Any]]:
        """Re-reads the layers and returns the changes of resolved values, by key."""
        with self.lock:
            resolved = self._resolve()
            changes = []
            for key in sorted(set(resolved) | set(self.resolved)):
                old, new = self.resolved.get(key), resolved.get(key)
                if (key in resolved) != (key in self.resolved) or not bplist.same(old, new):
                    changes.append((key, detached(old), detached(new)))
            self.resolved = resolved
            return changes

    def deliver(self, changes: list[tuple[str, Any, Any]]) -> None:
        """Calls the callback for each change (never while a lock is held)."""
        for key, old, new in changes:
            if self.closed:
                return
            try:
                self.callback(key, old, new)
            except Exception as error:  # a callback's failure must not stop the watcher
                print(f"swift_preferences: a watch callback raised {error!r}", file=sys.stderr)

    def close(self) -> None:
        """Stops the watch; no callback starts after it returns (one running on the watcher thread may finish)."""
        self.closed = True
        _Watcher.shared().remove(self)

    def __enter__(self) -> "WatchHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Watcher:
    """The process's one door: the inotify instance, its thread, the watched directories and handles."""

    _instance: "_Watcher | None" = None
    _instance_lock = threading.Lock()

    @classmethod
    def shared(cls) -> "_Watcher":
        with cls._instance_lock:
            if cls._instance is None or cls._instance._pid != os.getpid():
                cls._instance = _Watcher()
            return cls._instance

    def __init__(self) -> None:
        self._pid = os.getpid()
        self.lock = threading.Lock()
        self.handles: list[WatchHandle] = []
        self.watches: dict[str, int] = {}
        self.paths: dict[int, str] = {}
        self.missing: set[str] = set()
        self.pending: list[WatchHandle] = []
        self.fd = _libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        self.polling = self.fd < 0
        self.wake_read, self.wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.thread = threading.Thread(target=self._run, name="swift-preferences-watcher", daemon=True)
        self.thread.start()

    def add(self, handle: WatchHandle) -> None:
        with self.lock:
            self.handles.append(handle)
            # Re-read once the directories are watched: a commit between the handle's first
            # read and the watch is then not missed.
            self.pending.append(handle)
            for directory in handle.directories:
                if directory not in self.watches:
                    self._add_watch(directory)
        self._wake()

    def remove(self, handle: WatchHandle) -> None:
        with self.lock:
            if handle in self.handles:
                self.handles.remove(handle)

    def _add_watch(self, directory: str) -> bool:
        if self.polling:
            return False
        descriptor = _libc.inotify_add_watch(self.fd, os.fsencode(directory), DIRECTORY_EVENTS)
        if descriptor < 0:
            self.missing.add(directory)
            return False
        self.missing.discard(directory)
        self.watches[directory] = descriptor
        self.paths[descriptor] = directory
        return True

    def _wake(self) -> None:
        try:
            os.write(self.wake_write, b"x")
        except OSError:
            pass

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self.wake_read, select.POLLIN)
        if not self.polling:
            poller.register(self.fd, select.POLLIN)
        while True:
            with self.lock:
                timeout = POLLING_INTERVAL if self.polling else (RETRY_INTERVAL if self.missing else None)
            ready = poller.poll(None if timeout is None else int(timeout * 1000))
            touched: set[tuple[str, str]] = set()
            rescan = False
            for descriptor, _ in ready:
                if descriptor == self.wake_read:
                    try:
                        os.read(self.wake_read, 4096)
                    except OSError:
                        pass
                elif descriptor == self.fd:
                    more, everything = self._read_events()
                    touched |= more
                    rescan |= everything
            with self.lock:
                if self.polling:
                    rescan = True
                for directory in sorted(self.missing):
                    if self._add_watch(directory):
                        rescan = True
                handles = list(self.handles)
                pending, self.pending = self.pending, []
            for handle in handles:
                if handle.closed:
                    continue
                if handle in pending or rescan or any((directory, name) in handle.files for directory, name in touched) or any(
                        (directory, None) in touched for directory in handle.directories):  # type: ignore[comparison-overlap]
                    handle.deliver(handle.refresh())

    def _read_events(self) -> tuple[set[tuple[str, Any]], bool]:
        touched: set[tuple[str, Any]] = set()
        rescan = False
        while True:
            try:
                data = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                break
            except OSError as error:
                if error.errno == errnos.EINTR:
                    continue
                break
            offset = 0
            while offset + 16 <= len(data):
                wd, mask, _cookie, length = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16:offset + 16 + length].split(b"\0", 1)[0].decode("utf-8", errors="surrogateescape")
                offset += 16 + length
                if mask & IN_Q_OVERFLOW:
                    rescan = True
                    continue
                with self.lock:
                    directory = self.paths.get(wd)
                    if directory is None:
                        continue
                    if mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF):
                        # The directory is gone from its path: watch for it again.
                        if mask & IN_IGNORED:
                            self.paths.pop(wd, None)
                            if self.watches.get(directory) == wd:
                                del self.watches[directory]
                            self.missing.add(directory)
                        elif mask & IN_MOVE_SELF:
                            _libc.inotify_rm_watch(self.fd, wd)
                        touched.add((directory, None))
                        continue
                if name:
                    touched.add((directory, name))
            if len(data) < 64 * 1024 - 272:
                break
        return touched, rescan


def directory_may_have_appeared() -> None:
    """A commit of this process may have made a directory a watch waits for: look for it now, not at the next retry."""
    watcher = _Watcher._instance
    if watcher is not None and watcher._pid == os.getpid() and watcher.missing:
        watcher._wake()


def watch_domain(domain: Domain, callback: Callable[[str, Any, Any], None]) -> WatchHandle:
    """Registers a watch of ``domain``'s resolved values with the process's watcher."""
    handle = WatchHandle(domain, callback)
    _Watcher.shared().add(handle)
    return handle
