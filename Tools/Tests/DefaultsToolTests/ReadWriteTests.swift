import Foundation
import PropertyList
import Testing
import TestSupport

/// `write` with every type flag and `read` of what it wrote, through the real binary.
@Suite("defaults write and read", .ownThread)
struct ReadWriteTests {
    @Test("write -string, -int, -integer, -float, -bool, -boolean, -date, -data store typed values")
    func typedScalars() throws {
        let tool = try ToolFixture()
        let domain = "com.example.types"
        try tool.output(["write", domain, "s", "-string", "Hello world"])
        try tool.output(["write", domain, "i", "-int", "42"])
        try tool.output(["write", domain, "n", "-integer", "-7"])
        try tool.output(["write", domain, "f", "-float", "1.5"])
        try tool.output(["write", domain, "b", "-bool", "yes"])
        try tool.output(["write", domain, "B", "-boolean", "FALSE"])
        try tool.output(["write", domain, "d", "-date", "2024-01-02 03:04:05 +0000"])
        try tool.output(["write", domain, "x", "-data", "0fbd77a0"])
        let disk = try #require(try tool.onDisk(domain))
        #expect(disk["s"] == "Hello world")
        #expect(disk["i"] == 42)
        #expect(disk["n"] == -7)
        #expect(disk["f"] == .double(1.5))
        #expect(disk["b"] == true)
        #expect(disk["B"] == false)
        #expect(disk["d"] == .date(Date(timeIntervalSince1970: 1_704_164_645)))
        #expect(disk["x"] == .data(Data([0x0f, 0xbd, 0x77, 0xa0])))
        #expect(try tool.output(["read", domain, "s"]) == "Hello world\n")
        #expect(try tool.output(["read", domain, "i"]) == "42\n")
    }
}

/// The container flags, untyped values and whole-domain writes.
@Suite("defaults write: containers and property-list text", .ownThread)
struct WriteContainerTests {
    @Test("-array and -dict take elements, typed or untyped; -array-add and -dict-add extend")
    func containers() throws {
        let tool = try ToolFixture()
        let domain = "com.example.containers"
        try tool.output(["write", domain, "list", "-array", "a", "b c", "-int", "3", "(x, y)"])
        try tool.output(["write", domain, "list", "-array-add", "d", "-bool", "no"])
        try tool.output(["write", domain, "new", "-array-add", "first"])
        try tool.output(["write", domain, "map", "-dict", "k1", "v1", "k2", "-float", "0.5", "k3", "{ n = 1; }"])
        try tool.output(["write", domain, "map", "-dict-add", "k1", "replaced", "k4", "<true/>"])
        let disk = try #require(try tool.onDisk(domain))
        #expect(disk["list"] == ["a", "b c", 3, ["x", "y"], "d", false])
        #expect(disk["new"] == ["first"])
        #expect(disk["map"] == ["k1": "replaced", "k2": .double(0.5), "k3": ["n": "1"], "k4": true])
    }

    @Test("an untyped value is old-style text, an XML fragment, or a string")
    func untyped() throws {
        let tool = try ToolFixture()
        let domain = "com.example.untyped"
        try tool.output(["write", domain, "plist", "{ a = 1; b = (x, y); }"])
        try tool.output(["write", domain, "xml", "<integer>5</integer>"])
        try tool.output(["write", domain, "xmldict", "<dict><key>on</key><true/></dict>"])
        try tool.output(["write", domain, "hex", "<0fbd>"])
        try tool.output(["write", domain, "words", "hello world"])
        let disk = try #require(try tool.onDisk(domain))
        #expect(disk["plist"] == ["a": "1", "b": ["x", "y"]])
        #expect(disk["xml"] == 5)
        #expect(disk["xmldict"] == ["on": true])
        #expect(disk["hex"] == .data(Data([0x0f, 0xbd])))
        #expect(disk["words"] == "hello world")
    }

    @Test("write DOMAIN 'plist' replaces the whole domain")
    func wholeDomain() throws {
        let tool = try ToolFixture()
        let domain = "com.example.whole"
        try tool.output(["write", domain, "old", "-int", "1"])
        try tool.output(["write", domain, "{ a = 1; b = { c = d; }; }"])
        #expect(try tool.onDisk(domain) == ["a": "1", "b": ["c": "d"]])
        try tool.output(["write", domain, "<dict><key>n</key><integer>2</integer></dict>"])
        #expect(try tool.onDisk(domain) == ["n": 2])
    }

    @Test("-date takes defaults read's form, ISO 8601 and a day")
    func dates() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.d", "a", "-date", "2024-01-02 05:04:05 +0200"])
        try tool.output(["write", "com.example.d", "b", "-date", "2024-01-02T03:04:05Z"])
        try tool.output(["write", "com.example.d", "c", "-date", "2024-01-02"])
        let disk = try #require(try tool.onDisk("com.example.d"))
        #expect(disk["a"] == .date(Date(timeIntervalSince1970: 1_704_164_645)))
        #expect(disk["b"] == .date(Date(timeIntervalSince1970: 1_704_164_645)))
        #expect(disk["c"] == .date(Date(timeIntervalSince1970: 1_704_153_600)))
    }
}

/// The other verbs and the ways of naming a domain.
@Suite("defaults verbs", .ownThread)
struct VerbTests {
    @Test("-g, -globalDomain and NSGlobalDomain name the global domain's file")
    func globalDomain() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "-g", "a", "-int", "1"])
        try tool.output(["write", "-globalDomain", "b", "-int", "2"])
        try tool.output(["write", "NSGlobalDomain", "c", "-int", "3"])
        #expect(try tool.onDisk(".GlobalPreferences") == ["a": 1, "b": 2, "c": 3])
        #expect(try tool.output(["read", "-g", "b"]) == "2\n")
        #expect(try tool.output(["read", "-globalDomain"]) == "{\n    a = 1;\n    b = 2;\n    c = 3;\n}\n")
        // Also after the verb's options.
        #expect(try tool.output(["read", "--json", "-g", "a"]) == "1\n")
        #expect(try tool.output(["export", "--format", "xml", "-g", "-"]).contains("<key>c</key>"))
    }

    @Test("-currentHost reads and writes the by-host file only")
    func currentHost() throws {
        let tool = try ToolFixture()
        try tool.output(["-currentHost", "write", "com.example.host", "k", "-string", "here"])
        try tool.output(["write", "com.example.host", "k", "-string", "anywhere"])
        let byHost = try FileManager.default.contentsOfDirectory(atPath: tool.userDirectory + "/ByHost").filter { !$0.hasPrefix(".") }
        #expect(byHost.count == 1 && byHost[0].hasPrefix("com.example.host.") && byHost[0].hasSuffix(".plist"))
        #expect(try tool.output(["-currentHost", "read", "com.example.host", "k"]) == "here\n")
        #expect(try tool.output(["read", "com.example.host", "k"]) == "anywhere\n")
        #expect(try tool.output(["-currentHost", "domains"]) == "com.example.host\n")
        try tool.output(["-currentHost", "write", "-g", "k", "-int", "1"])
        #expect(try tool.output(["-currentHost", "read", "-g", "k"]) == "1\n")
    }

    @Test("a path to a .plist file is a domain, with or without the extension")
    func pathDomain() throws {
        let tool = try ToolFixture()
        let path = tool.directory.file("some/where/file.plist").path
        try FileManager.default.createDirectory(atPath: tool.directory.file("some/where").path, withIntermediateDirectories: true)
        try tool.output(["write", path, "k", "-int", "7"])
        #expect(try tool.output(["read", String(path.dropLast(6)), "k"]) == "7\n")
        #expect(try tool.output(["read", "./some/where/file.plist", "k"]) == "7\n")
        // A slash inside a word that is not clearly a path is a mistyped name, refused
        // before anything is created.
        let typo = try tool.run(["write", "com.example/app", "k", "v"])
        #expect(typo.status != 0)
        #expect(typo.stderr.contains("invalid domain 'com.example/app'"), "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tool.directory.file("com.example").path))
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try tool.output(["domains"]) == "\n")
    }

    @Test("a missing key prints Apple's message on stderr and exits 1")
    func missingKey() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.m", "present", "1"])
        let result = try tool.run(["read", "com.example.m", "absent"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "The domain/default pair of (com.example.m, absent) does not exist\n")
        let type = try tool.run(["read-type", "com.example.m", "absent"])
        #expect(type.status == 1)
        #expect(type.stderr == "The domain/default pair of (com.example.m, absent) does not exist\n")
        let domain = try tool.run(["read", "com.example.none"])
        #expect(domain.status == 1)
        #expect(domain.stderr == "Domain com.example.none does not exist\n")
    }

    @Test("rename moves a value; renaming a missing key fails and changes nothing")
    func rename() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.r", "old", "-int", "5"])
        try tool.output(["rename", "com.example.r", "old", "new"])
        #expect(try tool.onDisk("com.example.r") == ["new": 5])
        let missing = try tool.run(["rename", "com.example.r", "old", "other"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("Key old does not exist in domain com.example.r"))
        #expect(try tool.onDisk("com.example.r") == ["new": 5])
    }

    @Test("delete removes a key, then the domain and its file")
    func delete() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.del", "a", "1"])
        try tool.output(["write", "com.example.del", "b", "2"])
        try tool.output(["delete", "com.example.del", "a"])
        #expect(try tool.onDisk("com.example.del") == ["b": "2"])
        let missing = try tool.run(["delete", "com.example.del", "a"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "The domain/default pair of (com.example.del, a) does not exist\n")
        try tool.output(["delete", "com.example.del"])
        #expect(!FileManager.default.fileExists(atPath: tool.domainFile("com.example.del")))
        let gone = try tool.run(["delete", "com.example.del"])
        #expect(gone.status == 1)
        #expect(gone.stderr == "Domain (com.example.del) not found.\nDefaults have not been changed.\n")
    }

    @Test("domains prints every domain on one comma-separated line")
    func domains() throws {
        let tool = try ToolFixture()
        for domain in ["com.b", "com.a", "org.c"] { try tool.output(["write", domain, "k", "v"]) }
        try tool.output(["write", "-g", "k", "v"])
        #expect(try tool.output(["domains"]) == "com.a, com.b, org.c\n")
    }

    @Test("find lists the domains, keys and values that contain the word, per domain")
    func find() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.a", "Greeting", "Hello"])
        try tool.output(["write", "com.a", "other", "nothing"])
        try tool.output(["write", "com.b", "list", "-array", "x", "say hello"])
        #expect(try tool.output(["find", "HELLO"]) == """
            Found 1 keys in domain 'com.a': {
                Greeting = Hello;
            }
            Found 1 keys in domain 'com.b': {
                list =     (
                    x,
                    "say hello"
                );
            }

            """)
        #expect(try tool.output(["find", "absent"]) == "Found no keys matching 'absent'\n")
        // A domain whose name matches is listed whole.
        #expect(try tool.output(["find", "COM.A"]) == """
            Found 2 keys in domain 'com.a': {
                Greeting = Hello;
                other = nothing;
            }

            """)
    }

    @Test("help lists the verbs; help VERB and VERB --help explain one")
    func help() throws {
        let tool = try ToolFixture()
        let overview = try tool.output(["help"])
        for verb in ["read", "read-type", "write", "rename", "delete", "domains", "find", "import", "export", "watch", "explain", "edit"] {
            #expect(overview.contains("  \(verb) "), "help does not list \(verb)")
        }
        #expect(try tool.output(["help", "write"]).contains("-array-add"))
        #expect(try tool.output(["write", "--help"]).contains("-array-add"))
        #expect(try tool.output(["--help"]).contains("-currentHost"))
    }
}
