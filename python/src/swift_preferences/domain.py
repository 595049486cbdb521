"""The public API: a domain, its search list, its writes and transactions."""

from __future__ import annotations

import dataclasses

import os
import sys
import threading
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from . import bplist
from .errors import InvalidValue, PreferencesError
from .files import DomainFile, FilePolicy, LockedCommit, commit
from .locations import GLOBAL_FILE_STEM, Locations, file_stem, validate_domain_name
from .schema import Schema, SchemaCache
from .snapshot import LayerState, read_layer, report

_MISSING = object()


@dataclass(frozen=True)
class Layer:
    """One layer of a domain's search list: its name, its file and the policy it is read under."""

    name: str
    file: DomainFile | None
    policy: FilePolicy
    values: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Resolution:
    """The search list resolved: each key's winning value and the name of the layer it comes from."""

    values: dict[str, Any]
    winners: dict[str, str]
    invalid: list[InvalidValue]


class Domain:
    """A preferences domain (``com.example.editor``, or ``NSGlobalDomain``).

    Reads resolve through the whole search list: managed (forced), the domain by-host then any
    host, the global domain by-host then any host, the system defaults of the domain and the
    system global domain, then the declared defaults of the domain's schema. Writes go to the
    domain's own file (any host) and are committed durably by the protocol before they return.

    Reads are lenient, as the Swift store's: a refused layer file (link, foreign owner,
    group/other-writable, not regular, too large) reads as absent, a corrupt one as its newest
    history generation that decodes (or as empty); each problem is logged once per file version
    on the ``swift_preferences`` logger and listed by :meth:`problems`. A stored value that
    breaks its key's declared rule is passed over (the next layer's value, or the declared
    default, wins) and left in its file. ``own()`` is strict and raises instead.

    Each layer's decoded values are kept, keyed by its file's identity: a read when nothing
    changed costs one ``lstat`` per layer file (and per schema candidate up to the one found).
    """

    def __init__(self, name: str, environment: Mapping[str, str] | None = None, *, size_limit: int = 1 << 20,
                 lock_timeout: float = 10.0, generation_limit: int = 32, generation_byte_limit: int = 8 << 20) -> None:
        """Resolves the domain's directories from ``environment`` (default ``os.environ``), as the Swift library does.

        The limits are the Swift ``PreferenceStore.Configuration``'s, with its defaults:
        ``size_limit`` (bytes) the largest file read or written (PROTOCOL.md E4);
        ``lock_timeout`` (seconds) how long a write waits for another writer's lock (L3);
        ``generation_limit`` and ``generation_byte_limit`` the history's bounds (H3), 0 keeping none.
        """
        if size_limit <= 0 or lock_timeout < 0 or generation_limit < 0 or generation_byte_limit < 0:
            raise ValueError("size_limit must be positive; lock_timeout, generation_limit and generation_byte_limit not negative")
        self.name = validate_domain_name(name)
        self.environment: Mapping[str, str] = dict(os.environ if environment is None else environment)
        self.locations = Locations.from_environment(self.environment)
        self.stem = file_stem(name)
        self.is_global = self.stem == GLOBAL_FILE_STEM
        self.user_policy = FilePolicy(size_limit=size_limit, lock_timeout=lock_timeout, generation_limit=generation_limit,
                                      generation_byte_limit=generation_byte_limit)
        self.system_policy = FilePolicy.system()
        self.system_policy.size_limit = size_limit
        self._last_good: dict[str, Any] = {}
        self._schemas = SchemaCache(self.name, self.environment, self.locations.home_directory)
        self._file_layers = self._make_file_layers()
        self._lock = threading.Lock()
        self._states: list[LayerState | None] = [None] * len(self._file_layers)
        self._resolved_from: tuple[Any, ...] | None = None
        self._resolution = Resolution({}, {}, [])

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

    def _make_file_layers(self) -> list[Layer]:
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
        return [layer for layer in result if layer.file is not None]

    def layers(self) -> list[Layer]:
        """The search list, first hit wins (the declared defaults last)."""
        return [*self._file_layers, Layer("declared", None, self.user_policy, dict(self.schema().defaults))]

    def schema(self) -> Schema:
        """The domain's declared settings (private keys, defaults, rules), parsed again only when the schema file changed."""
        return self._schemas.get()

    def _refresh(self) -> tuple[list[LayerState], Schema, Resolution]:
        """Brings every layer's snapshot up to date (one ``lstat`` each when nothing changed) and resolves them."""
        with self._lock:
            states = []
            for position, layer in enumerate(self._file_layers):
                state = read_layer(layer.file, layer.policy, self._states[position])  # type: ignore[arg-type]
                self._states[position] = state
                states.append(state)
            schema = self.schema()
            # By identity (the objects are kept, so never reused): a version confirmed again
            # keeps its values object.
            source = (schema, *(state.values for state in states))
            known = self._resolved_from
            if known is None or len(known) != len(source) or any(a is not b for a, b in zip(source, known)):
                layers = [(layer.name, layer.file.path if layer.file else None, state.values)
                          for layer, state in zip(self._file_layers, states)]
                layers.append(("declared", None, schema.defaults))
                self._resolution = resolve_layers(layers, schema, self.name)
                self._resolved_from = source
            return states, schema, self._resolution

    def layer_values(self, strict: bool = False) -> list[tuple[str, dict[str, Any]]]:
        """Every layer's values as reads see them, in search order; with ``strict``, a layer's problem is raised."""
        states, schema, _ = self._refresh()
        result = []
        for layer, state in zip(self._file_layers, states):
            if strict and state.problem is not None:
                raise _fresh(state.problem)
            result.append((layer.name, detached(state.values)))
        result.append(("declared", detached(schema.defaults)))
        return result

    def problems(self) -> list[PreferencesError]:
        """The current problems of every layer, without raising: refused or unreadable files
        (:class:`RefusedFile`, :class:`TooLarge`, :class:`PreferencesError`), corrupt ones
        (:class:`Corrupt`, with ``generation`` and ``generation_path`` when a generation is
        served instead), and stored values that break their key's declared rule
        (:class:`InvalidValue`)."""
        states, _, resolution = self._refresh()
        result = [state.problem for state in states if state.problem is not None]
        return [_fresh(problem) for problem in [*result, *resolution.invalid]]

    # MARK: Reading

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` from the first layer of the search list that has a valid one (the declared default last), else ``default``."""
        value = self._refresh()[2].values.get(key, _MISSING)
        return default if value is _MISSING else detached(value)

    def to_dict(self) -> dict[str, Any]:
        """The domain's resolved values: every key of every layer, each from the first layer that has a valid one."""
        values: dict[str, Any] = detached(self._refresh()[2].values)
        return values

    def own(self, strict: bool = True) -> dict[str, Any]:
        """The domain file's own values (the user layer, any host).

        Strict by default: a refused or corrupt file raises its :class:`PreferencesError`. With
        ``strict=False`` it reads as the other layers do (absent, or its newest good generation).
        """
        position = next(i for i, layer in enumerate(self._file_layers) if layer.name == "domain")
        state = self._refresh()[0][position]
        if strict and state.problem is not None:
            raise _fresh(state.problem)
        values: dict[str, Any] = detached(state.values)
        if state.problem is None:
            self._last_good = detached(state.values)
        return values

    def is_forced(self, key: str) -> bool:
        """Whether ``key``'s value comes from the managed layer."""
        return self._refresh()[2].winners.get(key) == "managed"

    # MARK: Writing

    def _policy(self) -> FilePolicy:
        return dataclasses.replace(self.user_policy, private_keys=self.schema().private_keys)

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
    """Merges layer values, first layer winning (no declared rules)."""
    result: dict[str, Any] = {}
    for _, values in reversed(layers):
        result.update(values)
    return result


def resolve_layers(layers: list[tuple[str, str | None, Mapping[str, Any]]], schema: Schema, domain: str) -> Resolution:
    """Resolves ``(name, path, values)`` layers in search order, first valid hit winning.

    A stored value that breaks its key's declared rule is passed over (as the Swift
    ``ResolvedValues`` does): the next layer's value, or the declared default, wins; it is
    reported once (its value left out of the log for a private key) and stays in its file. The
    declared defaults (the layer named ``declared``) are never checked.
    """
    values: dict[str, Any] = {}
    winners: dict[str, str] = {}
    invalid: list[InvalidValue] = []
    rules = schema.rules
    for name, path, layer in reversed(layers):
        checked = bool(rules) and name != "declared"
        for key, value in layer.items():
            if checked and key in rules:
                problem = schema.violation(key, value)
                if problem is not None:
                    invalid.append(_invalid_stored(domain, schema, key, value, problem, path))
                    continue
            values[key] = value
            winners[key] = name
    invalid.reverse()
    return Resolution(values, winners, invalid)


def _invalid_stored(domain: str, schema: Schema, key: str, value: Any, problem: str, path: str | None) -> InvalidValue:
    if key in schema.private_keys:
        shown = f"{key} breaks its declared rule (the value is not shown: the key is private)"
    else:
        shown = f"{key} breaks its declared rule: {problem}"
    message = (f"{domain}: the stored value of {shown}, in {path}; reads pass over it (to the next layer's value "
               f"or the declared default), and the file is left as it is")
    report(("invalid", path, key, type(value).__name__, repr(value)), "%s", message)
    return InvalidValue(message, path=path)


def detached(value: Any) -> Any:
    """``value`` with its lists and dictionaries copied, so a caller's change never reaches a snapshot."""
    if isinstance(value, dict):
        return {key: detached(element) for key, element in value.items()}
    if isinstance(value, list):
        return [detached(element) for element in value]
    return value


def _fresh(problem: PreferencesError) -> PreferencesError:
    """A new exception like ``problem`` (a kept one is never raised twice: its traceback would grow)."""
    error = problem.__class__.__new__(problem.__class__)
    error.args = problem.args
    error.__dict__.update(problem.__dict__)
    return error


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
