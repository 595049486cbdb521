extension ValueEncoder {
    /// A keyed container: writes entries of a dictionary.
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let keyed: EncodingSlot.Keyed
        let encoder: ValueEncoder

        var codingPath: [any CodingKey] { encoder.codingPath }

        /// Leaves the key out: property lists have no null, and an absent key reads back
        /// as nil.
        mutating func encodeNil(forKey key: Key) throws {
            keyed.entries[key.stringValue] = nil
        }

        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), for: key) }
        mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), for: key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), for: key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { set(.float(value), for: key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(PropertyListInteger(value)), for: key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(PropertyListInteger(Int64(value))), for: key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(PropertyListInteger(Int64(value))), for: key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(PropertyListInteger(Int64(value))), for: key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(PropertyListInteger(value)), for: key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { set(.integer(PropertyListInteger(UInt64(value))), for: key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(PropertyListInteger(UInt64(value))), for: key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(PropertyListInteger(UInt64(value))), for: key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(PropertyListInteger(UInt64(value))), for: key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.integer(PropertyListInteger(value)), for: key) }

        mutating func encode(_ value: Int128, forKey key: Key) throws {
            set(try ValueEncoder.integer(value, codingPath: codingPath + [key]), for: key)
        }

        mutating func encode(_ value: UInt128, forKey key: Key) throws {
            set(try ValueEncoder.integer(value, codingPath: codingPath + [key]), for: key)
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let slot = EncodingSlot(allowsNil: true)
            keyed.entries[key.stringValue] = slot
            try ValueEncoder.encode(value, into: slot, codingPath: codingPath + [key], userInfo: encoder.userInfo)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            encoder.child(slot(for: key), at: key).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            encoder.child(slot(for: key), at: key).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            superEncoder(at: PropertyListCodingKey.super)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            superEncoder(at: key)
        }

        private func superEncoder(at key: some CodingKey) -> any Encoder {
            let slot = EncodingSlot(allowsNil: true)
            keyed.entries[key.stringValue] = slot
            return encoder.child(slot, at: key)
        }

        private func set(_ value: PropertyListValue, for key: Key) {
            keyed.entries[key.stringValue] = EncodingSlot(allowsNil: true, content: .value(value))
        }

        /// The slot for a nested container: the existing one if a container was already
        /// started at this key, so that asking twice continues it, else a new one.
        private func slot(for key: Key) -> EncodingSlot {
            if let existing = keyed.entries[key.stringValue] {
                switch existing.content {
                case .keyed, .unkeyed: return existing
                default: break
                }
            }
            let slot = EncodingSlot(allowsNil: true)
            keyed.entries[key.stringValue] = slot
            return slot
        }
    }

    /// An unkeyed container: appends elements of an array.
    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let unkeyed: EncodingSlot.Unkeyed
        let encoder: ValueEncoder

        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { unkeyed.elements.count }

        /// Always throws: an array cannot leave an element out without shifting the ones
        /// after it, and a property list has no null to put in its place.
        mutating func encodeNil() throws {
            throw EncodingError.invalidValue(
                Optional<Any>.none as Any,
                EncodingError.Context(
                    codingPath: codingPath + [PropertyListCodingKey(index: count)],
                    debugDescription: "A property list has no null, so an array cannot hold nil"))
        }

        mutating func encode(_ value: Bool) throws { append(.bool(value)) }
        mutating func encode(_ value: String) throws { append(.string(value)) }
        mutating func encode(_ value: Double) throws { append(.double(value)) }
        mutating func encode(_ value: Float) throws { append(.float(value)) }
        mutating func encode(_ value: Int) throws { append(.integer(PropertyListInteger(value))) }
        mutating func encode(_ value: Int8) throws { append(.integer(PropertyListInteger(Int64(value)))) }
        mutating func encode(_ value: Int16) throws { append(.integer(PropertyListInteger(Int64(value)))) }
        mutating func encode(_ value: Int32) throws { append(.integer(PropertyListInteger(Int64(value)))) }
        mutating func encode(_ value: Int64) throws { append(.integer(PropertyListInteger(value))) }
        mutating func encode(_ value: UInt) throws { append(.integer(PropertyListInteger(UInt64(value)))) }
        mutating func encode(_ value: UInt8) throws { append(.integer(PropertyListInteger(UInt64(value)))) }
        mutating func encode(_ value: UInt16) throws { append(.integer(PropertyListInteger(UInt64(value)))) }
        mutating func encode(_ value: UInt32) throws { append(.integer(PropertyListInteger(UInt64(value)))) }
        mutating func encode(_ value: UInt64) throws { append(.integer(PropertyListInteger(value))) }

        mutating func encode(_ value: Int128) throws {
            append(try ValueEncoder.integer(value, codingPath: codingPath + [PropertyListCodingKey(index: count)]))
        }

        mutating func encode(_ value: UInt128) throws {
            append(try ValueEncoder.integer(value, codingPath: codingPath + [PropertyListCodingKey(index: count)]))
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let key = PropertyListCodingKey(index: count)
            let slot = newElement()
            try ValueEncoder.encode(value, into: slot, codingPath: codingPath + [key], userInfo: encoder.userInfo)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let key = PropertyListCodingKey(index: count)
            return encoder.child(newElement(), at: key).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let key = PropertyListCodingKey(index: count)
            return encoder.child(newElement(), at: key).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let key = PropertyListCodingKey(index: count)
            return encoder.child(newElement(), at: key)
        }

        private func append(_ value: PropertyListValue) {
            unkeyed.elements.append(EncodingSlot(allowsNil: false, content: .value(value)))
        }

        private func newElement() -> EncodingSlot {
            let slot = EncodingSlot(allowsNil: false)
            unkeyed.elements.append(slot)
            return slot
        }
    }
}
