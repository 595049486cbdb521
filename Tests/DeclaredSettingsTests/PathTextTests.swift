import DeclaredSettings
import Testing

/// The package's one rule for trailing slashes, which every directory it is given goes through.
@Suite("Trailing slashes of a directory path")
struct PathTextTests {
    @Test("trailing slashes go, the root stays the root, and nothing else is touched")
    func trimming() {
        #expect("/a/b".trimmingTrailingSlashes() == "/a/b")
        #expect("/a/b/".trimmingTrailingSlashes() == "/a/b")
        #expect("/a/b///".trimmingTrailingSlashes() == "/a/b")
        #expect("/".trimmingTrailingSlashes() == "/")
        #expect("///".trimmingTrailingSlashes() == "/")
        #expect("".trimmingTrailingSlashes() == "")
        #expect("a/".trimmingTrailingSlashes() == "a")
        #expect("/a//b/".trimmingTrailingSlashes() == "/a//b")
        #expect("/ü/é/".trimmingTrailingSlashes() == "/ü/é")
        // A slash after a prepended mark is one character with it; only the slash goes.
        #expect("/x\u{0600}/".trimmingTrailingSlashes() == "/x\u{0600}")
        #expect(Substring("/srv/app/")[...].trimmingTrailingSlashes() == "/srv/app")
    }

    @Test("a name in a directory gets one slash, also under the root")
    func appending() {
        #expect("/etc".pathAppending("preferences") == "/etc/preferences")
        #expect("/etc//".pathAppending("preferences") == "/etc/preferences")
        #expect("/".pathAppending("etc") == "/etc")
        #expect("//".pathAppending("etc") == "/etc")
        #expect("/data".pathAppending("preferences/schemas") == "/data/preferences/schemas")
    }
}
