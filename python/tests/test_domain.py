"""The on-disk protocol through the public API: reads, writes, refusals, history, privacy, protocol versions."""

from __future__ import annotations

import datetime
import multiprocessing
import os
import plistlib
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from swift_preferences import (Corrupt, Domain, InvalidDomainName, PreferencesError, RefusedFile, TooLarge, UnsupportedProtocolVersion,
                               bplist, protocol_version)
from swift_preferences.files import COMMIT_RECORD_ATTRIBUTE, parse_commit_record

DOMAIN = "com.example.test"


def listing(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry under root with its mode and, for files, its bytes."""
    result = {}
    for path in sorted(root.rglob("*")):
        status = path.lstat()
        result[str(path.relative_to(root))] = (status.st_mode, path.read_bytes() if path.is_file() and not path.is_symlink() else None)
    return result


def test_set_get_delete_every_type(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    values = {"s": "text", "i": -3, "f": 2.5, "b": True, "x": b"\x00\xff", "d": datetime.datetime(2020, 1, 2, tzinfo=datetime.timezone.utc),
              "a": [1, "2"], "m": {"k": [True]}}
    for key, value in values.items():
        d.set(key, value)
    fresh = Domain(DOMAIN)
    for key, value in values.items():
        assert bplist.same(fresh.get(key), value), key
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    assert path.stat().st_mode & 0o777 == 0o600
    assert plistlib.loads(path.read_bytes())["s"] == "text"
    d.delete("s")
    assert fresh.get("s", "gone") == "gone"
    with pytest.raises(TypeError, match="'bad'.*object"):
        d.set("bad", object())


def test_removing_the_last_key_removes_the_file(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("only", 1)
    d.delete("only")
    assert not (env["PREFERENCES_HOME"] / f"{DOMAIN}.plist").exists()
    # The removed version is still kept as a generation.
    assert (env["PREFERENCES_HOME"] / f".{DOMAIN}.plist.history" / "1.plist").exists()


def test_domain_names_are_checked_before_any_file_call(env: dict[str, Path]) -> None:
    for name in ["", ".hidden", "a/b", "a b", "é", "x" * 201]:
        with pytest.raises(InvalidDomainName):
            Domain(name)
    assert list(env["PREFERENCES_HOME"].iterdir()) == []


def test_search_list_order(env: dict[str, Path]) -> None:
    system = env["PREFERENCES_SYSTEM_DIR"]
    (system / "managed").mkdir()
    (system / f"{DOMAIN}.plist").write_bytes(bplist.encode({"sys": 1, "both": "system", "forced": "system"}))
    (system / ".GlobalPreferences.plist").write_bytes(bplist.encode({"sysglobal": 1}))
    (system / "managed" / f"{DOMAIN}.plist").write_bytes(bplist.encode({"forced": "managed"}))
    Domain("NSGlobalDomain").set("global", 1)
    d = Domain(DOMAIN)
    d.set("both", "user")
    d.set("forced", "user")
    assert d.get("both") == "user" and d.get("forced") == "managed" and d.get("sys") == 1
    assert d.get("sysglobal") == 1 and d.get("global") == 1 and d.is_forced("forced")
    assert (env["PREFERENCES_HOME"] / ".GlobalPreferences.plist").exists()
    machine = Domain(DOMAIN).locations.machine_id
    if machine:
        by_host = env["PREFERENCES_HOME"] / "ByHost"
        by_host.mkdir()
        (by_host / f"{DOMAIN}.{machine}.plist").write_bytes(bplist.encode({"both": "byhost"}))
        os.chmod(by_host / f"{DOMAIN}.{machine}.plist", 0o600)
        assert d.get("both") == "byhost"
    assert d.to_dict()["sysglobal"] == 1


def _plant(env: dict[str, Path], data: bytes, mode: int = 0o600) -> Path:
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    path.write_bytes(data)
    os.chmod(path, mode)
    return path


def test_symlink_is_refused(env: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "target.plist"
    target.write_bytes(bplist.encode({"a": 1}))
    (env["PREFERENCES_HOME"] / f"{DOMAIN}.plist").symlink_to(target)
    assert Domain(DOMAIN).get("a", "absent") == "absent"
    with pytest.raises(RefusedFile, match="symbolic link"):
        Domain(DOMAIN).own()
    with pytest.raises(RefusedFile):
        Domain(DOMAIN).set("a", 2)
    assert bplist.decode(target.read_bytes()) == {"a": 1}


def test_group_writable_file_is_refused(env: dict[str, Path]) -> None:
    _plant(env, bplist.encode({"a": 1}), 0o666)
    assert Domain(DOMAIN).get("a") is None
    with pytest.raises(RefusedFile, match="writable"):
        Domain(DOMAIN).own()


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_foreign_owner_is_refused(env: dict[str, Path]) -> None:
    path = _plant(env, bplist.encode({"a": 1}))
    os.chown(path, 12345, 12345)
    assert Domain(DOMAIN).get("a") is None
    with pytest.raises(RefusedFile, match="uid 12345"):
        Domain(DOMAIN).own()


def test_oversize_file_is_refused(env: dict[str, Path]) -> None:
    _plant(env, b"bplist00" + b"\x00" * (1 << 20))
    assert Domain(DOMAIN).get("a") is None
    with pytest.raises(TooLarge):
        Domain(DOMAIN).own()


def test_too_large_write_is_refused(env: dict[str, Path]) -> None:
    with pytest.raises(TooLarge):
        Domain(DOMAIN).set("big", b"x" * (1 << 20))
    assert not (env["PREFERENCES_HOME"] / f"{DOMAIN}.plist").exists()


@pytest.mark.parametrize("data", [b"garbage", b"bplist00\xa1\x00\x00", bplist.encode([1, 2]),
                                  plistlib.dumps({"xml": "hand written"})])
def test_corrupt_files_are_refused_and_kept_aside_on_write(env: dict[str, Path], data: bytes) -> None:
    path = _plant(env, data)
    old = time.time() - 5
    os.utime(path, (old, old))
    assert Domain(DOMAIN).get("a") is None
    with pytest.raises(Corrupt):
        Domain(DOMAIN).own()
    Domain(DOMAIN).set("a", 1)
    aside = [p for p in env["PREFERENCES_HOME"].iterdir() if p.name.startswith(f"{DOMAIN}.plist.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == data
    assert Domain(DOMAIN).own() == {"a": 1}


def _increment(count: int) -> None:
    d = Domain(DOMAIN)
    for _ in range(count):
        with d.transaction() as t:
            t["n"] = t.get("n", 0) + 1


def test_concurrent_writers_lose_nothing(env: dict[str, Path]) -> None:
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_increment, args=(150,)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert Domain(DOMAIN).get("n") == 600


def test_transaction_is_atomic(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("a", 1)
    before = listing(env["PREFERENCES_HOME"])
    with pytest.raises(RuntimeError):
        with d.transaction() as t:
            t["a"] = 2
            t["b"] = 3
            del t["a"]
            raise RuntimeError("cancel")
    assert listing(env["PREFERENCES_HOME"]) == before
    with d.transaction() as t:
        assert "a" in t and len(t) == 1 and list(t) == ["a"] and t.get("zz", 9) == 9
        t["a"] = 2
        t["b"] = 3
    assert d.own() == {"a": 2, "b": 3}


def test_history_generations_are_hard_links_numbered_as_swift(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    home = env["PREFERENCES_HOME"]
    history = home / f".{DOMAIN}.plist.history"
    d.set("k", 1)                               # writes sequence 1, keeps nothing
    assert not history.exists()
    first = (home / f"{DOMAIN}.plist").stat()
    record = parse_commit_record(os.getxattr(home / f"{DOMAIN}.plist", COMMIT_RECORD_ATTRIBUTE))
    assert record is not None and record[0] == 1 and record[1] == os.getpid() and record[2] == first.st_mtime_ns
    d.set("k", 2)                               # keeps version 1 as 1.plist, writes sequence 2
    kept = (history / "1.plist").stat()
    assert (kept.st_ino, kept.st_dev) == (first.st_ino, first.st_dev) and kept.st_nlink == 1
    d.set("k", 3)
    assert sorted(p.name for p in history.iterdir()) == ["1.plist", "2.plist"]
    assert parse_commit_record(os.getxattr(home / f"{DOMAIN}.plist", COMMIT_RECORD_ATTRIBUTE))[0] == 3
    # A hand edit drops the record's validity: the next generation number is highest + 1.
    (home / f"{DOMAIN}.plist").write_bytes(bplist.encode({"k": 4}))
    d.set("k", 5)
    assert sorted(p.name for p in history.iterdir()) == ["1.plist", "2.plist", "3.plist"]
    assert bplist.decode((history / "3.plist").read_bytes()) == {"k": 4}
    for _ in range(40):
        d.set("k", d.get("k") + 1)
    assert len(list(history.iterdir())) == 32


def test_generation_past_the_bounds_is_recycled_as_the_next_version(env: dict[str, Path]) -> None:
    """H3: a commit writes its new version over the oldest generation past the bounds (not the
    newest kept before it), as the Swift writer does, instead of creating a new inode."""
    d = Domain(DOMAIN, generation_limit=2)
    home = env["PREFERENCES_HOME"]
    history = home / f".{DOMAIN}.plist.history"
    for value in range(1, 5):
        d.set("k", value)                       # versions 1-4; generations 2 and 3 kept
    assert sorted(p.name for p in history.iterdir()) == ["2.plist", "3.plist"]
    oldest = (history / "2.plist").stat()
    d.set("k", "a longer value than the recycled file held")   # keeps 4, recycles 2 as version 5
    assert sorted(p.name for p in history.iterdir()) == ["3.plist", "4.plist"]
    current = (home / f"{DOMAIN}.plist").stat()
    assert (current.st_ino, current.st_dev) == (oldest.st_ino, oldest.st_dev) and current.st_nlink == 1
    assert bplist.decode((home / f"{DOMAIN}.plist").read_bytes()) == {"k": "a longer value than the recycled file held"}
    record = parse_commit_record(os.getxattr(home / f"{DOMAIN}.plist", COMMIT_RECORD_ATTRIBUTE))
    assert record is not None and record[0] == 5 and record[2] == current.st_mtime_ns
    d.set("k", 6)                               # shorter than what it is written over: cut to length
    assert bplist.decode((home / f"{DOMAIN}.plist").read_bytes()) == {"k": 6}
    assert not [n for n in os.listdir(home / ".swift-preferences-staging")]
    with pytest.raises(ValueError):
        Domain(DOMAIN, generation_limit=-1)


def test_private_key_never_reaches_a_generation(env: dict[str, Path]) -> None:
    (env["PREFERENCES_SCHEMA_PATH"] / f"{DOMAIN}.plist").write_bytes(plistlib.dumps(
        {"Keys": {"Token": {"Type": "string", "Private": True}, "Name": {"Type": "string"}}}))
    d = Domain(DOMAIN)
    d.set("Token", "secret-value-1")
    d.set("Name", "n1")
    d.set("Token", "secret-value-2")
    history = env["PREFERENCES_HOME"] / f".{DOMAIN}.plist.history"
    for generation in history.iterdir():
        data = generation.read_bytes()
        assert b"secret-value" not in data, generation.name
        assert "Token" not in bplist.decode(data)
    assert d.get("Token") == "secret-value-2"
    d.delete("Token")
    for path in list(history.iterdir()) + [env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"]:
        assert b"secret-value" not in path.read_bytes()


def test_private_value_planted_in_old_generation_is_purged_on_delete(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("Token", "early-secret")      # not yet declared private
    d.set("Other", 1)
    (env["PREFERENCES_SCHEMA_PATH"] / f"{DOMAIN}.bundle").mkdir()
    (env["PREFERENCES_SCHEMA_PATH"] / f"{DOMAIN}.bundle" / "Root.plist").write_bytes(plistlib.dumps(
        {"PreferenceSpecifiers": [{"Type": "PSTextFieldSpecifier", "Key": "Token", "IsSecure": True}]}))
    history = env["PREFERENCES_HOME"] / f".{DOMAIN}.plist.history"
    assert any(b"early-secret" in p.read_bytes() for p in history.iterdir())
    d.delete("Token")
    assert not any(b"early-secret" in p.read_bytes() for p in history.iterdir())


def test_protocol_marker_refuses_writes_and_changes_nothing(env: dict[str, Path]) -> None:
    home = env["PREFERENCES_HOME"]
    Domain(DOMAIN).set("a", 1)
    (home / ".swift-preferences-protocol").write_text("2\n")
    before = listing(home)
    runtime_before = listing(env["XDG_RUNTIME_DIR"])
    for write in (lambda d: d.set("a", 2), lambda d: d.delete("a"), lambda d: d.transaction().__enter__(),
                  lambda d: Domain("other.domain").set("x", 1)):
        with pytest.raises(UnsupportedProtocolVersion) as raised:
            write(Domain(DOMAIN))
        assert raised.value.found == 2 and raised.value.known == 1 and raised.value.directory == str(home)
        assert "version 2" in str(raised.value) and "version 1" in str(raised.value) and str(home) in str(raised.value)
    assert listing(home) == before
    assert listing(env["XDG_RUNTIME_DIR"]) == runtime_before
    assert Domain(DOMAIN).get("a") == 1
    assert protocol_version(str(home)) == 2
    (home / ".swift-preferences-protocol").write_text("banana")
    with pytest.raises(UnsupportedProtocolVersion):
        Domain(DOMAIN).set("a", 3)
    (home / ".swift-preferences-protocol").write_text(" 1 \n")
    Domain(DOMAIN).set("a", 3)
    assert protocol_version(str(env["PREFERENCES_SYSTEM_DIR"])) == 1


def test_commit_counter_is_raised(env: dict[str, Path]) -> None:
    from swift_preferences.counter import fnv1a64
    d = Domain(DOMAIN)
    d.set("a", 1)
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    counter = env["XDG_RUNTIME_DIR"] / "swift-preferences" / f"{DOMAIN}.plist-{fnv1a64(str(path)):016x}"
    data = counter.read_bytes()
    assert len(data) == 64 and data[:8] == b"SPCOMMIT" and data[8:12] == b"\x01\x00\x00\x00"
    value = int.from_bytes(data[16:20], "little")
    d.set("a", 2)
    assert int.from_bytes(counter.read_bytes()[16:20], "little") == value + 1


def test_crash_points_leave_old_or_new_file(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("k", "old")
    for point in ["locked", "temporary-written", "temporary-synced", "generation-kept", "renamed", "directory-synced"]:
        code = subprocess.run([sys.executable, "-c", f"from swift_preferences import Domain; Domain({DOMAIN!r}).set('k', {point!r})"],
                              env={**os.environ, "SWIFT_PREFERENCES_CRASH_AT": point}).returncode
        assert code == 137, point
        value = Domain(DOMAIN).get("k")
        assert value in ("old", point, Domain(DOMAIN).get("k"))
        expected_new = point in ("renamed", "directory-synced")
        assert (value == point) == expected_new, point
        d.set("k", "old")
    # Orphans of the killed writers are cleaned by the next commit.
    staging = env["PREFERENCES_HOME"] / ".swift-preferences-staging"
    assert [p.name for p in staging.iterdir()] == []


def test_declared_rules_refuse_invalid_values(env: dict[str, Path]) -> None:
    from swift_preferences import InvalidValue
    (env["PREFERENCES_SCHEMA_PATH"] / f"{DOMAIN}.plist").write_bytes(plistlib.dumps({"Keys": {
        "Size": {"Type": "integer", "Minimum": 1, "Maximum": 10, "Default": 5},
        "Mode": {"Type": "string", "Choices": ["a", "b"]},
        "Scale": {"Type": "real"}}}))
    d = Domain(DOMAIN)
    assert d.get("Size") == 5
    for key, value in [("Size", "big"), ("Size", 0), ("Size", 11), ("Size", True), ("Mode", "c")]:
        with pytest.raises(InvalidValue):
            d.set(key, value)
    d.set("Size", 7)
    d.set("Scale", 2)
    d.set("Undeclared", "anything")
    assert d.get("Size") == 7 and d.get("Scale") == 2


def test_a_write_nested_in_its_own_transaction_fails_at_once(env: dict[str, Path]) -> None:
    """A set inside this thread's open transaction of the same domain would wait for itself: it
    raises instead of hanging, and the transaction still commits."""
    d = Domain(DOMAIN, lock_timeout=30.0)
    done = threading.Event()
    failure: list[BaseException] = []

    def nested() -> None:
        try:
            with d.transaction() as t:
                t["a"] = 1
                with pytest.raises(PreferencesError, match="inside this thread's own open transaction"):
                    d.set("b", 2)
        except BaseException as error:  # noqa: BLE001 - reported below
            failure.append(error)
        done.set()

    thread = threading.Thread(target=nested, daemon=True)
    thread.start()
    assert done.wait(20), "the nested write hung"
    assert not failure, failure
    assert d.own() == {"a": 1}


def test_equal_reals_commit_nothing_as_in_swift(env: dict[str, Path]) -> None:
    """0.0 and -0.0 are one value, and so are two NaNs of one width (Swift's PropertyListValue ==):
    setting one over the other writes nothing."""
    d = Domain(DOMAIN)
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    d.set("zero", 0.0)
    d.set("nan", float("nan"))
    before = path.stat()
    d.set("zero", -0.0)
    d.set("nan", -float("nan"))
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_failed_directory_sync_still_raises_the_counter_and_prunes(env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the rename is done, the counter is raised (W11) and the history pruned (W13) whatever
    fails after; a directory sync that fails twice is reported as a PreferencesError (W12)."""
    from swift_preferences import counter as counters
    from swift_preferences import files
    d = Domain(DOMAIN, generation_limit=1)
    for value in range(3):
        d.set("k", value)
    history = env["PREFERENCES_HOME"] / f".{DOMAIN}.plist.history"
    assert sorted(p.name for p in history.iterdir()) == ["2.plist"]
    counter = counters.open_counter(str(env["PREFERENCES_HOME"]), f"{DOMAIN}.plist", str(env["XDG_RUNTIME_DIR"]))
    assert counter is not None
    raised_from = counter.value

    def failing(path: str) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(files, "_fsync_directory", failing)
    with pytest.raises(PreferencesError, match="could not be synced"):
        d.set("k", 3)
    assert counter.value == (raised_from + 1) & 0xFFFFFFFF
    assert sorted(p.name for p in history.iterdir()) == ["3.plist"]
    assert d.own() == {"k": 3}
