/// A page's markup read into elements, so that tests check what scripts rely on (elements,
/// their attributes and text: the contract of `SettingsHTML`) rather than exact text.
///
/// A tolerant reader of the HTML the pages write: start tags with quoted or bare
/// attributes, end tags (a stray one is ignored, a missing one closed by its parent's),
/// void elements, comments, the doctype, and `script` and `style` as raw text. Attribute
/// values and text are unescaped, so a test compares them with the words it wrote.
final class Element {
    /// The tag name, lowercased; `#document` for the root.
    let name: String
    /// The attributes, unescaped; a bare attribute (`checked`) has the value "".
    let attributes: [String: String]
    /// The element's children in order: elements and text.
    private(set) var children: [Child] = []
    /// The element holding this one; nil for the root.
    private(set) weak var parent: Element?

    /// A child: an element or a run of text.
    enum Child {
        case element(Element)
        case text(String)
    }

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// The value of attribute `name`, nil when it is absent.
    subscript(_ name: String) -> String? { attributes[name] }

    /// Whether attribute `name` is present (with any value).
    func has(_ name: String) -> Bool { attributes[name] != nil }

    /// The words of the `class` attribute.
    var classes: [String] { (attributes["class"] ?? "").split(separator: " ").map(String.init) }

    /// The element's own child elements, in order.
    var childElements: [Element] {
        children.compactMap { if case .element(let element) = $0 { element } else { nil } }
    }

    /// Every element inside this one, depth first, in document order.
    var descendants: [Element] {
        var found: [Element] = []
        func walk(_ element: Element) {
            for child in element.childElements {
                found.append(child)
                walk(child)
            }
        }
        walk(self)
        return found
    }

    /// The text inside the element, unescaped, with runs of white space made one space and
    /// the ends trimmed.
    var text: String {
        var raw = ""
        func walk(_ element: Element) {
            for child in element.children {
                switch child {
                case .text(let text): raw += text
                case .element(let element): walk(element)
                }
            }
        }
        walk(self)
        return raw.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The elements this one is inside, nearest first.
    var ancestors: [Element] {
        var found: [Element] = []
        var next = parent
        while let element = next {
            found.append(element)
            next = element.parent
        }
        return found
    }

    /// Whether the element is `name` (any when nil), has `className` among its classes
    /// (when given) and has every attribute of `attributes`: with that value, or present at
    /// all where the value is nil.
    func matches(_ name: String?, class className: String? = nil, _ attributes: [String: String?] = [:]) -> Bool {
        if let name, self.name != name { return false }
        if let className, !classes.contains(className) { return false }
        for (attribute, value) in attributes {
            guard let actual = self.attributes[attribute] else { return false }
            if let value, actual != value { return false }
        }
        return true
    }

    /// Every element inside this one matching (see ``matches(_:class:_:)``), in document order.
    func all(_ name: String? = nil, class className: String? = nil, _ attributes: [String: String?] = [:]) -> [Element] {
        descendants.filter { $0.matches(name, class: className, attributes) }
    }

    /// The first element inside this one matching, in document order.
    func first(_ name: String? = nil, class className: String? = nil, _ attributes: [String: String?] = [:]) -> Element? {
        descendants.first { $0.matches(name, class: className, attributes) }
    }

    /// The nearest element this one is inside that matches.
    func closest(_ name: String? = nil, class className: String? = nil, _ attributes: [String: String?] = [:]) -> Element? {
        ancestors.first { $0.matches(name, class: className, attributes) }
    }

    fileprivate func append(_ child: Child) {
        if case .element(let element) = child { element.parent = self }
        children.append(child)
    }
}

extension Element: CustomStringConvertible {
    /// The start tag, for messages.
    var description: String {
        "<" + name + attributes.keys.sorted().map { " \($0)=\"\(attributes[$0]!)\"" }.joined() + ">"
    }
}

/// Reads `html` into elements; the root is a `#document` element holding the top ones.
func parseMarkup(_ html: String) -> Element {
    var reader = MarkupReader(bytes: Array(html.utf8))
    return reader.read()
}

/// The reader behind ``parseMarkup(_:)``, over the page's UTF-8 bytes (every delimiter of
/// the markup is ASCII, so a byte never splits a character that matters).
private struct MarkupReader {
    let bytes: [UInt8]
    var index = 0

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
    ]
    static let rawTextElements: Set<String> = ["script", "style"]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func read() -> Element {
        let root = Element(name: "#document", attributes: [:])
        var stack = [root]
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<") {
                if starts(with: "<!--") {
                    skip(past: "-->")
                } else if starts(with: "<!") || starts(with: "<?") {
                    skip(past: ">")
                } else if starts(with: "</") {
                    index += 2
                    let name = readName()
                    skip(past: ">")
                    // A stray end tag is ignored; one that closes an outer element closes
                    // the inner ones left open too.
                    if let depth = stack.lastIndex(where: { $0.name == name }), depth > 0 {
                        stack.removeSubrange(depth...)
                    }
                } else if index + 1 < bytes.count, Self.isLetter(bytes[index + 1]) {
                    index += 1
                    let (name, attributes, selfClosing) = readTag()
                    let element = Element(name: name, attributes: attributes)
                    stack.last!.append(.element(element))
                    if Self.rawTextElements.contains(name) {
                        let start = index
                        let end = find("</" + name) ?? bytes.count
                        if end > start { element.append(.text(String(decoding: bytes[start..<end], as: UTF8.self))) }
                        index = end
                        skip(past: ">")
                    } else if !selfClosing && !Self.voidElements.contains(name) {
                        stack.append(element)
                    }
                } else {
                    stack.last!.append(.text("<"))
                    index += 1
                }
            } else {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                stack.last!.append(.text(unescape(bytes[start..<index])))
            }
        }
        return root
    }

    /// A start tag's name and attributes, from just after its `<` to just after its `>`.
    mutating func readTag() -> (String, [String: String], Bool) {
        let name = readName()
        var attributes: [String: String] = [:]
        while index < bytes.count {
            skipSpace()
            guard index < bytes.count else { break }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                return (name, attributes, false)
            }
            if starts(with: "/>") {
                index += 2
                return (name, attributes, true)
            }
            let start = index
            while index < bytes.count, !Self.isSpace(bytes[index]), ![UInt8(ascii: "="), UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[index]) {
                index += 1
            }
            if index == start {
                index += 1  // a lone "/" or "=": passed over
                continue
            }
            let attribute = String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
            skipSpace()
            var value = ""
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                    let quote = bytes[index]
                    index += 1
                    let valueStart = index
                    while index < bytes.count, bytes[index] != quote { index += 1 }
                    value = unescape(bytes[valueStart..<index])
                    index += 1
                } else {
                    let valueStart = index
                    while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                    value = unescape(bytes[valueStart..<index])
                }
            }
            if attributes[attribute] == nil { attributes[attribute] = value }
        }
        return (name, attributes, false)
    }

    mutating func readName() -> String {
        let start = index
        while index < bytes.count, Self.isLetter(bytes[index]) || (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")) || bytes[index] == UInt8(ascii: "-") {
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
    }

    func starts(with text: String) -> Bool {
        let prefix = Array(text.utf8)
        guard index + prefix.count <= bytes.count else { return false }
        return bytes[index..<(index + prefix.count)].elementsEqual(prefix)
    }

    /// The index where `text` next starts (ASCII, case-insensitive), nil if nowhere.
    func find(_ text: String) -> Int? {
        let needle = Array(text.lowercased().utf8)
        var at = index
        while at + needle.count <= bytes.count {
            if bytes[at..<(at + needle.count)].map(Self.lowercased).elementsEqual(needle) { return at }
            at += 1
        }
        return nil
    }

    mutating func skip(past text: String) {
        if let found = find(text) { index = found + text.utf8.count } else { index = bytes.count }
    }

    mutating func skipSpace() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// Text with its character references replaced: the named ones the pages write and
    /// numeric ones.
    func unescape(_ slice: ArraySlice<UInt8>) -> String {
        let text = String(decoding: slice, as: UTF8.self)
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let after = rest[ampersand...]
            guard let semicolon = after.firstIndex(of: ";"), after.distance(from: ampersand, to: semicolon) <= 10 else {
                result += "&"
                rest = rest[rest.index(after: ampersand)...]
                continue
            }
            let entity = after[after.index(after: ampersand)..<semicolon]
            var replacement: String?
            switch entity {
            case "amp": replacement = "&"
            case "lt": replacement = "<"
            case "gt": replacement = ">"
            case "quot": replacement = "\""
            case "apos": replacement = "'"
            case "nbsp": replacement = "\u{A0}"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let code = UInt32(entity.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(code) {
                    replacement = String(Character(scalar))
                } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst()), let scalar = Unicode.Scalar(code) {
                    replacement = String(Character(scalar))
                }
            }
            if let replacement {
                result += replacement
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[rest.index(after: ampersand)...]
            }
        }
        return result + rest
    }
}
