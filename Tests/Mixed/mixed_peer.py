"""The Python side of the mixed-language tests: the same commands, with the same output lines, as
the Swift `PreferencesWorker`'s, written with the `swift_preferences` package only.

    python3 mixed_peer.py transact-increment DOMAIN KEY COUNT [KEY...]
        COUNT transactions, each reading every KEY under the lock and writing it back plus one
    python3 mixed_peer.py write-on-request DOMAIN KEY
        sets KEY to 0 and prints "ready"; then for each line N on stdin sets KEY to N (a durable
        commit) and only then prints N
    python3 mixed_peer.py observe-key DOMAIN KEY
        prints "ready", then "changed VALUE" for every change of KEY heard, until stdin closes

Directories come from the environment (PREFERENCES_HOME and the rest), as for any program.
"""

import sys

from swift_preferences import Domain


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def transact_increment(domain, key, count, *more):
    keys = (key,) + more
    # A starved writer must not give up (the Swift writers get PREFERENCES_WORKER_LOCK_TIMEOUT):
    # what is tested is that nothing is lost.
    preferences = Domain(domain, lock_timeout=120.0)
    for _ in range(int(count)):
        with preferences.transaction() as t:
            for name in keys:
                t[name] = t.get(name, 0) + 1


def write_on_request(domain, key):
    preferences = Domain(domain)
    # The domain's directory and file exist before the first request, as the Swift command's.
    preferences.set(key, 0)
    say("ready")
    for line in sys.stdin:
        value = int(line)
        preferences.set(key, value)
        say(str(value))


def observe_key(domain, key):
    def heard(changed, old, new):
        if changed == key:
            say("changed %s" % ("nil" if new is None else new))

    handle = Domain(domain).watch(heard)
    say("ready")
    sys.stdin.read()
    handle.close()


COMMANDS = {"transact-increment": transact_increment, "write-on-request": write_on_request, "observe-key": observe_key}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit("usage: mixed_peer.py transact-increment|write-on-request|observe-key DOMAIN ...")
    COMMANDS[sys.argv[1]](*sys.argv[2:])
