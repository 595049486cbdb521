"""Lenient, cached reads of one layer's file, as the Swift ``DomainRefresher`` reads a domain file.

A layer's file is known by its identity (device, inode, size, modification and status-change
times in nanoseconds, mode, owner) from one ``lstat``: writers replace the file by rename, so a
commit is a new inode, and an editor writing in place changes the size or the times. A read
whose file still has the identity of the version last decoded costs that ``lstat`` alone.

Two cases need more than the identity, as in Swift (``DomainFile.stillHolds``):

- a version whose timestamps were within a clock tick (10 ms) of when it was read is not
  *settled*: an in-place rewrite of the same size in that tick would leave its identity as it
  was, so it is confirmed by reading its bytes again and comparing their digest (no decode)
  until it settles;
- a version whose status-change time alone moved (a commit links the file it replaces into the
  history just before the rename) is confirmed the same way, then known by its new identity.

What a bad file reads as (PROTOCOL.md R1, R3):

- refused (a link, not a regular file, a foreign owner, group/other-writable, over the size
  limit): absent, with the refusal as the layer's problem;
- corrupt (not a binary property list the bounded decoder accepts, or not a dictionary): the
  values of the newest generation in ``.F.history/`` that decodes, or none; its bytes are never
  changed. A corrupt-looking file that changed within the last tick is read again a few times
  first (an editor may be rewriting it in place).

A failed file is remembered by identity (not read again until it changes) only if it had
settled and did not change while it was read; after an I/O error the next read tries again.
Each problem is logged once per file version at WARNING on the ``swift_preferences`` logger.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from .errors import Corrupt, PreferencesError, RefusedFile, TooLarge
from .files import (TIMESTAMP_GRANULARITY_NS, DomainFile, FilePolicy, decode_domain, newest_good_generation,
                    read_checked_bytes)

LOGGER = logging.getLogger("swift_preferences")

#: (device, inode, size, mtime-ns, ctime-ns, mode, owner)
Identity = tuple[int, int, int, int, int, int, int]

#: Reads of a corrupt-looking file that changed within the last tick, before it is called corrupt.
CORRUPT_RETRIES = 5
#: How many distinct problems are remembered as reported (a churning hostile file cannot grow memory).
REPORT_LIMIT = 1024


def identity_of(status: os.stat_result) -> Identity:
    """The identity of the file a ``stat`` result describes."""
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns,
            status.st_mode, status.st_uid)


def _matches(a: Identity, b: Identity) -> bool:
    """Equal but perhaps for the status-change time (a new link, an unchanged chmod)."""
    return a[:4] == b[:4] and a[5:] == b[5:]


def is_settled(identity: Identity, now: int) -> bool:
    """Whether any later change of the file must change ``identity``, judged at ``now`` (wall clock, ns)."""
    return now - max(identity[3], identity[4]) >= TIMESTAMP_GRANULARITY_NS


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


@dataclass(frozen=True)
class LayerState:
    """What one read of a layer's file found: the values it reads as, and why they are not the file's, if they are not.

    ``values`` is shared with every later read that finds the same version: never change it.
    """

    identity: Identity | None
    values: Mapping[str, Any] = field(default_factory=dict)
    problem: PreferencesError | None = None
    digest: bytes | None = None
    settled: bool = True
    remembered: bool = True


#: No file at the path.
ABSENT = LayerState(None)


def read_layer(file: DomainFile, policy: FilePolicy, known: LayerState | None = None) -> LayerState:
    """The layer's file as reads see it: ``known`` itself if the file is still that version, else a new read."""
    path = file.path
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return ABSENT
    except OSError as error:
        problem = PreferencesError(f"the domain file's status could not be read: {error.strerror}", path=path, errno=error.errno)
        _report(problem, None, "it reads as absent")
        return LayerState(None, {}, problem, remembered=False)
    current = identity_of(status)
    if known is not None and known.remembered and known.identity is not None:
        if current == known.identity and known.settled:
            return known
        if known.digest is None:
            # A failure, remembered only once settled: any change of the file changes this.
            if current == known.identity:
                return known
        elif _matches(current, known.identity):
            confirmed = _confirm(file, policy, known)
            if confirmed is not None:
                return confirmed
    return _read(file, policy, current)


def _confirm(file: DomainFile, policy: FilePolicy, known: LayerState) -> LayerState | None:
    """``known`` brought up to date if the file's bytes are still the ones it was decoded from, else None."""
    observed = time.time_ns()
    try:
        read = read_checked_bytes(file.path, policy)
    except PreferencesError:
        return None
    if read is None:
        return None
    identity = identity_of(read[1])
    if not _matches(identity, known.identity) or _digest(read[0]) != known.digest:  # type: ignore[arg-type]
        return None
    return replace(known, identity=identity, settled=is_settled(identity, observed))


def _read(file: DomainFile, policy: FilePolicy, before: Identity) -> LayerState:
    path = file.path
    attempt = 0
    while True:
        observed = time.time_ns()
        try:
            read = read_checked_bytes(path, policy)
        except (RefusedFile, TooLarge) as error:
            return _failure(file, before, error, observed, {}, "it reads as absent")
        except PreferencesError as error:
            _report(error, None, "it reads as absent")
            return LayerState(before, {}, error, remembered=False)
        if read is None:
            return ABSENT
        data, status = read
        identity = identity_of(status)
        try:
            values = decode_domain(data, path)
        except Corrupt as error:
            if attempt < CORRUPT_RETRIES and not is_settled(identity, time.time_ns()):
                attempt += 1
                time.sleep(TIMESTAMP_GRANULARITY_NS / 1e9)
                try:
                    before = identity_of(os.lstat(path))
                except OSError:
                    pass
                continue
            good = newest_good_generation(file, policy)
            if good is None:
                return _failure(file, identity, error, observed, {}, "no generation in its history decodes, so it reads as empty")
            error.generation = good[0]
            error.generation_path = f"{file.history_directory}/{good[0]}.plist"
            return _failure(file, identity, error, observed, good[1],
                            f"its values are read from generation {good[0]} ({error.generation_path}) instead")
        return LayerState(identity, values, None, _digest(data), is_settled(identity, observed))


def _failure(file: DomainFile, identity: Identity, error: PreferencesError, observed: int,
             values: Mapping[str, Any], outcome: str) -> LayerState:
    """A failed read's state, remembered by identity if the file had settled and did not change while it was read."""
    try:
        after = identity_of(os.lstat(file.path))
    except OSError:
        after = None
    remembered = after is not None and _matches(after, identity) and is_settled(identity, observed)
    _report(error, identity, outcome)
    return LayerState(identity, values, error, None, True, remembered)


_reported: set[tuple[Any, ...]] = set()
_reported_lock = threading.Lock()


def _report(error: PreferencesError, identity: Identity | None, outcome: str) -> None:
    """Logs ``error`` at WARNING, once per file version (path, inode, size, mtime) and reason."""
    report(("file", error.path, identity[:4] if identity else None, error.kind, error.message),
           "%s: %s; %s", error.path, error.message, outcome)


def report(key: tuple[Any, ...], message: str, *arguments: Any) -> None:
    """Logs a warning unless one with the same ``key`` was logged before (at most ``REPORT_LIMIT`` kept)."""
    with _reported_lock:
        if key in _reported or len(_reported) >= REPORT_LIMIT:
            return
        _reported.add(key)
    LOGGER.warning(message, *arguments)
