import DefaultsCommand
import Preferences

/// One setting's row as `row.mustache` draws it: its words, its control, where its value
/// comes from, and whether it can be reset.
///
/// The words are as they are; the template escapes them.
struct RowMarkup {
    /// The key in the domain.
    var key: String
    /// The id of the row's control, which its label points at: stable across renders (live
    /// updates match elements by it) and valid whatever the key holds.
    var id: String
    /// The words that name the setting.
    var title: String
    /// True for a `label` naming the control (most controls).
    var titleIsLabel: Bool
    /// True for a title only screen readers read (a radio group is titled by its section).
    var titleIsHidden: Bool
    /// True for a title shown as text, named by `aria-labelledby` (typed trees, shown values).
    var titleIsShown: Bool
    /// True when the title is not the key, which is then shown too.
    var showsKey: Bool
    /// Lines of help under the title.
    var help: [String]
    /// The kind of control, which the page's script dispatches on.
    var controlName: String
    /// The control, its value filled in.
    var control: ControlMarkup
    /// The layer the value comes from (`data-layer`), "none" when no layer holds one.
    var layer: String
    /// The words for that layer.
    var origin: String
    /// True when a managed layer forces the value: the controls are disabled.
    var isLocked: Bool
    /// True when the value is the user's own and differs from the default.
    var isChanged: Bool
    /// True when the domain's own file holds the key and nothing forces it.
    var canReset: Bool

    /// The markup of `row`.
    init(_ row: SettingRow) {
        key = row.key
        id = Self.elementID(for: row.key)
        title = row.title
        switch row.control {
        case .choice(_, _, isRadio: true): (titleIsLabel, titleIsHidden, titleIsShown) = (false, true, false)
        case .tree, .titleValue: (titleIsLabel, titleIsHidden, titleIsShown) = (false, false, true)
        default: (titleIsLabel, titleIsHidden, titleIsShown) = (true, false, false)
        }
        showsKey = row.title != row.key
        help = row.help
        controlName = Self.name(of: row.control)
        control = ControlMarkup(row)
        layer = row.layer?.rawValue ?? "none"
        origin = Self.origin(of: row)
        isLocked = row.isLocked
        isChanged = row.isChangedFromDefault
        canReset = row.domainHoldsKey && !row.isLocked
    }

    /// The name of a control kind, which the page's script dispatches on.
    static func name(of control: SettingControl) -> String {
        switch control {
        case .toggle: "toggle"
        case .slider: "slider"
        case .number: "number"
        case .choice(_, _, let isRadio): isRadio ? "radio" : "choice"
        case .text: "text"
        case .date: "date"
        case .data: "data"
        case .titleValue: "title"
        case .tree: "tree"
        }
    }

    /// The words for the layer a row's value comes from.
    static func origin(of row: SettingRow) -> String {
        guard let layer = row.layer else { return "Not set" }
        switch layer {
        case .forced: return "Set by policy" + (row.layerOrigin.map { " (\($0))" } ?? "")
        case .argument: return "Launch argument"
        case .byHost: return "This domain, this machine only"
        case .app: return "This domain"
        case .suite: return "Suite"
        case .globalByHost: return "Global domain, this machine only"
        case .global: return "Global domain"
        case .system: return "System default"
        case .systemGlobal: return "System-wide global default"
        case .registration: return "Registered default"
        case .declared: return "Default"
        }
    }

    /// `c-` and the key with every byte but ASCII letters, digits and `-` written as `_` and
    /// two hexadecimal digits: an element id whatever the key holds.
    static func elementID(for key: String) -> String {
        var id = "c-"
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                id.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                id += "_" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return id
    }
}
