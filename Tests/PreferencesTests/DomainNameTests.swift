import Preferences
import Testing
import TestSupport

@Suite("Domain names")
struct DomainNameTests {
    @Test(
        "valid names are accepted as they are",
        arguments: ["com.example.editor", "a", "My-App_2", ArgumentText(String(repeating: "x", count: 200)), "trailing."])
    func valid(name: ArgumentText) throws {
        #expect(try DomainName(name.value).rawValue == name.value)
    }

    @Test(
        "invalid names are rejected with a reason",
        arguments: [
            ("", "empty"),
            (ArgumentText(String(repeating: "x", count: 201)), "201 bytes"),
            (".GlobalPreferences", "starts with a dot"),
            ("..", "starts with a dot"),
            ("a/b", "\"/\" (U+002F)"),
            ("../etc/passwd", "starts with a dot"),
            ("com.example editor", "\" \" (U+0020)"),
            ("café", "U+00E9"),
            ("nul\u{0}byte", "U+0000"),
        ])
    func invalid(name: ArgumentText, mentioning words: String) {
        let error = #expect(throws: PreferencesError.self) { try DomainName(name.value) }
        #expect(error?.code == .invalidDomainName)
        #expect(error?.description.contains(words) == true, "\(String(describing: error))")
    }
}
