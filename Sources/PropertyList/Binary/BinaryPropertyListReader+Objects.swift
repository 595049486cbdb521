#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BinaryPropertyListReader {
    /// Decodes object `index`, found inside `depth` enclosing containers.
    mutating func value(at index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let (word, bit) = (index >> 6, UInt64(1) << UInt64(index & 63))
        if isShared[word] & bit != 0, let reused = shared[index] {
            try countExpanded(reused.size, object: index)
            guard depth + reused.height <= limits.depth else {
                throw PropertyListError(
                    .tooDeep, at: try offset(of: index),
                    "object \(index) nests containers deeper than \(limits.depth) where it is shared")
            }
            deepest = max(deepest, depth + reused.height)
            return reused.value
        }
        if inProgress[word] & bit != 0 {
            throw PropertyListError(.cycle, at: try offset(of: index), "object \(index) contains itself")
        }
        let offset = try offset(of: index)
        let marker = bytes[offset]
        let value: PropertyListValue
        switch marker & 0xF0 {
        case 0x00:
            try countExpanded(1, object: index)
            switch marker {
            case Marker.false: value = .bool(false)
            case Marker.true: value = .bool(true)
            case Marker.null: throw PropertyListError(.unsupportedType, at: offset, "object \(index) is a null, which property lists cannot hold")
            case Marker.fill: throw PropertyListError(.unsupportedType, at: offset, "object \(index) is a fill byte, not a value")
            default: throw Self.badMarker(marker, object: index, at: offset)
            }
        case Marker.integer:
            try countExpanded(1, object: index)
            value = .integer(try integer(marker: marker, object: index, at: offset))
        case Marker.real:
            try countExpanded(1, object: index)
            switch marker {
            case Marker.float32:
                try need(4, after: offset, for: "32-bit real", object: index)
                value = .float(Float(bitPattern: UInt32(Self.readUnsigned(bytes, at: offset + 1, width: 4))))
            case Marker.float64:
                try need(8, after: offset, for: "64-bit real", object: index)
                value = .double(Double(bitPattern: Self.readUnsigned(bytes, at: offset + 1, width: 8)))
            default:
                throw Self.badMarker(marker, object: index, at: offset)
            }
        case 0x30:
            try countExpanded(1, object: index)
            guard marker == Marker.date else { throw Self.badMarker(marker, object: index, at: offset) }
            try need(8, after: offset, for: "date", object: index)
            let seconds = Double(bitPattern: Self.readUnsigned(bytes, at: offset + 1, width: 8))
            // A NaN date is no moment at all: it never equals itself (so every reload would
            // look like a change) and Foundation's `Date.description` traps on it.
            guard !seconds.isNaN else {
                throw PropertyListError(.invalidDate, at: offset, "object \(index) is a date whose time is NaN (not a number)")
            }
            value = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case Marker.data:
            try countExpanded(1, object: index)
            let (length, start) = try count(marker: marker, object: index, at: offset, elementWidth: 1, what: "data")
            value = .data(Data(bytes: bytes.baseAddress! + start, count: length))
        case Marker.asciiString:
            try countExpanded(1, object: index)
            value = .string(try asciiString(marker: marker, object: index, at: offset))
        case Marker.utf16String:
            try countExpanded(1, object: index)
            value = .string(try utf16String(marker: marker, object: index, at: offset))
        case Marker.uid:
            throw PropertyListError(.unsupportedType, at: offset, "object \(index) is a keyed-archiver UID, which preferences cannot hold")
        case Marker.set:
            throw PropertyListError(.unsupportedType, at: offset, "object \(index) is a set, which property lists cannot hold")
        case Marker.array, Marker.dictionary:
            let (expandedBefore, deepestBefore) = (expandedCount, deepest)
            deepest = depth
            value = marker & 0xF0 == Marker.array
                ? try array(marker: marker, object: index, at: offset, depth: depth)
                : try dictionary(marker: marker, object: index, at: offset, depth: depth)
            if isVisited[word] & bit != 0 {
                shared[index] = SharedObject(value: value, size: expandedCount - expandedBefore, height: deepest - depth)
                isShared[word] |= bit
            }
            isVisited[word] |= bit
            deepest = max(deepest, deepestBefore)
            return value
        default:
            throw Self.badMarker(marker, object: index, at: offset)
        }
        // Strings and data of 16 bytes or more live on the heap: share them from their
        // second reference on. Shorter ones are stored inline and cost nothing to decode
        // again.
        if marker & 0x0F == Marker.countFollows,
            marker & 0xF0 == Marker.data || marker & 0xF0 == Marker.asciiString || marker & 0xF0 == Marker.utf16String
        {
            if isVisited[word] & bit != 0 {
                shared[index] = SharedObject(value: value, size: 1, height: 0)
                isShared[word] |= bit
            }
            isVisited[word] |= bit
        }
        return value
    }

    private mutating func array(marker: UInt8, object index: Int, at offset: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let (count, start) = try beginContainer(marker: marker, object: index, at: offset, depth: depth, references: 1, what: "array")
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(count)
        for position in 0..<count {
            let child = try reference(at: start + position * referenceWidth, in: index)
            elements.append(try value(at: child, depth: depth + 1))
        }
        finishContainer(index)
        return .array(elements)
    }

    private mutating func dictionary(marker: UInt8, object index: Int, at offset: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let (count, start) = try beginContainer(marker: marker, object: index, at: offset, depth: depth, references: 2, what: "dictionary")
        var entries: [String: PropertyListValue] = Dictionary(minimumCapacity: count)
        let valuesStart = start + count * referenceWidth
        for position in 0..<count {
            let keyObject = try reference(at: start + position * referenceWidth, in: index)
            let keyOffset = try self.offset(of: keyObject)
            let keyType = bytes[keyOffset] & 0xF0
            guard keyType == Marker.asciiString || keyType == Marker.utf16String else {
                throw PropertyListError(
                    .invalidKey, at: keyOffset,
                    "dictionary object \(index) has key \(position) (object \(keyObject)) with marker "
                        + "\(Self.hex(bytes[keyOffset])), not a string")
            }
            let key = try key(at: keyObject, offset: keyOffset)
            let child = try reference(at: valuesStart + position * referenceWidth, in: index)
            entries[key] = try value(at: child, depth: depth + 1)
        }
        finishContainer(index)
        return .dictionary(entries)
    }

    /// Decodes key object `index`, whose marker at `offset` has been checked to be a
    /// string's: what `value(at:depth:)` does for a string, without its dispatch and
    /// without wrapping the string in a value only to unwrap it again, for the most
    /// frequent object of a domain. A string is never in progress, so there is no cycle to
    /// check, and it nests nothing, so reusing a shared one cannot deepen the tree.
    private mutating func key(at index: Int, offset: Int) throws(PropertyListError) -> String {
        let (word, bit) = (index >> 6, UInt64(1) << UInt64(index & 63))
        if isShared[word] & bit != 0, let reused = shared[index], case .string(let string) = reused.value {
            try countExpanded(reused.size, object: index)
            return string
        }
        try countExpanded(1, object: index)
        let marker = bytes[offset]
        let string = marker & 0xF0 == Marker.asciiString
            ? try asciiString(marker: marker, object: index, at: offset)
            : try utf16String(marker: marker, object: index, at: offset)
        // Shared from the second reference on, as `value(at:depth:)` shares strings.
        if marker & 0x0F == Marker.countFollows {
            if isVisited[word] & bit != 0 {
                shared[index] = SharedObject(value: .string(string), size: 1, height: 0)
                isShared[word] |= bit
            }
            isVisited[word] |= bit
        }
        return string
    }

    /// Checks depth and length for a container, marks it in progress and counts it.
    private mutating func beginContainer(
        marker: UInt8, object index: Int, at offset: Int, depth: Int, references: Int, what: StaticString
    ) throws(PropertyListError) -> (count: Int, start: Int) {
        guard depth < limits.depth else {
            throw PropertyListError(.tooDeep, at: offset, "\(what) object \(index) nests deeper than \(limits.depth) containers")
        }
        let (count, start) = try count(
            marker: marker, object: index, at: offset, elementWidth: references * referenceWidth, what: what)
        inProgress[index >> 6] |= UInt64(1) << UInt64(index & 63)
        deepest = max(deepest, depth + 1)
        try countExpanded(1, object: index)
        return (count, start)
    }

    private mutating func finishContainer(_ index: Int) {
        inProgress[index >> 6] &= ~(UInt64(1) << UInt64(index & 63))
    }

    @inline(__always)
    private mutating func countExpanded(_ amount: Int, object index: Int) throws(PropertyListError) {
        expandedCount += amount
        guard expandedCount <= limits.expandedObjectCount else {
            throw PropertyListError(
                .tooManyExpandedObjects, at: try? offset(of: index),
                "shared references expand to more than \(limits.expandedObjectCount) values (reached at object \(index))")
        }
    }
}
