import FleetPolicy
import Foundation
import Preferences
import PropertyList
import Testing

/// The fleet layout and its merge (issue 21): which etcd keys apply to a machine, how host,
/// group and fleet policy combine per key, and what is refused with the previous policy kept.
@Suite("Fleet policy")
struct FleetPolicyTests {
    static let editor = try! DomainName("com.example.editor")

    static func xml(_ body: String) -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>\(body)</dict></plist>
            """.utf8)
    }

    static func binary(_ values: [String: PropertyListValue]) throws -> [UInt8] {
        Array(try BinaryPropertyListEncoder().encode(.dictionary(values)))
    }

    @Test("keys of the layout are read; others under the prefix are refused; keys outside it are not ours")
    func layout() throws {
        let fleet = try #require(try FleetKey(etcdKey: "/preferences/fleet/com.example.editor", prefix: "/preferences/"))
        #expect(fleet.scope == .fleet && fleet.domain == Self.editor)
        let group = try #require(try FleetKey(etcdKey: "/preferences/groups/lab/com.example.editor", prefix: "/preferences/"))
        #expect(group.scope == .group("lab"))
        let host = try #require(try FleetKey(etcdKey: "/preferences/hosts/ws-12/com.example.editor", prefix: "/preferences/"))
        #expect(host.scope == .host("ws-12") && host.description == "hosts/ws-12/com.example.editor")
        #expect(try FleetKey(etcdKey: "/other/fleet/com.example.editor", prefix: "/preferences/") == nil)
        for bad in [
            "/preferences/fleet/", "/preferences/fleet/.hidden", "/preferences/fleet/../../etc/passwd", "/preferences/fleet/a b",
            "/preferences/groups//com.example.editor", "/preferences/hosts/ws-12", "/preferences/users/me/com.example.editor",
            "/preferences/fleet/com.example.editor/extra",
        ] {
            #expect(throws: FleetKeyError.self, "\(bad)") { try FleetKey(etcdKey: bad, prefix: "/preferences/") }
        }
    }

    @Test("per key, the host beats the groups (later beats earlier), which beat the fleet")
    func precedence() throws {
        var policy = FleetPolicy(groups: ["lab", "kiosk"], hostname: "ws-12")
        try policy.put(
            key: "/preferences/fleet/com.example.editor",
            value: Self.xml("<key>Theme</key><string>light</string><key>Font</key><integer>12</integer><key>Tabs</key><true/>"),
            revision: 5)
        try policy.put(key: "/preferences/groups/lab/com.example.editor", value: Self.xml("<key>Theme</key><string>dark</string><key>Font</key><integer>14</integer>"), revision: 6)
        try policy.put(key: "/preferences/groups/kiosk/com.example.editor", value: try Self.binary(["Font": 18]), revision: 7)
        try policy.put(key: "/preferences/hosts/ws-12/com.example.editor", value: Self.xml("<key>Theme</key><string>solarized</string>"), revision: 8)
        // Another group's and another host's keys are passed over: not decoded (junk is not
        // refused), not kept, never applied.
        #expect(try policy.put(key: "/preferences/groups/office/com.example.editor", value: Self.xml("<key>Tabs</key><false/>"), revision: 9) == nil)
        #expect(try policy.put(key: "/preferences/hosts/ws-13/com.example.editor", value: Array("junk".utf8), revision: 10) == nil)
        #expect(try policy.put(key: "/preferences/hosts/ws-13/com.example.other", value: Self.xml(""), revision: 11) == nil)
        #expect(policy.entries.count == 4)

        #expect(policy.managedValues(of: Self.editor) == ["Theme": "solarized", "Font": 18, "Tabs": true])
        #expect(policy.sources(of: Self.editor).map(\.key) == [
            "/preferences/fleet/com.example.editor", "/preferences/groups/lab/com.example.editor",
            "/preferences/groups/kiosk/com.example.editor", "/preferences/hosts/ws-12/com.example.editor",
        ])
        #expect(policy.sources(of: Self.editor).map(\.revision) == [5, 6, 7, 8])
        #expect(policy.managedDomains == [Self.editor])

        // Deleting the host's key uncovers the groups' values; deleting all leaves no policy.
        policy.delete(key: "/preferences/hosts/ws-12/com.example.editor")
        #expect(policy.managedValues(of: Self.editor)?["Theme"] == "dark")
        for key in ["fleet", "groups/lab", "groups/kiosk"] { policy.delete(key: "/preferences/\(key)/com.example.editor") }
        #expect(policy.managedValues(of: Self.editor) == nil)
        #expect(policy.managedDomains.isEmpty)
    }

    @Test("a value that is not a property-list dictionary, or too large, is refused and the key keeps its previous value")
    func refusals() throws {
        var policy = FleetPolicy(hostname: "ws-12", sizeLimit: 256)
        let key = "/preferences/fleet/com.example.editor"
        try policy.put(key: key, value: Self.xml("<key>Theme</key><string>light</string>"), revision: 3)
        let bad: [(String, [UInt8])] = [
            ("not a property list", Array("Theme = dark".utf8)),
            ("a property list but not a dictionary", Array("<plist version=\"1.0\"><array><string>x</string></array></plist>".utf8)),
            ("truncated XML", Array(Self.xml("<key>Theme</key><string>dark</string>").dropLast(10))),
            ("truncated binary", Array(try Self.binary(["Theme": "dark"]).dropLast(3))),
            ("over the size limit", Self.xml("<key>Theme</key><string>\(String(repeating: "x", count: 300))</string>")),
            ("empty", []),
        ]
        for (what, value) in bad {
            let refusal = #expect(throws: FleetRefusal.self, "\(what)") { try policy.put(key: key, value: value, revision: 4) }
            #expect(refusal?.description.contains("previous policy is kept") == true)
            #expect(policy.managedValues(of: Self.editor) == ["Theme": "light"], "\(what)")
            #expect(policy.sources(of: Self.editor).map(\.revision) == [3], "\(what)")
        }
        // A new key whose first value is bad sets nothing.
        #expect(throws: FleetRefusal.self) {
            try policy.put(key: "/preferences/fleet/com.example.other", value: Array("junk".utf8), revision: 5)
        }
        #expect(policy.managedDomains == [Self.editor])
        // A key with an invalid domain name is refused, whatever its value.
        #expect(throws: FleetRefusal.self) {
            try policy.put(key: "/preferences/fleet/../etc", value: Self.xml(""), revision: 6)
        }
    }

    @Test("a resynchronisation after compaction replaces everything, keeping a refused key's previous value")
    func resynchronize() throws {
        var policy = FleetPolicy(prefix: "/p", hostname: "ws-12")
        #expect(policy.prefix == "/p/")
        try policy.put(key: "/p/fleet/com.example.editor", value: Self.xml("<key>A</key><integer>1</integer>"), revision: 2)
        try policy.put(key: "/p/fleet/com.example.gone", value: Self.xml("<key>B</key><integer>1</integer>"), revision: 3)
        try policy.put(key: "/p/fleet/com.example.broken", value: Self.xml("<key>C</key><integer>1</integer>"), revision: 4)
        let refusals = policy.resynchronize(with: [
            (key: "/p/fleet/com.example.editor", value: Self.xml("<key>A</key><integer>2</integer>"), revision: 20),
            (key: "/p/fleet/com.example.broken", value: Array("junk".utf8), revision: 21),
            (key: "/p/fleet/com.example.new", value: Self.xml("<key>D</key><integer>1</integer>"), revision: 22),
            (key: "/p/fleet/com.example.bad-new", value: Array("junk".utf8), revision: 23),
        ])
        #expect(refusals.map(\.key) == ["/p/fleet/com.example.broken", "/p/fleet/com.example.bad-new"])
        #expect(Set(policy.managedDomains.map(\.rawValue)) == ["com.example.editor", "com.example.broken", "com.example.new"])
        #expect(policy.managedValues(of: Self.editor) == ["A": 2])
        #expect(policy.managedValues(of: try DomainName("com.example.broken")) == ["C": 1])
        #expect(policy.managedValues(of: try DomainName("com.example.gone")) == nil)
    }
}
