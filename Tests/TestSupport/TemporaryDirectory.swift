package import Foundation

/// A fresh directory under the system temporary directory, removed when the test is done.
package struct TemporaryDirectory: ~Copyable {
    /// The directory.
    package let url: URL

    /// Creates the directory.
    package init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift-preferences-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A file or folder inside the directory.
    package func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
