"""The public API: a domain, its search list, its writes and transactions."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from . import bplist
from .errors import InvalidValue, PreferencesError
from .files import DomainFile, FilePolicy, LockedCommit, commit, read_domain
from .locations import GLOBAL_FILE_STEM, Locations, file_stem, validate_domain_name
from .schema import Schema, load_schema

_MISSING = object()


@dataclass(frozen=True)
class Layer:
    """One layer of a domain's search list: its name, its file and the policy it is read under."""

    name: str
    file: DomainFile | None
    policy: FilePolicy
    values: Mapping[str, Any] | None = None


class Domain:
    """A preferences domain (``com.example.editor``, or ``NSGlobalDomain``).

    Reads resolve through the whole search list: managed (forced), the domain by-host then any
    host, the global domain by-host then any host, the system defaults of the domain and the
    system global domain, then the declared defaults of the domain's schema. Writes go to the
    domain's own file (any host) and are committed durably by the protocol before they return.

    Reads are strict: a layer whose file is refused (link, foreign owner, group/other-writable,
    not regular), too large or corrupt raises the matching :class:`PreferencesError`.
    """

    def __init__(self, name: str, environment: Mapping[str, str] | None = None) -> None:
        """Resolves the domain's directories from ``environment`` (default ``os.environ``), as the Swift library does."""
        self.name = validate_domain_name(name)
        self.environment: Mapping[str, str] = dict(os.environ if environment is None else environment)
        self.locations = Locations.from_environment(self.environment)
        self.stem = file_stem(name)
        self.is_global = self.stem == GLOBAL_FILE_STEM
        self.user_policy = FilePolicy()
        self.system_policy = FilePolicy.system()
        self._last_good: dict[str, Any] = {}

    # MARK: Layers

    def _user_file(self, stem: str, by_host: bool) -> DomainFile | None:
        locations = self.locations
        if by_host:
            if locations.machine_id is None:
                return None
            return DomainFile(locations.by_host_directory, f"{stem}.{locations.machine_id}.plist", locations.user_directory)
        return DomainFile(locations.user_directory, f"{stem}.plist", locations.user_directory)

    @property
    def file(self) -> DomainFile:
        """The domain's own file (any host), where writes go."""
        return self._user_file(self.stem, False)  # type: ignore[return-value]

    def layers(self) -> list[Layer]:
        """The search list, first hit wins (the declared defaults last)."""
        loc = self.locations
        system = loc.system_directory
        result = [Layer("managed", DomainFile(loc.managed_directory, f"{self.stem}.plist", system), self.system_policy)]
        result.append(Layer("by-host", self._user_file(self.stem, True), self.user_policy))
        result.append(Layer("domain", self._user_file(self.stem, False), self.user_policy))
        if not self.is_global:
            result.append(Layer("global-by-host", self._user_file(GLOBAL_FILE_STEM, True), self.user_policy))
            result.append(Layer("global", self._user_file(GLOBAL_FILE_STEM, False), self.user_policy))
        result.append(Layer("system", DomainFile(system, f"{self.stem}.plist", system), self.system_policy))
        if not self.is_global:
            result.append(Layer("system-global", DomainFile(system, f"{GLOBAL_FILE_STEM}.plist", system), self.system_policy))
        result.append(Layer("declared", None, self.user_policy, dict(self.schema().defaults)))
        return [layer for layer in result if layer.file is not None or layer.values is not None]

    def schema(self) -> Schema:
        """The domain's declared settings (private keys, defaults), read afresh."""
        return load_schema(self.name, self.environment, self.locations.home_directory)

    def layer_values(self) -> list[tuple[str, dict[str, Any]]]:
        """Every layer's values, in search order (strict: unreadable files raise)."""
        result = []
        for layer in self.layers():
            if layer.file is None:
                result.append((layer.name, dict(layer.values or {})))
            else:
                result.append((layer.name, read_domain(layer.file.path, layer.policy) or {}))
        return result

    # MARK: Reading

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` from the first layer of the search list that has it, else ``default``."""
        for _, values in self.layer_values():
            if key in values:
                return values[key]
        return default

    def to_dict(self) -> dict[str, Any]:
        """The domain's resolved values: every key of every layer, each from the first layer that has it."""
        return resolve(self.layer_values())

    def own(self) -> dict[str, Any]:
        """The domain file's own values (the user layer, any host)."""
        values = read_domain(self.file.path, self.user_policy) or {}
        self._last_good = dict(values)
        return values

    def is_forced(self, key: str) -> bool:
        """Whether the managed layer sets ``key``."""
        layer = self.layers()[0]
        return key in (read_domain(layer.file.path, layer.policy) or {})  # type: ignore[union-attr]

    # MARK: Writing

    def _policy(self) -> FilePolicy:
        policy = FilePolicy()
        policy.private_keys = self.schema().private_keys
        return policy

    def _check_rule(self, key: str, value: Any) -> None:
        problem = self.schema().violation(key, value)
        if problem is not None:
            raise InvalidValue(f"the domain's schema refuses the value: {problem}; nothing was written")

    def _commit(self, body: Callable[[dict[str, Any]], Any]) -> Any:
        outcome = commit(self.file, self._policy(), body, fallback=self._last_good,
                         runtime_directory=self.locations.runtime_directory)
        self._last_good = dict(outcome.values)
        _after_commit()
        return outcome.result

    def set(self, key: str, value: Any) -> None:
        """Sets ``key`` to ``value`` in the domain's file, committed durably before returning.

        ``value`` must be a property-list value (``str``, ``int``, ``float``, ``bool``,
        ``bytes``, ``datetime.datetime``, ``list``, ``dict`` with ``str`` keys); anything else
        raises ``TypeError`` naming the key and the type. ``None`` deletes the key.
        """
        if value is None:
            self.delete(key)
            return
        _check_key(key)
        bplist.check_value(key, value)
        self._check_rule(key, value)

        def body(values: dict[str, Any]) -> None:
            values[key] = value

        self._commit(body)

    def delete(self, key: str) -> None:
        """Removes ``key`` from the domain's file, committed durably before returning (the file is removed when empty)."""
        _check_key(key)
        self._commit(lambda values: values.pop(key, None))

    def transaction(self) -> "Transaction":
        """A context manager whose value is the domain's own values, read and committed under the lock as one commit."""
        return Transaction(self)

    def watch(self, callback: Callable[[str, Any, Any], None]) -> "Any":
        """Calls ``callback(key, old, new)`` on the watcher thread for every change of a resolved value, from any process.

        Returns a handle with ``close()`` (also a context manager).
        """
        from .watch import watch_domain
        return watch_domain(self, callback)

    def __repr__(self) -> str:
        return f"Domain({self.name!r})"


def resolve(layers: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Merges layer values, first layer winning."""
    result: dict[str, Any] = {}
    for _, values in reversed(layers):
        result.update(values)
    return result


def _after_commit() -> None:
    watch = sys.modules.get("swift_preferences.watch")
    if watch is not None:
        watch.directory_may_have_appeared()


def _check_key(key: Any) -> None:
    if not isinstance(key, str):
        raise TypeError(f"a preference key must be a str, not {type(key).__name__}")


class Transaction(MutableMapping[str, Any]):
    """The domain's own values under its lock; committed as one commit when the ``with`` block ends without an exception."""

    def __init__(self, domain: Domain) -> None:
        self._domain = domain
        self._session: LockedCommit | None = None
        self._values: dict[str, Any] = {}

    def __enter__(self) -> "Transaction":
        domain = self._domain
        self._session = LockedCommit(domain.file, domain._policy(), fallback=domain._last_good,
                                     runtime_directory=domain.locations.runtime_directory)
        self._values = dict(self._session.before)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        session, self._session = self._session, None
        if session is None:
            return
        if kind is not None:
            session.abort()
            return
        outcome = session.finish(self._values)
        self._domain._last_good = dict(outcome.values)
        _after_commit()

    def _live(self) -> dict[str, Any]:
        if self._session is None:
            raise PreferencesError("the transaction is not open: use it inside its with block")
        return self._values

    def __getitem__(self, key: str) -> Any:
        return self._live()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        _check_key(key)
        bplist.check_value(key, value)
        self._domain._check_rule(key, value)
        self._live()[key] = value

    def __delitem__(self, key: str) -> None:
        del self._live()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._live()))

    def __len__(self) -> int:
        return len(self._live())

    def __contains__(self, key: object) -> bool:
        return key in self._live()
