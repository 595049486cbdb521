import Foundation
import TestSupport
import Testing

/// `defaults read` prints exactly what macOS prints, for every value type and nesting.
@Suite("defaults read output (golden)", .ownThread)
struct GoldenOutputTests {
    /// One domain holding every type, nested containers and the quoting cases.
    static let domainXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        	<key>bool true</key><true/>
        	<key>bool false</key><false/>
        	<key>int</key><integer>42</integer>
        	<key>negative</key><integer>-5</integer>
        	<key>big</key><integer>18446744073709551615</integer>
        	<key>real</key><real>1.5</real>
        	<key>whole real</key><real>2</real>
        	<key>plain</key><string>Hello</string>
        	<key>spaced</key><string>two words</string>
        	<key>empty string</key><string></string>
        	<key>accent</key><string>café</string>
        	<key>quote</key><string>say "hi"\\ now</string>
        	<key>date</key><date>2024-01-02T03:04:05Z</date>
        	<key>data</key><data>D713oA==</data>
        	<key>long data</key><data>AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=</data>
        	<key>array</key><array><string>a</string><integer>1</integer><array><string>x</string><dict><key>k</key><true/></dict></array></array>
        	<key>dict</key><dict><key>inner</key><dict><key>deep</key><array/></dict><key>Z</key><string>z</string></dict>
        	<key>empty array</key><array/>
        	<key>empty dict</key><dict/>
        </dict>
        </plist>
        """

    static let domainText = #"""
        {
            accent = "caf\U00e9";
            array =     (
                a,
                1,
                        (
                    x,
                                {
                        k = 1;
                    }
                )
            );
            big = 18446744073709551615;
            "bool false" = 0;
            "bool true" = 1;
            data = {length = 4, bytes = 0x0fbd77a0};
            date = "2024-01-02 03:04:05 +0000";
            dict =     {
                Z = z;
                inner =         {
                    deep =             (
                    );
                };
            };
            "empty array" =     (
            );
            "empty dict" =     {
            };
            "empty string" = "";
            int = 42;
            "long data" = {length = 32, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 18191a1b 1c1d1e1f };
            negative = "-5";
            plain = Hello;
            quote = "say \"hi\"\\ now";
            real = "1.5";
            spaced = "two words";
            "whole real" = 2;
        }

        """#

    func fixture() throws -> ToolFixture {
        let tool = try ToolFixture()
        try tool.output(["import", "com.example.golden", "-"], input: Array(Self.domainXML.utf8))
        return tool
    }

    @Test("read DOMAIN prints the whole domain in macOS's layout")
    func wholeDomain() throws {
        let tool = try fixture()
        #expect(try tool.output(["read", "com.example.golden"]) == Self.domainText)
    }

    @Test(
        "read DOMAIN KEY prints a lone value bare, containers and data in their layout",
        arguments: [
            ("bool true", "1"), ("bool false", "0"), ("int", "42"), ("negative", "-5"), ("big", "18446744073709551615"),
            ("real", "1.5"), ("whole real", "2"), ("plain", "Hello"), ("spaced", "two words"), ("empty string", ""),
            ("accent", "café"), ("quote", #"say "hi"\ now"#), ("date", "2024-01-02 03:04:05 +0000"),
            ("data", "{length = 4, bytes = 0x0fbd77a0}"),
            ("array", "(\n    a,\n    1,\n        (\n        x,\n                {\n            k = 1;\n        }\n    )\n)"),
            ("dict", "{\n    Z = z;\n    inner =     {\n        deep =         (\n        );\n    };\n}"),
            ("empty array", "(\n)"), ("empty dict", "{\n}"),
        ])
    func oneKey(key: String, expected: String) throws {
        let tool = try fixture()
        #expect(try tool.output(["read", "com.example.golden", key]) == expected + "\n")
    }

    @Test(
        "read-type names every type",
        arguments: [
            ("bool true", "boolean"), ("int", "integer"), ("real", "float"), ("plain", "string"), ("date", "date"),
            ("data", "data"), ("array", "array"), ("dict", "dictionary"),
        ])
    func readType(key: String, type: String) throws {
        let tool = try fixture()
        #expect(try tool.output(["read-type", "com.example.golden", key]) == "Type is \(type)\n")
    }

    @Test("read --json prints JSON: dates as ISO 8601, data as base64")
    func json() throws {
        let tool = try fixture()
        #expect(try tool.output(["read", "--json", "com.example.golden", "date"]) == "\"2024-01-02T03:04:05Z\"\n")
        #expect(try tool.output(["read", "--json", "com.example.golden", "data"]) == "\"D713oA==\"\n")
        #expect(try tool.output(["read", "--json", "com.example.golden", "dict"]) == "{\n  \"Z\": \"z\",\n  \"inner\": {\n    \"deep\": []\n  }\n}\n")
        let whole = try tool.output(["read", "--json", "com.example.golden"])
        let object = try JSONSerialization.jsonObject(with: Data(whole.utf8)) as? [String: Any]
        #expect(object?["int"] as? Int == 42)
        #expect(object?["bool true"] as? Bool == true)
    }
}
