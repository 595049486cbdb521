/// A coding key the codable containers make up themselves: an array position in a
/// coding path, or the `super` key of `superEncoder()` and `superDecoder()`.
struct PropertyListCodingKey: CodingKey {
    /// The key `superEncoder()` and `superDecoder()` use, as in Foundation's coders.
    static let `super` = PropertyListCodingKey(stringValue: "super")

    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    /// The key for an array element; reads "Index 3" in error messages, like
    /// Foundation's coders.
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
}
