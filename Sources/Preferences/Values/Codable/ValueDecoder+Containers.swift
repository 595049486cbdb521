extension ValueDecoder {
    /// A keyed container over a dictionary's entries.
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let entries: [String: PropertyListValue]
        let decoder: ValueDecoder

        var codingPath: [any CodingKey] { decoder.codingPath }

        /// The dictionary's keys that `Key` can represent.
        var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool {
            entries[key.stringValue] != nil
        }

        /// True exactly when the key is absent: the encoder writes nil by leaving the
        /// key out, and a present value is never null.
        func decodeNil(forKey key: Key) throws -> Bool {
            entries[key.stringValue] == nil
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try ValueDecoder.bool(value(for: key), path(key)) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try ValueDecoder.string(value(for: key), path(key)) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try ValueDecoder.double(value(for: key), path(key)) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try ValueDecoder.float(value(for: key), path(key)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
        func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }
        func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(type, key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try ValueDecoder.decode(type, from: value(for: key), codingPath: path(key), userInfo: decoder.userInfo)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder.child(value(for: key), at: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder.child(value(for: key), at: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            try superDecoder(at: PropertyListCodingKey.super)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            try superDecoder(at: key)
        }

        private func superDecoder(at key: some CodingKey) throws -> any Decoder {
            decoder.child(try value(for: key), at: key)
        }

        private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
            try ValueDecoder.integer(type, value(for: key), path(key))
        }

        private func path(_ key: some CodingKey) -> [any CodingKey] {
            codingPath + [key]
        }

        private func value(for key: some CodingKey) throws -> PropertyListValue {
            guard let value = entries[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    DecodingError.Context(
                        codingPath: codingPath, debugDescription: "No value associated with key \"\(key.stringValue)\""))
            }
            return value
        }
    }

    /// An unkeyed container over an array's elements, read front to back.
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [PropertyListValue]
        let decoder: ValueDecoder

        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }
        private(set) var currentIndex = 0

        init(elements: [PropertyListValue], decoder: ValueDecoder) {
            self.elements = elements
            self.decoder = decoder
        }

        /// False while elements remain (arrays hold no nulls); throws at the end.
        mutating func decodeNil() throws -> Bool {
            _ = try current(Any?.self)
            return false
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try ValueDecoder.bool($0, $1) } }
        mutating func decode(_ type: String.Type) throws -> String { try next(type) { try ValueDecoder.string($0, $1) } }
        mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try ValueDecoder.double($0, $1) } }
        mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try ValueDecoder.float($0, $1) } }
        mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
        mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
        mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type) }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let userInfo = decoder.userInfo
            return try next(type) { try ValueDecoder.decode(type, from: $0, codingPath: $1, userInfo: userInfo) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let decoder = self.decoder
            return try next(KeyedDecodingContainer<NestedKey>.self) { value, path in
                try ValueDecoder(value: value, codingPath: path, userInfo: decoder.userInfo).container(keyedBy: type)
            }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let decoder = self.decoder
            return try next((any UnkeyedDecodingContainer).self) { value, path in
                try ValueDecoder(value: value, codingPath: path, userInfo: decoder.userInfo).unkeyedContainer()
            }
        }

        mutating func superDecoder() throws -> any Decoder {
            let decoder = self.decoder
            return try next((any Decoder).self) { value, path in
                ValueDecoder(value: value, codingPath: path, userInfo: decoder.userInfo)
            }
        }

        private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            try next(type) { try ValueDecoder.integer(type, $0, $1) }
        }

        /// Decodes the current element with `read` and moves past it only if that
        /// succeeded, so a caller can catch a mismatch and try another type, as with
        /// Foundation's decoders.
        private mutating func next<T>(
            _ type: T.Type, _ read: (PropertyListValue, [any CodingKey]) throws -> T
        ) throws -> T {
            let (value, path) = try current(type)
            let result = try read(value, path)
            currentIndex += 1
            return result
        }

        /// The current element and its coding path; `valueNotFound` at the end.
        private func current(_ type: Any.Type) throws -> (PropertyListValue, [any CodingKey]) {
            let path = codingPath + [PropertyListCodingKey(index: currentIndex)]
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type, DecodingError.Context(codingPath: path, debugDescription: "Unkeyed container is at end"))
            }
            return (elements[currentIndex], path)
        }
    }
}
