import Foundation
import Preferences
import Testing

@Suite("URL storage and url(forKey:)")
struct URLStorageTests {
    let home = "/home/ann"

    @Test("a file URL under home is stored as a ~ path and reads back equal")
    func fileUnderHome() {
        let url = URL(fileURLWithPath: "/home/ann/Documents/My Notes.txt", isDirectory: false)
        let stored = PropertyListValue.storing(url, home: home)
        #expect(stored == .string("~/Documents/My Notes.txt"))
        #expect(stored.coercedURL(home: home) == url)
    }

    @Test("home itself is stored as ~, with or without a trailing slash on home")
    func homeItself() {
        let url = URL(fileURLWithPath: "/home/ann", isDirectory: true)
        #expect(PropertyListValue.storing(url, home: home) == .string("~/"))
        #expect(PropertyListValue.storing(URL(fileURLWithPath: "/home/ann", isDirectory: false), home: "/home/ann/") == .string("~"))
        #expect(PropertyListValue.storing(url, home: home).coercedURL(home: home) == url)
    }

    @Test("a file URL outside home keeps its absolute path")
    func fileOutsideHome() {
        let url = URL(fileURLWithPath: "/etc/hosts", isDirectory: false)
        let stored = PropertyListValue.storing(url, home: home)
        #expect(stored == .string("/etc/hosts"))
        #expect(stored.coercedURL(home: home) == url)
    }

    @Test("a sibling directory that shares home's prefix is not abbreviated")
    func siblingOfHome() {
        let url = URL(fileURLWithPath: "/home/ann2/file", isDirectory: false)
        #expect(PropertyListValue.storing(url, home: home) == .string("/home/ann2/file"))
    }

    @Test("file URLs are standardized and directory URLs keep their trailing slash")
    func standardized() {
        let messy = URL(fileURLWithPath: "/home/ann/a/../b/./c", isDirectory: false)
        #expect(PropertyListValue.storing(messy, home: home) == .string("~/b/c"))
        let directory = URL(fileURLWithPath: "/home/ann/Projects", isDirectory: true)
        let stored = PropertyListValue.storing(directory, home: home)
        #expect(stored == .string("~/Projects/"))
        #expect(stored.coercedURL(home: home) == directory)
        #expect(stored.coercedURL(home: home)?.hasDirectoryPath == true)
    }

    @Test("a root or relative home abbreviates nothing")
    func unusableHome() {
        let url = URL(fileURLWithPath: "/etc/hosts", isDirectory: false)
        #expect(PropertyListValue.storing(url, home: "/") == .string("/etc/hosts"))
        #expect(PropertyListValue.storing(url, home: "etc") == .string("/etc/hosts"))
    }

    @Test("a web URL is stored whole: scheme, user, host, port, path, query and fragment")
    func webURL() throws {
        let url = try #require(URL(string: "https://ann@example.com:8443/a/b%20c?q=1&r=two#section-2"))
        let stored = PropertyListValue.storing(url, home: home)
        #expect(stored == .string("https://ann@example.com:8443/a/b%20c?q=1&r=two#section-2"))
        #expect(stored.coercedURL(home: home) == url)
    }

    @Test("a file URL with a query, fragment or host is stored as its absolute string")
    func fileURLThatIsNotAPath() throws {
        let withQuery = try #require(URL(string: "file:///home/ann/x?version=2#top"))
        #expect(PropertyListValue.storing(withQuery, home: home) == .string("file:///home/ann/x?version=2#top"))
        #expect(PropertyListValue.storing(withQuery, home: home).coercedURL(home: home) == withQuery)
        let withHost = try #require(URL(string: "file://server/share/x"))
        #expect(PropertyListValue.storing(withHost, home: home) == .string("file://server/share/x"))
    }

    @Test("url reads ~, absolute paths and scheme strings, and nothing else")
    func readingStrings() throws {
        #expect(PropertyListValue.string("~/x.txt").coercedURL(home: home) == URL(fileURLWithPath: "/home/ann/x.txt", isDirectory: false))
        #expect(PropertyListValue.string("~").coercedURL(home: home)?.path == "/home/ann")
        #expect(PropertyListValue.string("/var/log/").coercedURL(home: home) == URL(fileURLWithPath: "/var/log", isDirectory: true))
        #expect(PropertyListValue.string("/var/../etc/x").coercedURL(home: home)?.path == "/etc/x")
        #expect(PropertyListValue.string("https://example.com/p?q#f").coercedURL(home: home)?.absoluteString == "https://example.com/p?q#f")
        #expect(PropertyListValue.string("mailto:ann@example.com").coercedURL(home: home)?.scheme == "mailto")
        #expect(PropertyListValue.string("relative/path").coercedURL(home: home) == nil)
        #expect(PropertyListValue.string("").coercedURL(home: home) == nil)
        #expect(PropertyListValue.string("1http://x").coercedURL(home: home) == nil)
        #expect(PropertyListValue.integer(1).coercedURL(home: home) == nil)
        #expect(PropertyListValue.data(Data("https://x".utf8)).coercedURL(home: home) == nil)
    }

    @Test("~name expands to that user's home, and an unknown user gives nil")
    func otherUsersHome() throws {
        let rootHome = try #require(FileManager.default.homeDirectory(forUser: "root"))
        let expected = rootHome.appending(path: "notes", directoryHint: .notDirectory).standardizedFileURL
        #expect(PropertyListValue.string("~root/notes").coercedURL(home: home) == expected)
        #expect(PropertyListValue.string("~no-such-user-9f3a/notes").coercedURL(home: home) == nil)
    }

    @Test("the default home is $HOME when it is absolute")
    func defaultHome() {
        let environment = ProcessInfo.processInfo.environment["HOME"]
        if let environment, environment.hasPrefix("/") {
            #expect(PropertyListValue.defaultHomeDirectory == environment)
        } else {
            #expect(PropertyListValue.defaultHomeDirectory.hasPrefix("/"))
        }
    }
}
