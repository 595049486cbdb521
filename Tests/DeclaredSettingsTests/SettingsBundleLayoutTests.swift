import DeclaredSettings
import Foundation
import PropertyList
import TestSupport
import Testing

/// A Settings.bundle read as the Settings app shows it: panes, specifiers and their words
/// from the strings tables.
@Suite("Settings.bundle layout and strings tables")
struct SettingsBundleLayoutTests {
    /// A bundle with every specifier type, a child pane and `Root` strings in English and German.
    static func bundle(in directory: borrowing TemporaryDirectory) throws -> String {
        try directory.write("app.bundle/Root.plist", [
            "StringsTable": "Root",
            "PreferenceSpecifiers": [
                specifier("PSGroupSpecifier", ["Title": "GROUP_MAIN", "FooterText": "FOOTER_MAIN"]),
                specifier("PSToggleSwitchSpecifier", ["Key": "Enabled", "Title": "ENABLED_TITLE", "DefaultValue": true]),
                specifier("PSToggleSwitchSpecifier", ["Key": "Mode", "Title": "MODE_TITLE", "TrueValue": "YES", "FalseValue": "NO", "DefaultValue": false]),
                specifier("PSSliderSpecifier", ["Key": "Volume", "MinimumValue": 0, "MaximumValue": 10, "DefaultValue": 5]),
                specifier("PSMultiValueSpecifier", [
                    "Key": "Count", "Title": "COUNT_TITLE", "Values": [1, 2], "Titles": ["ONE", "TWO"], "DefaultValue": 1,
                ]),
                specifier("PSRadioGroupSpecifier", [
                    "Key": "Theme", "Title": "THEME_TITLE", "FooterText": "THEME_FOOTER", "Values": ["light", "dark"], "Titles": ["LIGHT", "DARK"],
                    "DefaultValue": "light",
                ]),
                specifier("PSTextFieldSpecifier", [
                    "Key": "Token", "Title": "Token", "IsSecure": true, "KeyboardType": "Alphabet",
                    "AutocapitalizationType": "None", "AutocorrectionType": "No",
                ]),
                specifier("PSTextFieldSpecifier", ["Key": "Mail", "Title": "Mail", "KeyboardType": "EmailAddress"]),
                specifier("PSTitleValueSpecifier", ["Key": "Version", "Title": "VERSION", "DefaultValue": "1.0"]),
                specifier("PSChildPaneSpecifier", ["Title": "ADVANCED", "File": "Advanced"]),
            ],
        ])
        try directory.write("app.bundle/Advanced.plist", [
            "PreferenceSpecifiers": [specifier("PSToggleSwitchSpecifier", ["Key": "Debug", "Title": "Debug"])],
        ])
        // English as UTF-16 with a byte-order mark, the form Xcode wrote for years.
        let english = """
            /* Titles of the main pane. */
            "GROUP_MAIN" = "Main";
            "FOOTER_MAIN" = "Changes apply at once.";
            "COUNT_TITLE" = "Count";
            "ONE" = "One";   // a line comment
            "TWO" = "Two";
            "THEME_TITLE" = "Theme";
            "LIGHT" = "Light \\"bright\\"";
            "ADVANCED" = "Advanced";
            """
        try directory.write("app.bundle/en.lproj/Root.strings", bytes: [0xFF, 0xFE] + english.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        // German as UTF-8, and only some of the words: the rest fall back to English.
        try directory.write("app.bundle/de.lproj/Root.strings", bytes: Array("\"COUNT_TITLE\" = \"Anzahl\";\n\"ONE\" = \"Eins\";\n".utf8))
        return directory.file("app.bundle").path
    }

    @Test("every specifier type is read with its fields, in order, and the child pane after its parent")
    func specifiers() throws {
        let directory = try TemporaryDirectory()
        let layout = try SettingsBundleLayout(bundle: Self.bundle(in: directory), languages: [])
        #expect(layout.panes.map { $0.file } == ["Root", "Advanced"])
        let root = try #require(layout.pane("Root"))
        #expect(root.stringsTable == "Root")
        #expect(root.specifiers.map { $0.kind } == [.group, .toggleSwitch, .toggleSwitch, .slider, .multiValue, .radioGroup, .textField, .textField, .titleValue, .childPane])
        let items = root.specifiers
        #expect(items[0].title == "GROUP_MAIN" && items[0].footer == "FOOTER_MAIN")
        #expect(items[1].key == "Enabled" && items[1].defaultValue == true && items[1].trueValue == nil)
        #expect(items[2].trueValue == "YES" && items[2].falseValue == "NO")
        #expect(items[3].minimum == 0 && items[3].maximum == 10 && items[3].defaultValue == 5)
        #expect(items[4].values == [1, 2] && items[4].titles == ["ONE", "TWO"])
        #expect(items[5].footer == "THEME_FOOTER")
        #expect(items[6].isSecure && items[6].keyboardType == "Alphabet" && items[6].autocapitalization == "None" && items[6].autocorrection == "No")
        #expect(!items[7].isSecure && items[7].keyboardType == "EmailAddress")
        #expect(items[8].key == "Version" && items[8].defaultValue == "1.0")
        #expect(items[9].childPane == "Advanced" && items[9].key == nil)
        #expect(layout.pane("Advanced")?.title == "ADVANCED", "a child pane is titled by its link")
        #expect(layout.place(ofKey: "Debug")?.pane.file == "Advanced")
        #expect(layout.place(ofKey: "Theme")?.group?.title == "GROUP_MAIN")
    }

    @Test("words come from the first language's table that has them, then English, then the raw key")
    func localized() throws {
        let directory = try TemporaryDirectory()
        let bundle = try Self.bundle(in: directory)
        let german = try SettingsBundleLayout(bundle: bundle, languages: StringsTable.preferredLanguages(environment: ["LANG": "de_DE.UTF-8"]))
        let root = try #require(german.pane("Root"))
        #expect(root.specifiers[4].title == "Anzahl")
        #expect(root.specifiers[4].titles == ["Eins", "Two"])
        #expect(root.specifiers[0].title == "Main" && root.specifiers[0].footer == "Changes apply at once.")
        #expect(root.specifiers[5].titles == ["Light \"bright\"", "DARK"], "a word no table has stays raw")
        #expect(root.specifiers[8].title == "VERSION")
        #expect(german.pane("Advanced")?.title == "Advanced")
        #expect(german.problems.isEmpty)

        let english = try SettingsBundleLayout(bundle: bundle, languages: StringsTable.preferredLanguages(environment: ["LANG": "C"]))
        #expect(english.pane("Root")?.specifiers[4].title == "Count")
        // What `defaults describe` prints comes from here.
        let schema = english.localizing(try PreferenceSchema(contentsOf: bundle))
        #expect(schema["Count"]?.summary == "Count")
        #expect(schema["Count"]?.choiceTitles == ["One", "Two"])
        #expect(schema["Count"]?.group == "Main")
    }

    @Test("the preferred languages follow LANGUAGE, then LC_ALL, LC_MESSAGES or LANG, then English")
    func preferredLanguages() {
        #expect(StringsTable.preferredLanguages(environment: ["LANG": "pt_BR.UTF-8"]) == ["pt_BR", "pt-BR", "pt", "en", "English"])
        #expect(StringsTable.preferredLanguages(environment: ["LANG": "de_DE.UTF-8", "LC_ALL": "fr_FR@euro"]) == ["fr_FR", "fr-FR", "fr", "en", "English"])
        #expect(StringsTable.preferredLanguages(environment: ["LANGUAGE": "sv:de", "LANG": "en_US.UTF-8"]) == ["sv", "de", "en_US", "en-US", "en", "English"])
        #expect(StringsTable.preferredLanguages(environment: ["LANG": "C.UTF-8"]) == ["en", "English"])
        #expect(StringsTable.preferredLanguages(environment: [:]) == ["en", "English"])
    }

    @Test("strings files in UTF-8, UTF-16 either way round, with or without a byte-order mark, braced, XML and binary")
    func stringsFileForms() throws {
        let text = "\"A\" = \"Ä\";\n/* c */ B = \"b\";"
        let forms: [(String, [UInt8])] = [
            ("UTF-8", Array(text.utf8)),
            ("UTF-8 with a byte-order mark", [0xEF, 0xBB, 0xBF] + Array(text.utf8)),
            ("UTF-16BE with a byte-order mark", [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }),
            ("UTF-16LE without a byte-order mark", text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            ("braced", Array(("{" + text + "}").utf8)),
            ("XML", XMLPropertyListEncoder().encode(["A": "Ä", "B": "b"])),
            ("binary", try BinaryPropertyListEncoder().encode(["A": "Ä", "B": "b"])),
        ]
        for (form, bytes) in forms {
            let table = try StringsTable(data: Data(bytes), path: form)
            #expect(table.entries == ["A": "Ä", "B": "b"], "\(form)")
        }
    }

    @Test("a strings file that does not parse is passed over and named; the words stay raw")
    func brokenStringsFile() throws {
        let directory = try TemporaryDirectory()
        let bundle = try Self.bundle(in: directory)
        try directory.write("app.bundle/de.lproj/Root.strings", bytes: Array("\"COUNT_TITLE\" = ".utf8))
        let layout = try SettingsBundleLayout(bundle: bundle, languages: ["de"])
        #expect(layout.pane("Root")?.specifiers[4].title == "COUNT_TITLE")
        #expect(layout.problems.map { $0.code } == [.invalidPropertyList])
        #expect(layout.problems.first?.path.hasSuffix("de.lproj/Root.strings") == true)
        #expect(throws: SchemaError.self) { try StringsTable(data: Data("(1, 2)".utf8), path: "x") }
    }
}
