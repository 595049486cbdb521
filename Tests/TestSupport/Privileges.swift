import Foundation
import Glibc

/// What the test process may do beyond an ordinary user's rights.
///
/// `swift test` must pass for any contributor: a test that needs root, a capability or a
/// kernel feature checks for it here and is skipped with a reason naming what is missing,
/// `.enabled(if: Privileges.canChangeOwners, "needs CAP_CHOWN ...")`.
/// Tests/Scripts/unprivileged-tests.sh runs the library tests as an ordinary user to keep it so.
package enum Privileges {
    /// Whether the process has capability number `capability` (a `CAP_*` value from
    /// linux/capability.h) in its effective set, as /proc/self/status reports it.
    ///
    /// The capability, not the user ID, decides: root in a container may lack one, and a
    /// process that is not root may have been given one.
    package static func hasCapability(_ capability: Int) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return capability < 64 && mask & (1 << UInt64(capability)) != 0
    }

    /// `CAP_CHOWN`: giving a file to another user, which tests of files and directories owned
    /// by someone else need (root has it, an ordinary user does not).
    package static let canChangeOwners = hasCapability(0)

    /// Whether this process may open /dev/fuse, which mounting a FUSE file system (bindfs)
    /// takes: libfuse opens the device itself and turns to the setuid `fusermount` only when
    /// the mount call is refused, not the open, so where /dev/fuse is root's alone (mode 0600,
    /// as some containers make it) an ordinary user cannot mount one at all.
    package static let canMountFUSE = access("/dev/fuse", R_OK | W_OK) == 0

    /// Whether a child process (strace) may attach to a thread of this one, as the injected
    /// fault tests have it do. Yama's `ptrace_scope` decides: absent or 0, any process of the
    /// same user may; 1 (Ubuntu's default) only a parent, which strace is not, and 2 only
    /// with `CAP_SYS_PTRACE`; 3 never.
    package static let canTraceOwnThreads: Bool = {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/yama/ptrace_scope", encoding: .utf8),
            let scope = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return true }
        switch scope {
        case 0: return true
        case 1, 2: return hasCapability(19)
        default: return false
        }
    }()

    /// Whether `unshare --user --map-root-user --mount` works here, which tests that mount
    /// file systems without root (a full tmpfs, a read-only bind) need: a kernel setting
    /// (`kernel.unprivileged_userns_clone`, AppArmor's restriction on Ubuntu) or a container's
    /// seccomp filter may forbid user namespaces, and trying is the one check that sees all
    /// of them. Without util-linux's unshare it answers yes, so the test itself fails and
    /// says to install it rather than being skipped.
    package static let canCreateUserNamespaces: Bool = {
        guard let unshare = installedProgram("unshare") else { return true }
        let arguments = ["--user", "--map-root-user", "--mount", "true"]
        guard let process = try? Subprocess(unshare, arguments, output: .nullDevice, errors: .nullDevice) else { return false }
        return process.wait() == 0
    }()
}
