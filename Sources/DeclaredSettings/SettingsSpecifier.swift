public import PropertyList

/// One entry of a Settings.bundle pane, as the iOS Settings app shows it: a group header, a
/// control bound to a key, or a link to a child pane.
///
/// Titles here are the ones to show: ``SettingsBundleLayout`` has already looked them up in
/// the pane's strings table, or left the raw words where the table has none.
public struct SettingsSpecifier: Sendable, Hashable {
    /// The kinds of specifier a Settings.bundle may hold.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `PSGroupSpecifier`: starts a section, with a title and a footer.
        case group = "PSGroupSpecifier"
        /// `PSToggleSwitchSpecifier`: a switch, on and off stored as `TrueValue`/`FalseValue`.
        case toggleSwitch = "PSToggleSwitchSpecifier"
        /// `PSSliderSpecifier`: a number from `MinimumValue` to `MaximumValue`.
        case slider = "PSSliderSpecifier"
        /// `PSMultiValueSpecifier`: one of `Values`, shown by `Titles`, picked from a list.
        case multiValue = "PSMultiValueSpecifier"
        /// `PSRadioGroupSpecifier`: one of `Values`, shown as a section of choices.
        case radioGroup = "PSRadioGroupSpecifier"
        /// `PSTextFieldSpecifier`: a string, typed in (secure, keyboard type).
        case textField = "PSTextFieldSpecifier"
        /// `PSTitleValueSpecifier`: a value shown, not edited.
        case titleValue = "PSTitleValueSpecifier"
        /// `PSChildPaneSpecifier`: a link to another pane of the bundle (`File`).
        case childPane = "PSChildPaneSpecifier"
    }

    /// What the specifier is.
    public var kind: Kind
    /// The key it shows and changes; nil for groups and child panes.
    public var key: String?
    /// Its title (`Title`), localized.
    public var title: String?
    /// The words under a group or radio group (`FooterText`), localized.
    public var footer: String?
    /// The value shown when no layer holds one (`DefaultValue`).
    public var defaultValue: PropertyListValue?
    /// What a switch stores when on (`TrueValue`); nil stores `true`.
    public var trueValue: PropertyListValue?
    /// What a switch stores when off (`FalseValue`); nil stores `false`.
    public var falseValue: PropertyListValue?
    /// A slider's smallest value (`MinimumValue`).
    public var minimum: PropertyListValue?
    /// A slider's largest value (`MaximumValue`).
    public var maximum: PropertyListValue?
    /// The values a multi-value, radio group or title value may show (`Values`).
    public var values: [PropertyListValue]?
    /// The words for each of ``values`` (`Titles`), localized.
    public var titles: [String]?
    /// A text field that hides what is typed (`IsSecure`).
    public var isSecure: Bool
    /// A text field's keyboard (`KeyboardType`: `Alphabet`, `NumbersAndPunctuation`,
    /// `NumberPad`, `URL`, `EmailAddress`).
    public var keyboardType: String?
    /// A text field's capitalization (`AutocapitalizationType`: `None`, `Sentences`,
    /// `Words`, `AllCharacters`).
    public var autocapitalization: String?
    /// A text field's correction (`AutocorrectionType`: `Default`, `No`, `Yes`).
    public var autocorrection: String?
    /// The pane a child pane specifier leads to (`File`, without `.plist`).
    public var childPane: String?

    /// Creates a specifier.
    public init(
        kind: Kind, key: String? = nil, title: String? = nil, footer: String? = nil, defaultValue: PropertyListValue? = nil,
        trueValue: PropertyListValue? = nil, falseValue: PropertyListValue? = nil,
        minimum: PropertyListValue? = nil, maximum: PropertyListValue? = nil,
        values: [PropertyListValue]? = nil, titles: [String]? = nil, isSecure: Bool = false,
        keyboardType: String? = nil, autocapitalization: String? = nil, autocorrection: String? = nil, childPane: String? = nil
    ) {
        self.kind = kind
        self.key = key
        self.title = title
        self.footer = footer
        self.defaultValue = defaultValue
        self.trueValue = trueValue
        self.falseValue = falseValue
        self.minimum = minimum
        self.maximum = maximum
        self.values = values
        self.titles = titles
        self.isSecure = isSecure
        self.keyboardType = keyboardType
        self.autocapitalization = autocapitalization
        self.autocorrection = autocorrection
        self.childPane = childPane
    }

    /// The title shown for `value` among ``values`` (numbers compare by value), if listed.
    public func title(of value: PropertyListValue) -> String? {
        guard let values, let titles, titles.count == values.count,
            let index = values.firstIndex(where: { DeclaredKey.same($0, value) })
        else { return nil }
        return titles[index]
    }
}

/// One pane of a Settings.bundle: `Root.plist` or a child pane's file.
public struct SettingsPane: Sendable, Hashable {
    /// The file's name without `.plist` (`Root` for the first pane).
    public var file: String
    /// The pane's title: the child pane specifier's that leads to it (or the file's own
    /// `Title`), localized; nil for `Root`.
    public var title: String?
    /// The strings table its words are looked up in (`StringsTable`), if it names one.
    public var stringsTable: String?
    /// Its specifiers, in order.
    public var specifiers: [SettingsSpecifier]

    /// Creates a pane.
    public init(file: String, title: String? = nil, stringsTable: String? = nil, specifiers: [SettingsSpecifier]) {
        self.file = file
        self.title = title
        self.stringsTable = stringsTable
        self.specifiers = specifiers
    }
}
