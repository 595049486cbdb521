import Foundation
import PropertyList
import Testing
import TestSupport

/// `export` and `import`: lossless round trips, and files Python's plistlib reads and writes.
@Suite("defaults export and import", .ownThread)
struct ExportImportTests {
    /// Every type, nested, including a date with a fraction of a second and a 32-bit real.
    static let everything: PropertyListValue = [
        "bool": true, "int": 42, "negative": -5, "big": .integer(PropertyListInteger(UInt64.max)),
        "double": 0.1, "float": .float(1.25), "string": "café \"quoted\"", "empty": "",
        "date": .date(Date(timeIntervalSinceReferenceDate: 725_857_445.25)),
        "data": .data(Data((0..<40).map { UInt8($0) })),
        "array": ["a", 1, ["nested", ["k": false]]], "dict": ["inner": ["deep": []], "e": [:]],
    ]

    /// Plants `everything` as a domain file (binary, as the library writes).
    func planted() throws -> ToolFixture {
        let tool = try ToolFixture()
        try tool.plant(try BinaryPropertyListEncoder().encode(Self.everything), domain: "com.example.all")
        return tool
    }

    @Test("export to a file (binary) then import is lossless, bit for bit")
    func binaryRoundTrip() throws {
        let tool = try planted()
        let file = tool.directory.file("export.plist").path
        try tool.output(["export", "com.example.all", file])
        #expect(FileManager.default.contents(atPath: file)?.starts(with: Array("bplist00".utf8)) == true)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600, "exports are as private as domain files")
        try tool.output(["import", "com.example.copy", file])
        #expect(try tool.onDisk("com.example.copy") == Self.everything.dictionaryValue)
    }

    @Test("export - (XML) piped into import - is lossless")
    func xmlRoundTrip() throws {
        let tool = try planted()
        let xml = try tool.run(["export", "com.example.all", "-"])
        #expect(xml.status == 0)
        #expect(xml.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist"))
        try tool.output(["import", "com.example.copy", "-"], input: xml.stdoutBytes)
        // XML has one kind of real: the 32-bit real comes back as the 64-bit real of its text.
        var expected = try #require(Self.everything.dictionaryValue)
        expected["float"] = .double(1.25)
        #expect(try tool.onDisk("com.example.copy") == expected)
    }

    @Test("export --format xml|binary|json and --json choose the format")
    func formats() throws {
        let tool = try planted()
        let binary = try tool.run(["export", "--format", "binary", "com.example.all", "-"])
        #expect(try BinaryPropertyListDecoder().decode(binary.stdoutBytes) == Self.everything)
        let xmlFile = tool.directory.file("x.plist").path
        try tool.output(["export", "--format", "xml", "com.example.all", xmlFile])
        #expect(String(decoding: FileManager.default.contents(atPath: xmlFile) ?? Data(), as: UTF8.self).hasPrefix("<?xml"))
        let json = try tool.output(["export", "--json", "com.example.all", "-"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["int"] as? Int == 42)
        #expect(object["date"] as? String == "2024-01-02T03:04:05.250Z")
        #expect(try tool.output(["export", "--format", "json", "com.example.all", "-"]) == json)
        let bad = try tool.run(["export", "--format", "yaml", "com.example.all", "-"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("yaml"))
    }

    @Test("python3's plistlib reads what export wrote, in binary and in XML")
    func plistlibReadsExports() throws {
        let tool = try ToolFixture()
        // plistlib reads only whole-second dates; everything else as above.
        let value: PropertyListValue = [
            "bool": true, "int": 42, "double": 0.5, "string": "café", "date": .date(Date(timeIntervalSince1970: 1_704_164_645)),
            "data": .data(Data([1, 2, 3])), "array": ["a", 1, ["k": false]], "dict": ["inner": ["x"]],
        ]
        try tool.plant(try BinaryPropertyListEncoder().encode(value), domain: "com.example.py")
        let binary = tool.directory.file("out.plist").path
        let xml = tool.directory.file("out.xml").path
        try tool.output(["export", "com.example.py", binary])
        try tool.output(["export", "--format", "xml", "com.example.py", xml])
        let script = """
            import plistlib, sys, datetime
            for path, fmt in ((sys.argv[1], plistlib.FMT_BINARY), (sys.argv[2], plistlib.FMT_XML)):
                with open(path, 'rb') as f:
                    data = f.read()
                v = plistlib.loads(data, fmt=fmt)
                assert v['bool'] is True and v['int'] == 42 and v['double'] == 0.5, v
                assert v['string'] == 'café' and v['data'] == b'\\x01\\x02\\x03', v
                assert v['array'] == ['a', 1, {'k': False}] and v['dict'] == {'inner': ['x']}, v
                assert v['date'] == datetime.datetime(2024, 1, 2, 3, 4, 5), v['date']
            print('ok')
            """
        let result = try run("python3", ["-c", script, binary, xml])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output == "ok\n")
    }

    @Test("defaults read reads a domain plistlib wrote (binary in the user directory, XML by path)")
    func readsPlistlibFiles() throws {
        let tool = try ToolFixture()
        try FileManager.default.createDirectory(atPath: tool.userDirectory, withIntermediateDirectories: true)
        let script = """
            import plistlib, sys, datetime, os
            v = {'Name': 'py', 'Count': 3, 'On': True, 'When': datetime.datetime(2024, 1, 2, 3, 4, 5), 'Bytes': b'\\x0f\\xbd', 'List': [1, 'two']}
            with open(sys.argv[1], 'wb') as f:
                plistlib.dump(v, f, fmt=plistlib.FMT_BINARY)
            os.chmod(sys.argv[1], 0o600)
            with open(sys.argv[2], 'wb') as f:
                plistlib.dump(v, f, fmt=plistlib.FMT_XML)
            """
        let xmlPath = tool.directory.file("python.plist").path
        let result = try run("python3", ["-c", script, tool.domainFile("com.example.python"), xmlPath])
        #expect(result.status == 0, "\(result.output)")
        let expected = """
            {
                Bytes = {length = 2, bytes = 0x0fbd};
                Count = 3;
                List =     (
                    1,
                    two
                );
                Name = py;
                On = 1;
                When = "2024-01-02 03:04:05 +0000";
            }

            """
        #expect(try tool.output(["read", "com.example.python"]) == expected)
        #expect(try tool.output(["read", xmlPath]) == expected)
        #expect(try tool.output(["read-type", xmlPath, "When"]) == "Type is date\n")
    }

    @Test("import reads old-style text too, and refuses a non-dictionary")
    func importText() throws {
        let tool = try ToolFixture()
        try tool.output(["import", "com.example.t", "-"], input: Array("{ a = (1, 2); }".utf8))
        #expect(try tool.onDisk("com.example.t") == ["a": ["1", "2"]])
        let notDictionary = try tool.run(["import", "com.example.t", "-"], input: Array("(1, 2)".utf8))
        #expect(notDictionary.status == 1)
        #expect(notDictionary.stderr.contains("does not hold a dictionary"))
        #expect(try tool.onDisk("com.example.t") == ["a": ["1", "2"]])
    }
}
