"""The Python writer of Tests/Scripts/power-loss.sh (`--writer python`): exactly what
`PreferencesWorker power-loss-writer DOMAIN W COUNT` does (Tests/PreferencesWorker/
PowerLossCommands.swift), through the `swift_preferences` package.

    python3 Tests/Scripts/power-loss-writer.py DOMAIN W COUNT

COUNT rounds on DOMAIN, keeping at most 2 generations (so every commit prunes one): round n
sets `wW` to n (a durable commit); every third round is also a transaction setting `tWa` and
`tWb` to n together. After a commit returns, `access` on `/swift-preferences-flushed/W/KEY/n`
marks the point in the trace from which the value must survive a power cut.

PREFERENCES_TEST_OMIT_SYNC=file|directory (power-loss.sh --omit) takes out a sync of the
package's commit, as the Swift library's debug builds do, to show that the harness sees the
Python writer's syncs: `file` drops the new file's fsync before its rename,
`directory` the domain directory's fsync after the rename (never the commit counter's).
"""

import os
import stat
import sys

from swift_preferences import Domain
from swift_preferences import files

GENERATION_LIMIT = 2


def omit_sync(which, directory, temporary_prefix):
    """Fault injection for power-loss.sh --omit, by replacing the package's sync calls."""
    if which == "file":
        real_fsync = os.fsync

        def fsync(descriptor):
            # Only a commit's new file (`.F.tmp-<pid>-<n>`): the commit counter's own
            # temporary is synced as ever.
            name = os.path.basename(os.readlink("/proc/self/fd/%d" % descriptor))
            if not name.startswith(temporary_prefix):
                real_fsync(descriptor)

        os.fsync = fsync
    elif which == "directory":
        real_sync_directory = files._fsync_directory

        def sync_directory(path):
            if os.path.abspath(path) != os.path.abspath(directory):
                real_sync_directory(path)

        files._fsync_directory = sync_directory
    elif which:
        sys.exit("power-loss-writer.py: PREFERENCES_TEST_OMIT_SYNC is file or directory")


def main(domain, writer, count):
    # The Swift writer's `PreferenceStore.Configuration(generationLimit: 2)`.
    preferences = Domain(domain, generation_limit=GENERATION_LIMIT)
    omit_sync(os.environ.get("PREFERENCES_TEST_OMIT_SYNC", ""), preferences.file.directory, preferences.file.temporary_prefix)

    def mark(key, value):
        # os.access with no dir_fd or flags is the plain access(2) call the trace looks for.
        os.access("/swift-preferences-flushed/%s/%s/%d" % (writer, key, value), os.F_OK)

    for round_number in range(1, max(int(count), 1) + 1):
        preferences.set("w%s" % writer, round_number)
        mark("w%s" % writer, round_number)
        if round_number % 3 == 0:
            with preferences.transaction() as t:
                t["t%sa" % writer] = round_number
                t["t%sb" % writer] = round_number
            mark("t%sa" % writer, round_number)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: power-loss-writer.py DOMAIN WRITER COUNT")
    main(*sys.argv[1:])
