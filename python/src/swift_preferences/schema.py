"""Declared settings: finding a domain's schema and reading which keys are private and their defaults.

A schema is native (``<dir>/<domain>.plist``: ``Keys.<key>.Private = true``, ``Default``) or an
Apple Settings.bundle (``<dir>/<domain>.bundle/Root.plist``: a ``PSTextFieldSpecifier`` with
``IsSecure = true`` is private; ``DefaultValue``), found on ``$PREFERENCES_SCHEMA_PATH`` (absolute
entries only), else ``$XDG_DATA_HOME/preferences/schemas`` and ``preferences/schemas`` under each
``$XDG_DATA_DIRS`` entry. The first candidate that exists wins, native before bundle in each
directory, as the Swift ``SchemaSearchPath`` orders them.
"""

from __future__ import annotations

import datetime
import math
import os
import plistlib
import stat
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

from . import bplist

SCHEMA_SIZE_LIMIT = 4 << 20


@dataclass(frozen=True)
class Schema:
    """What this package uses of a domain's declared settings."""

    path: str | None = None
    private_keys: frozenset[str] = frozenset()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    types: Mapping[str, str] = field(default_factory=dict)
    rules: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def violation(self, key: str, value: Any) -> str | None:
        """Why ``value`` breaks ``key``'s declared rule (type, Minimum, Maximum, Choices), or None if it does not."""
        rule = self.rules.get(key)
        if rule is None or value is None:
            return None
        declared = _TYPE_NAMES.get(str(rule.get("Type", "")).lower())
        element = _TYPE_NAMES.get(str(rule.get("ElementType", "")).lower())
        if declared is not None and not _admits(declared, value, element):
            return f"{key} must be {'an' if declared in ('integer', 'array') else 'a'} {declared}, not {type(value).__name__} {value!r}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            low, high = rule.get("Minimum"), rule.get("Maximum")
            low_number, high_number = _number(low), _number(high)
            nan = isinstance(value, float) and math.isnan(value)
            if low_number is not None and (nan or value < low_number):
                return f"{key} must be at least {low}, not {value!r}"
            if high_number is not None and (nan or value > high_number):
                return f"{key} must be at most {high}, not {value!r}"
        choices = rule.get("Choices")
        if isinstance(choices, list) and not any(bplist.same(value, choice) for choice in choices):
            return f"{key} must be one of {choices!r}, not {value!r}"
        return None


_TYPE_NAMES = {"string": "string", "integer": "integer", "int": "integer", "real": "real", "float": "real", "double": "real",
               "boolean": "boolean", "bool": "boolean", "date": "date", "data": "data", "array": "array",
               "dictionary": "dictionary", "dict": "dictionary"}


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _admits(declared: str, value: Any, element: str | None = None) -> bool:
    """The Swift ``DeclaredType.firstMismatch``: a real admits integers; an array's elements are checked if typed."""
    if declared == "array":
        return isinstance(value, list) and (element is None or all(_admits(element, item) for item in value))
    if declared == "real":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    kinds: dict[str, type | tuple[type, ...]] = {
        "string": str, "integer": int, "boolean": bool, "data": (bytes, bytearray), "date": datetime.datetime,
        "dictionary": dict}
    kind = kinds[declared]
    if declared == "integer" and isinstance(value, bool):
        return False
    return isinstance(value, kind)


def search_path(environment: Mapping[str, str], home: str) -> list[str]:
    """The schema directories, in order, without duplicates."""
    explicit = environment.get("PREFERENCES_SCHEMA_PATH")
    result: list[str] = []
    if explicit is not None:
        result = [entry.rstrip("/") or "/" for entry in explicit.split(":") if entry.startswith("/")]
    else:
        data_home = environment.get("XDG_DATA_HOME", "")
        if not data_home.startswith("/"):
            data_home = home.rstrip("/") + "/.local/share"
        result.append(data_home.rstrip("/") + "/preferences/schemas")
        dirs = environment.get("XDG_DATA_DIRS") or "/usr/local/share/:/usr/share/"
        result += [entry.rstrip("/") + "/preferences/schemas" for entry in dirs.split(":") if entry.startswith("/")]
    return list(dict.fromkeys(result))


def _read_trusted(path: str) -> bytes | None:
    """The file's bytes if it is a regular file of this user or root, not group/other-writable, within the limit."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_uid not in (os.geteuid(), 0):
            return None
        if status.st_mode & 0o022 or status.st_size > SCHEMA_SIZE_LIMIT:
            return None
        chunks = []
        total = 0
        while True:
            chunk = os.read(descriptor, 65536)
            if not chunk:
                break
            total += len(chunk)
            if total > SCHEMA_SIZE_LIMIT:
                return None
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _parse(data: bytes) -> Any:
    if data.startswith(b"bplist"):
        return bplist.decode(data)
    return plistlib.loads(data, fmt=plistlib.FMT_XML)


def candidates(domain: str, environment: Mapping[str, str], home: str) -> list[tuple[str, bool]]:
    """Every place the schema of ``domain`` may be, in search order: ``(path, is_native)``."""
    return [(entry, native) for directory in search_path(environment, home)
            for entry, native in ((f"{directory}/{domain}.plist", True), (f"{directory}/{domain}.bundle/Root.plist", False))]


def _load_entry(entry: str, native: bool) -> Schema:
    data = _read_trusted(entry)
    if data is None:
        return Schema(path=entry)
    try:
        root = _parse(data)
    except Exception:
        return Schema(path=entry)
    return _native(entry, root) if native else _bundle(entry, root)


def load_schema(domain: str, environment: Mapping[str, str], home: str) -> Schema:
    """The schema of ``domain`` found on the search path; an empty one if none is found or it does not parse."""
    for entry, native in candidates(domain, environment, home):
        if os.path.lexists(entry):
            return _load_entry(entry, native)
    return Schema()


class SchemaCache:
    """A domain's schema, parsed again only when the file found (or which candidates exist) changes.

    Checking costs one ``lstat`` per candidate up to the first that exists. A schema file that
    changed within the last clock tick is parsed again on every look (an in-place rewrite of
    the same size in that tick would keep its identity).
    """

    def __init__(self, domain: str, environment: Mapping[str, str], home: str) -> None:
        self.candidates = candidates(domain, environment, home)
        self._lock = threading.Lock()
        self._signature: tuple[Any, ...] | None = None
        self._schema = Schema()

    def get(self) -> Schema:
        """The schema as the files are now."""
        now = time.time_ns()
        signature: list[Any] = []
        found: tuple[str, bool] | None = None
        settled = True
        for entry, native in self.candidates:
            try:
                status = os.lstat(entry)
            except OSError:
                signature.append(None)
                continue
            times = (status.st_mtime_ns, status.st_ctime_ns)
            signature.append((status.st_dev, status.st_ino, status.st_size, *times, status.st_mode, status.st_uid))
            settled = now - max(times) >= 10_000_000
            found = (entry, native)
            break
        key = tuple(signature)
        with self._lock:
            if settled and key == self._signature:
                return self._schema
        schema = _load_entry(*found) if found is not None else Schema()
        with self._lock:
            self._signature, self._schema = (key if settled else None), schema
        return schema


def _native(path: str, root: Any) -> Schema:
    private: set[str] = set()
    defaults: dict[str, Any] = {}
    types: dict[str, str] = {}
    rules: dict[str, dict[str, Any]] = {}
    keys = root.get("Keys") if isinstance(root, dict) else None
    if isinstance(keys, dict):
        for name, declaration in keys.items():
            if not isinstance(declaration, dict):
                continue
            if declaration.get("Private") is True:
                private.add(name)
            if "Default" in declaration:
                defaults[name] = declaration["Default"]
            if isinstance(declaration.get("Type"), str):
                types[name] = declaration["Type"]
            rules[name] = declaration
    return Schema(path=path, private_keys=frozenset(private), defaults=defaults, types=types, rules=rules)


def _bundle(path: str, root: Any) -> Schema:
    private: set[str] = set()
    defaults: dict[str, Any] = {}
    specifiers = root.get("PreferenceSpecifiers") if isinstance(root, dict) else None
    if isinstance(specifiers, list):
        for spec in specifiers:
            if not isinstance(spec, dict) or not isinstance(spec.get("Key"), str):
                continue
            if spec.get("Type") == "PSTextFieldSpecifier" and spec.get("IsSecure") is True:
                private.add(spec["Key"])
            if "DefaultValue" in spec:
                defaults[spec["Key"]] = spec["DefaultValue"]
    return Schema(path=path, private_keys=frozenset(private), defaults=defaults)
