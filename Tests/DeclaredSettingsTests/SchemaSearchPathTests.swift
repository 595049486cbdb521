import DeclaredSettings
import Testing

/// Where schemas are looked for, from the environment.
@Suite("Schema search path")
struct SchemaSearchPathTests {
    @Test("PREFERENCES_SCHEMA_PATH wins over the XDG variables, in order, dropping relative entries")
    func explicitPath() {
        let path = SchemaSearchPath(
            environment: [
                "PREFERENCES_SCHEMA_PATH": "/opt/schemas:relative/dir::./here:/srv/app/schemas",
                "XDG_DATA_HOME": "/data/home", "XDG_DATA_DIRS": "/data/dirs",
            ],
            home: "/home/ada"
        )
        #expect(path.directories == ["/opt/schemas", "/srv/app/schemas"])
    }

    @Test("PREFERENCES_SCHEMA_PATH entries lose trailing slashes and repeats; set but empty, it turns lookup off")
    func explicitPathNormalised() {
        let path = SchemaSearchPath(environment: ["PREFERENCES_SCHEMA_PATH": "/opt/schemas/:/opt/schemas:/:/srv//"], home: "/home/ada/")
        #expect(path.directories == ["/opt/schemas", "/", "/srv"])
        #expect(SchemaSearchPath(environment: ["PREFERENCES_SCHEMA_PATH": ""], home: "/home/ada").directories.isEmpty)
        #expect(SchemaSearchPath(environment: [:], home: "/home/ada/").directories.first == "/home/ada/.local/share/preferences/schemas")
    }

    @Test("with nothing set, the XDG defaults are ~/.local/share then /usr/local/share and /usr/share")
    func defaults() {
        let path = SchemaSearchPath(environment: [:], home: "/home/ada")
        #expect(path.directories == [
            "/home/ada/.local/share/preferences/schemas", "/usr/local/share/preferences/schemas", "/usr/share/preferences/schemas",
        ])
    }

    @Test("empty or relative XDG variables count as unset")
    func emptyAndRelative() {
        let expected = [
            "/home/ada/.local/share/preferences/schemas", "/usr/local/share/preferences/schemas", "/usr/share/preferences/schemas",
        ]
        #expect(SchemaSearchPath(environment: ["XDG_DATA_HOME": "", "XDG_DATA_DIRS": ""], home: "/home/ada").directories == expected)
        #expect(SchemaSearchPath(environment: ["XDG_DATA_HOME": "data"], home: "/home/ada").directories == expected)
        let relativeDirs = SchemaSearchPath(environment: ["XDG_DATA_DIRS": "share:/opt/share:other"], home: "/home/ada")
        #expect(relativeDirs.directories == ["/home/ada/.local/share/preferences/schemas", "/opt/share/preferences/schemas"])
    }

    @Test("XDG_DATA_HOME and XDG_DATA_DIRS are used in order, trailing slashes trimmed, duplicates removed")
    func xdg() {
        let path = SchemaSearchPath(
            environment: ["XDG_DATA_HOME": "/data/home/", "XDG_DATA_DIRS": "/a//:/b:/a:/data/home:/b/"],
            home: "/home/ada"
        )
        #expect(path.directories == [
            "/data/home/preferences/schemas", "/a/preferences/schemas", "/b/preferences/schemas",
        ])
        let root = SchemaSearchPath(environment: ["XDG_DATA_HOME": "/x", "XDG_DATA_DIRS": "/"], home: "/home/ada")
        #expect(root.directories == ["/x/preferences/schemas", "/preferences/schemas"])
    }

    @Test("candidates try each directory's native file before its bundle, directory by directory")
    func candidates() {
        let path = SchemaSearchPath(directories: ["/first", "/second"])
        let candidates = path.candidates(forDomain: "com.example.greeter")
        #expect(candidates.map(\.path) == [
            "/first/com.example.greeter.plist", "/first/com.example.greeter.bundle/Root.plist",
            "/second/com.example.greeter.plist", "/second/com.example.greeter.bundle/Root.plist",
        ])
        #expect(candidates.map(\.format) == [.native, .settingsBundle, .native, .settingsBundle])
        #expect(candidates.map(\.entry) == [
            "com.example.greeter.plist", "com.example.greeter.bundle", "com.example.greeter.plist", "com.example.greeter.bundle",
        ])
        #expect(candidates[1].directory == "/first")
        #expect(SchemaSearchPath(directories: []).candidates(forDomain: "x").isEmpty)
    }
}
