import ArgumentParser
import DefaultsCommand
import Foundation
import Preferences

#if canImport(Glibc)
import Glibc
#endif

/// `defaults import domain path|-`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace a domain with a property-list file (binary, XML or old-style text), or standard input for -.",
        discussion: """
            Input larger than a domain file may be (1 MiB) is refused as it is read, before \
            more than that is held in memory, and the domain is left as it was.

            Examples:
              defaults import com.example.app settings.plist
              defaults export com.example.app - | defaults import com.example.copy -
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The file, or - for standard input.") var path: String

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        let files = context.files()
        let source = path == "-" ? "standard input" : path
        // A domain file never holds more than the size limit, so input past it could never be
        // imported: reading stops there, whatever the input's length (an endless pipe too).
        let limit = files.configuration.sizeLimit
        let bytes: [UInt8]
        if path == "-" {
            bytes = try Self.read(STDIN_FILENO, source: source, limit: limit)
        } else {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw DefaultsFailure("cannot read \(path): \(String(cString: strerror(errno))); nothing was changed")
            }
            defer { close(descriptor) }
            bytes = try Self.read(descriptor, source: source, limit: limit)
        }
        guard case .dictionary(var values) = try PropertyListText.document(bytes, source: source) else {
            throw DefaultsFailure("\(source) does not hold a dictionary, so it cannot be a domain; nothing was changed")
        }
        if let schema = Write.schema(for: location, in: files),
            let violation = DeclaredValueText.check(&values, against: schema)
        {
            throw DeclaredValueText.refusal(violation, domain: location.description, schema: schema)
        }
        do throws(PreferencesError) {
            try files.replacePersistentDomain(values, at: location)
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
    }

    /// Everything `descriptor` holds, up to `limit` bytes; more is refused.
    ///
    /// The buffer is allocated once at `limit + 1` bytes and never grows, so memory stays
    /// bounded however long the input is: the one byte past the limit is what proves the
    /// input too large, and reading stops there.
    static func read(_ descriptor: Int32, source: String, limit: Int) throws(DefaultsFailure) -> [UInt8] {
        let capacity = limit + 1
        var failure: DefaultsFailure?
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = 0
            while count < capacity {
                // Bounded chunks: a read of the whole remaining buffer could ask the kernel
                // to fill a megabyte at once, which gains nothing on a pipe's 64 KiB.
                let wanted = min(capacity - count, 64 << 10)
                let got = Glibc.read(descriptor, buffer.baseAddress! + count, wanted)
                if got > 0 {
                    count += got
                } else if got == 0 {
                    return
                } else if errno != EINTR {
                    failure = DefaultsFailure("cannot read \(source): \(String(cString: strerror(errno))); nothing was changed")
                    return
                }
            }
        }
        if let failure { throw failure }
        guard bytes.count <= limit else {
            throw DefaultsFailure(
                "\(source) is larger than \(limit) bytes, the most a domain file may hold; it was not read further and nothing was changed")
        }
        return bytes
    }
}
