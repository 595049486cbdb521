import Foundation
import PropertyList
@testable import SettingsPage
import Testing
import TestSupport

/// Typed trees sent back by the page (`ValueTree`): each refusal names the node.
@Suite("Typed tree parsing")
struct ValueTreeTests {
    /// Requires `json` to be refused at `path` with a message mentioning `words`.
    static func expectRefused(_ json: Any, at path: String, mentioning words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let value = try ValueTree.value(from: json, at: "Dict")
            Issue.record("accepted as \(value)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.key == path, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(words), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("text of the wrong type is refused, naming the node's path")
    func wrongType() {
        let tree = dictionaryNode([("a", arrayNode([node("integer", "1"), node("integer", "abc")]))])
        Self.expectRefused(tree, at: "Dict.a[1]", mentioning: "must be an integer, not \"abc\"")
        let cases: [(Any, String, String)] = [
            (node("integer", "18446744073709551616"), "Dict", "integer"),
            (node("integer", "-9223372036854775809"), "Dict", "integer"),
            (node("integer", 5), "Dict", "integer"),
            (node("real", "inf"), "Dict", "number"),
            (node("real", "nan"), "Dict", "number"),
            (node("boolean", "true"), "Dict", "true or false"),
            (node("date", "31/01/2026"), "Dict", "date"),
            (node("data", "not base64!"), "Dict", "base64"),
            (["type": "string"], "Dict", "no text"),
            (["type": "array"], "Dict", "no items"),
            (["type": "dictionary", "entries": [["node": node("string", "x")]]], "Dict", "without a name"),
            (node("colour", "red"), "Dict", "unknown type"),
            ("just text", "Dict", "not a typed value"),
            (dictionaryNode([("b", dictionaryNode([("c", node("real", "x"))]))]), "Dict.b.c", "number"),
        ]
        for (json, path, words) in cases { Self.expectRefused(json, at: path, mentioning: words) }
    }

    @Test("a dictionary with two entries of one name is refused")
    func duplicateNames() {
        let tree = dictionaryNode([("a", node("string", "1")), ("b", node("string", "2")), ("a", node("string", "3"))])
        Self.expectRefused(tree, at: "Dict", mentioning: "two entries named \"a\"")
    }

    /// `levels` arrays, one in the other, around an integer.
    static func nested(_ levels: Int) -> Any {
        levels == 0 ? node("integer", "1") : arrayNode([nested(levels - 1)])
    }

    @Test("a tree nested deeper than the limit is refused; one at the limit is read")
    func depth() throws {
        let limit = ValueTree.depthLimit
        var value = try ValueTree.value(from: Self.nested(limit - 1), at: "Deep")
        for _ in 0..<(limit - 1) {
            guard case .array(let items) = value, items.count == 1 else {
                Issue.record("not an array of one: \(value)")
                return
            }
            value = items[0]
        }
        #expect(value == 1)
        do {
            _ = try ValueTree.value(from: Self.nested(limit), at: "Deep")
            Issue.record("a tree \(limit + 1) nodes deep was read")
        } catch {
            #expect(error.message.contains("nests more than \(limit) deep"), "\(error)")
            #expect(error.key.hasPrefix("Deep["))
        }
    }

    @Test("a refused tree in a change is a 422 whose message names the node, and nothing is written")
    func throughChanges() throws {
        let fixture = try SiteFixture()
        let domain = "com.example.trees"
        #expect(try fixture.change(domain, [set("Kept", "string", "yes")]).status == 200)
        let bytes = fixture.bytes(domain)
        let reply = try fixture.change(domain, [
            set("Dict", "plist", dictionaryNode([("a", arrayNode([node("integer", "1"), node("integer", "abc")]))])),
            set("Twice", "plist", dictionaryNode([("a", node("string", "1")), ("a", node("string", "2"))])),
            set("Deep", "plist", Self.nested(ValueTree.depthLimit)),
            set("Fine", "plist", node("string", "ok")),
        ])
        #expect(reply.status == 422, "\(reply)")
        #expect(reply.errors["Dict"]?.hasPrefix("Dict.a[1] must be an integer") == true, "\(reply)")
        #expect(reply.errors["Twice"]?.contains("two entries named") == true, "\(reply)")
        #expect(reply.errors["Deep"]?.contains("nests more than") == true, "\(reply)")
        #expect(reply.errors["Fine"] == nil)
        #expect(fixture.bytes(domain) == bytes)
    }
}
