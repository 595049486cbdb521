// The package's one rule for directory paths it is given (environment variables, schema search
// paths, a domain file's or a watched directory): two spellings of a directory, `/a/b` and
// `/a/b/`, must name one set of files, one watch and one commit counter. It lives in the lowest
// module that reads such paths (schema search paths); `DomainStorage` and `Preferences`, which
// depend on this module, use it too. Plain string work, no file-system call.

extension StringProtocol {
    /// This path without its trailing slashes, except that a path of slashes alone stays `/`
    /// (the root): `/a/b//` → `/a/b`, `//` → `/`, `a/` → `a`, the empty path stays empty.
    ///
    /// Only the end is touched: repeated slashes inside (`/a//b`) are left as they are.
    package func trimmingTrailingSlashes() -> String {
        let text = Substring(self)
        let bytes = text.utf8
        guard !bytes.isEmpty else { return "" }
        // By bytes, not characters: a slash after a prepended mark (U+0600) is one character
        // with it, and removing that character would take the mark too.
        let second = bytes.index(after: bytes.startIndex)
        var end = bytes.endIndex
        while end > second, bytes[bytes.index(before: end)] == UInt8(ascii: "/") {
            end = bytes.index(before: end)
        }
        return String(text[..<end])
    }

    /// `name` in this directory: the directory without its trailing slashes
    /// (``trimmingTrailingSlashes()``), one slash, and `name`, with no doubled slash under the
    /// root (`/` and `etc` give `/etc`, not `//etc`).
    ///
    /// - Parameter name: A relative path: one component, or several (`preferences/schemas`).
    package func pathAppending(_ name: some StringProtocol) -> String {
        let directory = trimmingTrailingSlashes()
        return directory == "/" ? "/" + name : directory + "/" + name
    }
}
