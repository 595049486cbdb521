import Foundation

/// Whether the long (soak) versions of the counted tests run: `RELIABILITY_SOAK=1`, set by
/// `Tests/Scripts/soak.sh`.
///
/// A test whose confidence grows with a count (commits heard in order, increments never
/// lost, processes killed at random) runs the count in the soak and a smaller one in
/// the test command, which must stay within its time budget on the 2-core machine: the
/// behaviour asserted is the same, only the number of tries differs. RELIABILITY.md gives both.
package let isSoak = ProcessInfo.processInfo.environment["RELIABILITY_SOAK"] == "1"

/// `soak` in the soak, `command` in the test command (see ``isSoak``).
package func soakCount(_ soak: Int, command: Int) -> Int {
    isSoak ? soak : command
}
