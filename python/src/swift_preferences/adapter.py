"""The conformance adapter: ``python -m swift_preferences.adapter`` speaks the JSON-lines contract.

One request object per line on stdin, one answer per line on stdout in request order; watch
changes and "locked" are event lines interleaved with them. See the suite's contract
(``/work/notes/contract.md``, to become part of PROTOCOL.md).
"""

from __future__ import annotations

import base64
import json
import math
import os
import sys
import threading
import time
from typing import Any, TextIO

from . import files
from .bplist import PlistDate, Real32, date_seconds
from .domain import Domain, _check_key
from .errors import PreferencesError
from .files import CRASH_POINTS, LockedCommit
from .bplist import check_value

IMPLEMENTATION = "swift-preferences-python"


class InvalidRequest(Exception):
    """A request the adapter does not understand."""


def to_python(tagged: Any) -> Any:
    """A tagged JSON value as a Python property-list value."""
    if not isinstance(tagged, dict) or len(tagged) != 1:
        raise InvalidRequest(f"a value must be an object with exactly one key, not {tagged!r}")
    (tag, value), = tagged.items()
    if tag == "string" and isinstance(value, str):
        return value
    if tag == "integer" and isinstance(value, int) and not isinstance(value, bool):
        if not -(1 << 63) <= value <= (1 << 64) - 1:
            raise InvalidRequest(f"integer {value} is outside the int64/uint64 range")
        return value
    if tag == "real":
        if isinstance(value, str) and value in ("nan", "inf", "-inf"):
            return float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    if tag == "bool" and isinstance(value, bool):
        return value
    if tag == "date" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return PlistDate.from_seconds(float(value))
    if tag == "data" and isinstance(value, str):
        return base64.b64decode(value, validate=True)
    if tag == "array" and isinstance(value, list):
        return [to_python(element) for element in value]
    if tag == "dict" and isinstance(value, dict):
        return {key: to_python(element) for key, element in value.items()}
    raise InvalidRequest(f"unknown or malformed value {tagged!r}")


def to_tagged(value: Any) -> Any:
    """A Python property-list value as tagged JSON (None stays null)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"integer": value}
    if isinstance(value, float):
        if math.isnan(value):
            return {"real": "nan"}
        if math.isinf(value):
            return {"real": "inf" if value > 0 else "-inf"}
        return {"real": float(value)}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, (bytes, bytearray)):
        return {"data": base64.b64encode(bytes(value)).decode("ascii")}
    if hasattr(value, "year") and hasattr(value, "tzinfo"):
        return {"date": date_seconds(value)}
    if isinstance(value, list):
        return {"array": [to_tagged(element) for element in value]}
    if isinstance(value, dict):
        return {"dict": {key: to_tagged(element) for key, element in value.items()}}
    raise TypeError(f"cannot tag a {type(value).__name__}")


class Adapter:
    """One adapter session: the open watches and the output stream."""

    def __init__(self, output: TextIO) -> None:
        self.output = output
        self.output_lock = threading.Lock()
        self.watches: dict[str, Any] = {}

    def emit(self, message: dict[str, Any]) -> None:
        """Writes one JSON line."""
        line = json.dumps(message, ensure_ascii=False, allow_nan=False)
        with self.output_lock:
            self.output.write(line + "\n")
            self.output.flush()

    def handle(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """Answers one request (None: the adapter exits)."""
        op = request.get("op")
        method = getattr(self, "op_" + str(op).replace("-", "_"), None) if isinstance(op, str) else None
        if method is None:
            raise InvalidRequest(f"unknown op {op!r}")
        answer: dict[str, Any] | None = method(request)
        return answer

    @staticmethod
    def domain(request: dict[str, Any]) -> Domain:
        """The request's domain."""
        name = request.get("domain")
        if not isinstance(name, str):
            raise InvalidRequest("the request needs a string \"domain\"")
        return Domain(name)

    @staticmethod
    def key(request: dict[str, Any], field: str = "key") -> str:
        """The request's key (a string)."""
        key = request.get(field)
        if not isinstance(key, str):
            raise InvalidRequest(f"the request needs a string \"{field}\"")
        return key

    def op_hello(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "hello" request."""
        return {"implementation": IMPLEMENTATION, "protocol": files.PROTOCOL_VERSION, "crash_points": list(CRASH_POINTS)}

    def op_get(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "get" request."""
        return {"value": to_tagged(self.domain(request).get(self.key(request)))}

    def op_resolved(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "resolved" request."""
        return {"value": to_tagged(self.domain(request).to_dict())}

    def op_own(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "own" request."""
        return {"value": to_tagged(self.domain(request).own())}

    def op_set(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "set" request."""
        domain, key = self.domain(request), self.key(request)
        domain.set(key, to_python(request.get("value")))
        return {}

    def op_delete(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "delete" request."""
        self.domain(request).delete(self.key(request))
        return {}

    def op_transaction(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "transaction" request."""
        domain = self.domain(request)
        changes = request.get("set") or {}
        removals = request.get("delete") or []
        hold = request.get("hold_ms")
        if not isinstance(changes, dict) or not isinstance(removals, list) or not all(isinstance(k, str) for k in removals):
            raise InvalidRequest("a transaction has \"set\": {key: value} and \"delete\": [key]")
        if hold is not None and (not isinstance(hold, (int, float)) or isinstance(hold, bool) or hold < 0):
            raise InvalidRequest("\"hold_ms\" must be a non-negative number")
        values = {key: to_python(value) for key, value in changes.items()}
        for key, value in values.items():
            check_value(key, value)
        with domain.transaction() as transaction:
            if hold is not None:
                self.emit({"event": "locked", "id": request.get("id")})
                time.sleep(hold / 1000)
            for key, value in values.items():
                transaction[key] = value
            for key in removals:
                transaction.pop(key, None)
        return {}

    def op_increment(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "increment" request."""
        domain, key = self.domain(request), self.key(request)
        by = request.get("by", 1)
        count = request.get("count", 1)
        if not isinstance(by, int) or isinstance(by, bool) or not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InvalidRequest("\"by\" and \"count\" must be integers")
        last = None
        for _ in range(count):
            with domain.transaction() as transaction:
                current = transaction.get(key, 0)
                if isinstance(current, bool) or not isinstance(current, int):
                    raise InvalidRequest(f"the value of {key!r} is not an integer")
                last = current + by
                transaction[key] = last
        return {"value": last}

    def op_watch(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "watch" request."""
        domain = self.domain(request)
        if domain.name in self.watches:
            return {}
        name = domain.name

        def changed(key: str, old: Any, new: Any) -> None:
            self.emit({"event": "change", "domain": name, "key": key, "old": to_tagged(old), "new": to_tagged(new)})

        self.watches[name] = domain.watch(changed)
        return {}

    def op_unwatch(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "unwatch" request."""
        handle = self.watches.pop(self.domain(request).name, None)
        if handle is not None:
            handle.close()
        return {}

    def op_protocol_version(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "protocol_version" request."""
        directory = request.get("directory")
        if not isinstance(directory, str):
            raise InvalidRequest("the request needs a string \"directory\"")
        return {"version": files.protocol_version(directory)}

    def op_crash(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers the contract's "crash" request."""
        point = request.get("at")
        if point not in CRASH_POINTS:
            raise InvalidRequest(f"unknown crash point {point!r}; known: {', '.join(CRASH_POINTS)}")
        domain, key = self.domain(request), self.key(request)
        value = to_python(request.get("value"))

        def crash(reached: str) -> None:
            if reached == point:
                os._exit(137)

        files.crash_hook = crash
        try:
            domain.set(key, value)
        finally:
            files.crash_hook = None
        raise PreferencesError(f"the commit never reached the crash point {point!r} (nothing to write?)")

    def op_quit(self, request: dict[str, Any]) -> None:
        """Answers the contract's "quit" request."""
        return None


def main(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Runs the adapter until "quit" or end of input."""
    adapter = Adapter(stdout)
    for line in stdin:
        if not line.strip():
            continue
        request_id = None
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise InvalidRequest("a request must be a JSON object")
            request_id = request.get("id")
            answer = adapter.handle(request)
            if answer is None:
                adapter.emit({"id": request_id, "ok": True})
                break
            adapter.emit({"id": request_id, "ok": True, **answer})
        except PreferencesError as error:
            adapter.emit({"id": request_id, "ok": False, "error": {"kind": error.kind, "message": str(error)}})
        except (InvalidRequest, json.JSONDecodeError, TypeError, ValueError) as error:
            adapter.emit({"id": request_id, "ok": False, "error": {"kind": "invalid-request", "message": str(error)}})
        except OSError as error:
            adapter.emit({"id": request_id, "ok": False, "error": {"kind": "io", "message": str(error)}})
    for handle in list(adapter.watches.values()):
        handle.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
