#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One pass of ``XMLPropertyListDecoder`` over one document's bytes.
///
/// A tokenizer and recursive-descent parser in one: it reads exactly the XML that property
/// lists use and refuses everything that makes general XML parsers dangerous (entity
/// declarations, external entities). It recurses once per open container, after checking
/// the depth limit, so its stack use is bounded by the limit and not by the input.
struct XMLPropertyListParser {
    /// The elements a property list is made of; anything else is `.other`.
    private enum Kind: Equatable {
        case plist, dict, array, key, string, integer, real, date, data, `true`, `false`, other
    }

    /// A start tag that has been read.
    private struct Tag {
        let kind: Kind
        /// Where the element name lies in the input.
        let name: Range<Int>
        /// The offset of the tag's `<`.
        let offset: Int
        /// True for `<name/>`, which has no content and no end tag.
        let isEmpty: Bool
    }

    /// What comes next inside a container element.
    private enum Markup {
        case start(Tag)
        case end
    }

    private static let names: [(Kind, [UInt8])] = [
        (.plist, Array("plist".utf8)), (.dict, Array("dict".utf8)), (.array, Array("array".utf8)),
        (.key, Array("key".utf8)), (.string, Array("string".utf8)), (.integer, Array("integer".utf8)),
        (.real, Array("real".utf8)), (.date, Array("date".utf8)), (.data, Array("data".utf8)),
        (.true, Array("true".utf8)), (.false, Array("false".utf8)),
    ]

    private let bytes: UnsafeRawBufferPointer
    private let limits: PropertyListLimits
    private var position = 0
    private var valueCount = 0
    /// The character data of the element being read, entities replaced; reused.
    private var text: [UInt8] = []
    /// The entries of the dictionaries being parsed, innermost last: each container is built
    /// at its exact size once its last entry is read. Growing a dictionary entry by entry
    /// rehashed it at every doubling (three times for a five-entry one), a large share of
    /// decoding a document made of many small dictionaries, such as a schema (its parse is
    /// timed in Benchmarks/RESULTS.md).
    private var pendingEntries: [(key: String, value: PropertyListValue)] = []
    /// The elements of the arrays being parsed, innermost last, for the same reason.
    private var pendingElements: [PropertyListValue] = []

    init(bytes: UnsafeRawBufferPointer, limits: PropertyListLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Parses the whole document: prolog, one root element, then only comments, processing
    /// instructions and whitespace.
    mutating func parseDocument() throws(PropertyListError) -> PropertyListValue {
        try checkEncoding()
        try parseProlog()
        guard position < bytes.count else {
            throw error(.truncated, at: position, "the document ends before its root element")
        }
        guard bytes[position] == UInt8(ascii: "<") else {
            throw error(.syntax, at: position, "unexpected \(character(at: position)) where the root element was expected")
        }
        let root = try parseStartTag()
        let value: PropertyListValue
        if root.kind == .plist {
            guard !root.isEmpty, case .start(let tag) = try nextMarkup(in: root) else {
                throw error(.syntax, at: root.offset, "the <plist> element holds no value")
            }
            value = try parseValue(tag, depth: 0)
            guard case .end = try nextMarkup(in: root) else {
                throw error(.syntax, at: position, "the <plist> element holds more than one value")
            }
        } else {
            // Apple's parsers also accept a bare value as the root.
            value = try parseValue(root, depth: 0)
        }
        try skipMiscellany()
        guard position == bytes.count else {
            throw error(.trailingContent, at: position, "unexpected \(character(at: position)) after the root element")
        }
        return value
    }

    // MARK: Encoding and prolog

    /// Refuses UTF-16 and UTF-32, skips a UTF-8 byte order mark and checks that the rest is UTF-8.
    private mutating func checkEncoding() throws(PropertyListError) {
        let count = bytes.count
        if count >= 4, bytes[0] == 0, bytes[1] == 0, bytes[2] == 0xFE, bytes[3] == 0xFF {
            throw PropertyListError(
                .unsupportedEncoding, at: 0, "the document starts with a UTF-32 byte order mark; only UTF-8 is read")
        }
        if count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            let mark = bytes[0] == 0xFE ? "FE FF" : "FF FE"
            throw PropertyListError(
                .unsupportedEncoding, at: 0,
                "the document starts with a UTF-16 byte order mark (\(mark)); only UTF-8 is read: convert it, "
                    + "for example with `iconv -f UTF-16 -t UTF-8`")
        }
        if count >= 2, bytes[0] == 0 || bytes[1] == 0 {
            throw PropertyListError(
                .unsupportedEncoding, at: 0, "the document starts with a NUL byte, as UTF-16 or UTF-32 does; only UTF-8 is read")
        }
        if count >= 6, bytes[0..<6].elementsEqual("bplist".utf8) {
            throw PropertyListError(.syntax, at: 0, "this is a binary property list (bplist), not XML")
        }
        if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
        }
        if let bad = UTF8Validation.firstInvalidOffset(in: bytes, from: position) {
            let hex = String(bytes[bad], radix: 16, uppercase: true)
            throw error(.invalidString, at: bad, "byte 0x\(hex) is not valid UTF-8")
        }
    }

    /// Reads the XML declaration (checking its encoding), comments, processing instructions
    /// and the document type declaration, up to the root element.
    private mutating func parseProlog() throws(PropertyListError) {
        if hasPrefix("<?xml"), position + 5 < bytes.count,
            XMLScalarText.isWhitespace(bytes[position + 5]) || bytes[position + 5] == UInt8(ascii: "?")
        {
            let start = position
            try skipProcessingInstruction()
            try checkDeclaredEncoding(UnsafeRawBufferPointer(rebasing: bytes[start..<position]), at: start)
        }
        var sawDoctype = false
        while true {
            skipWhitespace()
            if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<?") {
                try skipProcessingInstruction()
            } else if hasPrefix("<!DOCTYPE") {
                guard !sawDoctype else {
                    throw error(.syntax, at: position, "a second document type declaration")
                }
                try skipDoctype()
                sawDoctype = true
            } else {
                return
            }
        }
    }

    /// Refuses a declared encoding other than UTF-8 (or its subset ASCII).
    private func checkDeclaredEncoding(_ declaration: UnsafeRawBufferPointer, at start: Int) throws(PropertyListError) {
        let keyword = Array("encoding".utf8)
        guard declaration.count > keyword.count,
            let found = (0...(declaration.count - keyword.count)).first(where: {
                declaration[$0..<($0 + keyword.count)].elementsEqual(keyword)
            })
        else { return }
        var index = found + keyword.count
        func skipSpace() {
            while index < declaration.count, XMLScalarText.isWhitespace(declaration[index]) { index += 1 }
        }
        skipSpace()
        guard index < declaration.count, declaration[index] == UInt8(ascii: "=") else { return }
        index += 1
        skipSpace()
        guard index < declaration.count, declaration[index] == UInt8(ascii: "\"") || declaration[index] == UInt8(ascii: "'")
        else { return }
        let quote = declaration[index]
        let nameStart = index + 1
        var nameEnd = nameStart
        while nameEnd < declaration.count, declaration[nameEnd] != quote { nameEnd += 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: declaration[nameStart..<nameEnd]), as: UTF8.self)
        let accepted = ["utf-8", "utf8", "us-ascii", "ascii"]
        guard accepted.contains(name.lowercased()) else {
            throw error(
                .unsupportedEncoding, at: start, "the XML declaration names encoding \"\(name)\"; only UTF-8 is read")
        }
    }

    /// Skips `<!DOCTYPE ...>` without processing it, refusing an internal subset that
    /// declares entities: undeclared, no reference can expand to anything.
    private mutating func skipDoctype() throws(PropertyListError) {
        let start = position
        position += 9
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                try skipQuoted(what: "document type declaration")
            case UInt8(ascii: "["):
                position += 1
                try skipInternalSubset(doctype: start)
            case UInt8(ascii: ">"):
                position += 1
                return
            default:
                position += 1
            }
        }
        throw error(.truncated, at: start, "unterminated document type declaration, opened")
    }

    private mutating func skipInternalSubset(doctype: Int) throws(PropertyListError) {
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return
            }
            if bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") {
                try skipQuoted(what: "document type declaration")
            } else if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<?") {
                try skipProcessingInstruction()
            } else if hasPrefix("<!ENTITY") {
                throw error(
                    .entityDeclaration, at: position,
                    "the document type declaration declares an entity; entity declarations are refused, "
                        + "because expanding them is how \"billion laughs\" and external-entity attacks work")
            } else {
                position += 1
            }
        }
        throw error(.truncated, at: doctype, "unterminated internal subset of the document type declaration, opened")
    }

    // MARK: Values

    /// Parses the element whose start tag is `tag`, inside `depth` enclosing containers.
    private mutating func parseValue(_ tag: Tag, depth: Int) throws(PropertyListError) -> PropertyListValue {
        switch tag.kind {
        case .dict:
            return try parseDictionary(tag, depth: depth)
        case .array:
            return try parseArray(tag, depth: depth)
        case .string:
            try countValue(at: tag.offset)
            return .string(try readString(tag))
        case .integer:
            try countValue(at: tag.offset)
            let start = try readText(tag)
            return .integer(try convert(start: start, tag: tag, XMLScalarText.integer))
        case .real:
            try countValue(at: tag.offset)
            let start = try readText(tag)
            return .double(try convert(start: start, tag: tag, XMLScalarText.real))
        case .date:
            try countValue(at: tag.offset)
            let start = try readText(tag)
            let time = try convert(start: start, tag: tag, XMLScalarText.date)
            return .date(time.date)
        case .data:
            try countValue(at: tag.offset)
            let start = try readText(tag)
            do {
                return .data(Data(try Base64.decode(text)))
            } catch {
                throw self.error(.invalidData, at: start.verbatim ? start.offset + error.index : start.offset, "invalid <data>: \(error.reason)")
            }
        case .true, .false:
            try countValue(at: tag.offset)
            _ = try readText(tag)
            guard text.allSatisfy(XMLScalarText.isWhitespace) else {
                throw error(.syntax, at: tag.offset, "<\(name(tag))> must be empty, as in <\(name(tag))/>")
            }
            return .bool(tag.kind == .true)
        case .key:
            throw error(.syntax, at: tag.offset, "a <key> outside a <dict>")
        case .plist:
            throw error(.syntax, at: tag.offset, "a <plist> element inside the property list")
        case .other:
            throw error(.syntax, at: tag.offset, "unknown element <\(name(tag))>")
        }
    }

    private mutating func parseDictionary(_ tag: Tag, depth: Int) throws(PropertyListError) -> PropertyListValue {
        try enterContainer(tag, depth: depth)
        if tag.isEmpty { return .dictionary([:]) }
        let first = pendingEntries.count
        // Left as it was found whether the dictionary ends or fails: an enclosing
        // container's entries stay below `first`.
        defer { pendingEntries.removeSubrange(first...) }
        while true {
            guard case .start(let keyTag) = try nextMarkup(in: tag) else {
                var entries = [String: PropertyListValue](minimumCapacity: pendingEntries.count - first)
                // A repeated key keeps its last value, as Apple's parsers do.
                for (key, value) in pendingEntries[first...] { entries[key] = value }
                return .dictionary(entries)
            }
            guard keyTag.kind == .key else {
                throw error(.invalidKey, at: keyTag.offset, "expected a <key> in the <dict>, found <\(name(keyTag))>")
            }
            try countValue(at: keyTag.offset)
            let key = try readString(keyTag)
            guard case .start(let valueTag) = try nextMarkup(in: tag) else {
                throw error(.syntax, at: position, "key \(Self.quoted(key)) has no value before </dict>")
            }
            guard valueTag.kind != .key else {
                throw error(.syntax, at: valueTag.offset, "key \(Self.quoted(key)) is followed by another <key> instead of its value")
            }
            let value = try parseValue(valueTag, depth: depth + 1)
            pendingEntries.append((key, value))
        }
    }

    private mutating func parseArray(_ tag: Tag, depth: Int) throws(PropertyListError) -> PropertyListValue {
        try enterContainer(tag, depth: depth)
        if tag.isEmpty { return .array([]) }
        let first = pendingElements.count
        defer { pendingElements.removeSubrange(first...) }
        while case .start(let element) = try nextMarkup(in: tag) {
            let value = try parseValue(element, depth: depth + 1)
            pendingElements.append(value)
        }
        return .array(Array(pendingElements[first...]))
    }

    /// Applies a scalar reader to `text`, placing its failure in the document.
    private func convert<T>(
        start: (offset: Int, verbatim: Bool), tag: Tag,
        _ read: (ArraySlice<UInt8>) throws(XMLScalarText.Failure) -> T
    ) throws(PropertyListError) -> T {
        do {
            return try read(text[...])
        } catch {
            throw self.error(error.code, at: start.offset, "invalid <\(name(tag))>: \(error.reason)")
        }
    }

    // MARK: Markup

    /// The next start tag or the end tag of `parent`, skipping whitespace, comments and
    /// processing instructions; text other than whitespace is an error in a container.
    private mutating func nextMarkup(in parent: Tag) throws(PropertyListError) -> Markup {
        while true {
            skipWhitespace()
            guard position < bytes.count else {
                throw error(
                    .truncated, at: position,
                    "<\(name(parent))> opened at \(location(parent.offset)) is not closed: the document ends")
            }
            guard bytes[position] == UInt8(ascii: "<") else {
                throw error(
                    .syntax, at: position, "unexpected text \(character(at: position)) in <\(name(parent))>, which holds only elements")
            }
            // The byte after "<" decides; most markup is a start or end tag, and testing each
            // prefix in turn was a fifth of a large document's parse.
            let next = position + 1 < bytes.count ? bytes[position + 1] : 0
            if next == UInt8(ascii: "/") {
                try parseEndTag(of: parent)
                return .end
            } else if next == UInt8(ascii: "!") {
                guard hasPrefix("<!--") else {
                    throw error(.syntax, at: position, "unexpected declaration or CDATA section in <\(name(parent))>")
                }
                try skipComment()
            } else if next == UInt8(ascii: "?") {
                try skipProcessingInstruction()
            } else {
                return .start(try parseStartTag())
            }
        }
    }

    /// Reads the text content of `tag` into `text`, replacing references and CDATA
    /// sections, through its end tag. Returns where the content starts and whether `text`
    /// is the input verbatim there (so an index into it is an offset from that start).
    private mutating func readText(_ tag: Tag) throws(PropertyListError) -> (offset: Int, verbatim: Bool) {
        text.removeAll(keepingCapacity: true)
        if tag.isEmpty { return (tag.offset, false) }
        let start = position
        var verbatim = true
        while true {
            var scan = position
            while scan < bytes.count, bytes[scan] != UInt8(ascii: "<"), bytes[scan] != UInt8(ascii: "&") {
                scan += 1
            }
            text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<scan]))
            position = scan
            guard position < bytes.count else {
                throw error(.truncated, at: position, "<\(name(tag))> opened at \(location(tag.offset)) is not closed: the document ends")
            }
            if bytes[position] == UInt8(ascii: "&") {
                verbatim = false
                try appendReference()
            } else if position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "/") {
                // The common case first: the end tag right after the text.
                try parseEndTag(of: tag)
                return (start, verbatim)
            } else if hasPrefix("<![CDATA[") {
                verbatim = false
                let contentStart = position + 9
                guard let end = find("]]>", from: contentStart) else {
                    throw error(.truncated, at: position, "unterminated CDATA section, opened")
                }
                text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[contentStart..<end]))
                position = end + 3
            } else if hasPrefix("<!--") {
                verbatim = false
                try skipComment()
            } else if hasPrefix("<?") {
                verbatim = false
                try skipProcessingInstruction()
            } else if hasPrefix("</") {
                try parseEndTag(of: tag)
                return (start, verbatim)
            } else {
                let inner = try parseStartTag()
                throw error(.syntax, at: inner.offset, "unexpected element <\(name(inner))> inside <\(name(tag))>, which holds only text")
            }
        }
    }

    private mutating func readString(_ tag: Tag) throws(PropertyListError) -> String {
        _ = try readText(tag)
        // The input was checked to be UTF-8 and references add only valid scalars.
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads `&...;` at `position` and appends the character it stands for.
    private mutating func appendReference() throws(PropertyListError) {
        let start = position
        guard let end = find(";", from: start + 1, within: 12) else {
            throw error(
                .invalidEntity, at: start,
                "'&' must start a reference such as &amp; or &#38; ending in ';' (a literal & is written &amp;)")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<end])
        position = end + 1
        var scalar: Unicode.Scalar?
        if body.first == UInt8(ascii: "#") {
            let isHex = body.count > 1 && (body[1] == UInt8(ascii: "x") || body[1] == UInt8(ascii: "X"))
            let digits = body.dropFirst(isHex ? 2 : 1)
            var value: UInt32 = 0
            var valid = !digits.isEmpty
            for digit in digits {
                guard let digitValue = OpenStepPropertyListParser.hexValue(digit), isHex || digitValue < 10, value <= 0x10FFFF else {
                    valid = false
                    break
                }
                value = value * (isHex ? 16 : 10) + UInt32(digitValue)
            }
            scalar = valid ? Unicode.Scalar(value) : nil
        } else {
            switch String(decoding: body, as: UTF8.self) {
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "amp": scalar = "&"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default: scalar = nil
            }
        }
        guard let scalar else {
            let reference = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start...end]), as: UTF8.self)
            throw error(
                .invalidEntity, at: start,
                "\(reference) is neither one of the five predefined entities nor a reference to a Unicode scalar value")
        }
        text.append(contentsOf: UTF8.encode(scalar)!)
    }

    /// Reads a start tag at `position` (its `<`), skipping its attributes.
    private mutating func parseStartTag() throws(PropertyListError) -> Tag {
        let start = position
        position += 1
        let name = try parseName(after: start)
        while true {
            let hadSpace = skipWhitespace()
            guard position < bytes.count else {
                throw error(.truncated, at: start, "unterminated tag, opened")
            }
            switch bytes[position] {
            case UInt8(ascii: ">"):
                position += 1
                return Tag(kind: kind(of: name), name: name, offset: start, isEmpty: false)
            case UInt8(ascii: "/"):
                guard position + 1 < bytes.count else {
                    throw error(.truncated, at: start, "unterminated tag, opened")
                }
                guard bytes[position + 1] == UInt8(ascii: ">") else {
                    throw error(.syntax, at: position, "expected '>' after '/' in a tag")
                }
                position += 2
                return Tag(kind: kind(of: name), name: name, offset: start, isEmpty: true)
            default:
                guard hadSpace else {
                    throw error(.syntax, at: position, "unexpected \(character(at: position)) in a tag")
                }
                // An attribute: name = "value". Property lists ignore attributes.
                _ = try parseName(after: start)
                skipWhitespace()
                guard position < bytes.count else {
                    throw error(.truncated, at: start, "unterminated tag, opened")
                }
                guard bytes[position] == UInt8(ascii: "=") else {
                    throw error(.syntax, at: position, "expected '=' after an attribute name")
                }
                position += 1
                skipWhitespace()
                guard position < bytes.count else {
                    throw error(.truncated, at: start, "unterminated tag, opened")
                }
                guard bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                    throw error(.syntax, at: position, "expected a quoted attribute value")
                }
                try skipQuoted(what: "attribute value")
            }
        }
    }

    /// Reads `</name>` at `position`, requiring it to close `tag`.
    private mutating func parseEndTag(of tag: Tag) throws(PropertyListError) {
        let start = position
        position += 2
        let name = try parseName(after: start)
        skipWhitespace()
        guard position < bytes.count else {
            throw error(.truncated, at: start, "unterminated end tag, opened")
        }
        guard bytes[position] == UInt8(ascii: ">") else {
            throw error(.syntax, at: position, "unexpected \(character(at: position)) in an end tag")
        }
        position += 1
        guard equalBytes(name, tag.name) else {
            let found = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[name]), as: UTF8.self)
            throw error(
                .syntax, at: start, "mismatched end tag </\(found)>: <\(self.name(tag))> opened at \(location(tag.offset)) is still open")
        }
    }

    /// Reads an XML name at `position`.
    private mutating func parseName(after tagStart: Int) throws(PropertyListError) -> Range<Int> {
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position], first: position == start) {
            position += 1
        }
        guard position > start else {
            if position >= bytes.count {
                throw error(.truncated, at: tagStart, "unterminated tag, opened")
            }
            throw error(.syntax, at: position, "expected a name, found \(character(at: position))")
        }
        return start..<position
    }

    private func kind(of name: Range<Int>) -> Kind {
        for (kind, spelling) in Self.names where spelling.count == name.count {
            if spelling.withUnsafeBytes({ equalBytes(name, $0) }) { return kind }
        }
        return .other
    }

    /// Whether the document's bytes in `range` are `other`'s. A plain loop: the generic
    /// `elementsEqual` on slices went through iterators and was most of a schema's parse.
    @inline(__always)
    private func equalBytes(_ range: Range<Int>, _ other: UnsafeRawBufferPointer) -> Bool {
        guard range.count == other.count else { return false }
        var index = 0
        while index < other.count {
            if bytes[range.lowerBound + index] != other[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether the document's bytes in two ranges are equal.
    @inline(__always)
    private func equalBytes(_ range: Range<Int>, _ other: Range<Int>) -> Bool {
        guard range.count == other.count else { return false }
        var index = 0
        while index < range.count {
            if bytes[range.lowerBound + index] != bytes[other.lowerBound + index] { return false }
            index += 1
        }
        return true
    }

    // MARK: Skipping

    /// Skips XML whitespace; returns whether there was any.
    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = position
        while position < bytes.count, XMLScalarText.isWhitespace(bytes[position]) {
            position += 1
        }
        return position > start
    }

    /// After the root element: whitespace, comments and processing instructions only.
    private mutating func skipMiscellany() throws(PropertyListError) {
        while true {
            skipWhitespace()
            if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<?") {
                try skipProcessingInstruction()
            } else {
                return
            }
        }
    }

    private mutating func skipComment() throws(PropertyListError) {
        guard let end = find("-->", from: position + 4) else {
            throw error(.truncated, at: position, "unterminated comment, opened")
        }
        position = end + 3
    }

    private mutating func skipProcessingInstruction() throws(PropertyListError) {
        guard let end = find("?>", from: position + 2) else {
            throw error(.truncated, at: position, "unterminated processing instruction, opened")
        }
        position = end + 2
    }

    /// Skips a quoted literal starting at `position`; it may not contain `<`.
    private mutating func skipQuoted(what: String) throws(PropertyListError) {
        let start = position
        let quote = bytes[position]
        position += 1
        while position < bytes.count, bytes[position] != quote {
            position += 1
        }
        guard position < bytes.count else {
            throw error(.truncated, at: start, "unterminated quoted \(what), opened")
        }
        position += 1
    }

    // MARK: Limits and errors

    /// Checks the depth limit before the container `tag` at `depth` is opened, and counts it.
    private mutating func enterContainer(_ tag: Tag, depth: Int) throws(PropertyListError) {
        guard depth < limits.depth else {
            throw error(.tooDeep, at: tag.offset, "<\(name(tag))> nests deeper than \(limits.depth) containers")
        }
        try countValue(at: tag.offset)
    }

    private mutating func countValue(at offset: Int) throws(PropertyListError) {
        valueCount += 1
        guard valueCount <= limits.expandedObjectCount else {
            throw error(
                .tooManyExpandedObjects, at: offset, "the document holds more than \(limits.expandedObjectCount) values; the limit is reached")
        }
    }

    private func hasPrefix(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { equalBytes(position..<(position + count), UnsafeRawBufferPointer($0)) }
    }

    /// The offset of the first occurrence of `literal` at or after `start` (and, if given,
    /// starting no further than `within` bytes on).
    private func find(_ literal: StaticString, from start: Int, within: Int? = nil) -> Int? {
        literal.withUTF8Buffer { needle -> Int? in
            let first = needle[0]
            var index = start
            let last = bytes.count - needle.count
            let limit = within.map { min(last, start + $0) } ?? last
            while index <= limit {
                if bytes[index] == first, equalBytes(index..<(index + needle.count), UnsafeRawBufferPointer(needle)) {
                    return index
                }
                index += 1
            }
            return nil
        }
    }

    private func name(_ tag: Tag) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[tag.name]), as: UTF8.self)
    }

    private func error(_ code: PropertyListError.Code, at offset: Int, _ reason: String) -> PropertyListError {
        .text(code, at: offset, in: bytes, reason)
    }

    private func location(_ offset: Int) -> TextLocation {
        TextLocation(offset: offset, in: bytes)
    }

    /// The character at `offset`, quoted, or its code point if it is not printable.
    private func character(at offset: Int) -> String {
        PropertyListError.describeCharacter(at: offset, in: bytes)
    }

    private static func quoted(_ key: String) -> String {
        let shown = key.count > 40 ? String(key.prefix(40)) + "…" : key
        return "\"\(shown)\""
    }

    /// Letters, digits, `_ : - .` and any non-ASCII byte; a name may not start with a
    /// digit, `-` or `.`.
    private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
            UInt8(ascii: ":"), 0x80...0xFF:
            true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            !first
        default:
            false
        }
    }
}
