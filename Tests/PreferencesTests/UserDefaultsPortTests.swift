import Foundation
import Preferences
import Testing
import TestSupport

/// corelibs-Foundation's own `TestUserDefaults` (Tests/Foundation/TestUserDefaults.swift), case
/// for case and under the same names, with ``PreferencesUserDefaults`` in place of
/// `UserDefaults` (issue 38, item 1). Every case holds its defaults as a `UserDefaults`, so
/// each call reaches the subclass through Foundation's class, as code written for Foundation
/// makes it.
///
/// Where the port differs from corelibs, and why:
/// - `UserDefaults.standard` and `UserDefaults(suiteName: nil)` become an instance on a
///   private preferences home (``StoreFixture``): the test process must not write the real
///   `~/.config/preferences`. `PreferencesUserDefaults.standard` itself is tested in a child
///   process (``UserDefaultsSubclassTests/standardInAnotherProcess()``).
/// - `test_persistentDomain` counts the notifications of its own instances, not every
///   `UserDefaults.didChangeNotification` in the process (other suites run in parallel and
///   post their own), and observes with no queue: a test here runs no main run loop. The
///   count, 3, is corelibs' own.
/// - Nothing else differs: the assertions are corelibs'.
@Suite("corelibs-Foundation's TestUserDefaults, run on PreferencesUserDefaults")
final class UserDefaultsPortTests {
    let fixture: StoreFixture
    /// The instances a case made, written out before the fixture's directory goes (a
    /// background write after it would find no directory).
    private var opened: [UserDefaults] = []

    init() throws {
        fixture = try StoreFixture()
    }

    deinit {
        for defaults in opened { defaults.synchronize() }
    }

    /// What corelibs' cases call `UserDefaults.standard`.
    func standard() throws -> UserDefaults {
        let defaults = try PreferencesUserDefaults(domain: "com.example.test", configuration: fixture.configuration)
        opened.append(defaults)
        return defaults
    }

    @Test func test_createUserDefaults() throws {
        let defaults = try standard()
        defaults.set(4, forKey: "ourKey")
        #expect(defaults.integer(forKey: "ourKey") == 4)
    }

    // MARK: Registered defaults

    @Test func test_getRegisteredDefaultItem() throws {
        let defaults = try standard()
        defaults.register(defaults: ["key1": NSNumber(value: Int(5))])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.integer(forKey: "key1") == 5)
    }

    @Test func test_getRegisteredDefaultItem_NSString() throws {
        let defaults = try standard()
        defaults.register(defaults: ["key1": "hello" as NSString])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.string(forKey: "key1") == "hello")
    }

    @Test func test_getRegisteredDefaultItem_String() throws {
        let defaults = try standard()
        defaults.register(defaults: ["key1": "hello"])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.string(forKey: "key1") == "hello")
    }

    @Test func test_getRegisteredDefaultItem_NSURL() throws {
        let defaults = try standard()
        defaults.register(defaults: ["key1": NSURL(fileURLWithPath: "/hello/world")])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.url(forKey: "key1") == URL(fileURLWithPath: "/hello/world"))
    }

    @Test func test_getRegisteredDefaultItem_URL() throws {
        let defaults = try standard()
        defaults.register(defaults: ["key1": URL(fileURLWithPath: "/hello/world")])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.url(forKey: "key1") == URL(fileURLWithPath: "/hello/world"))
    }

    @Test func test_getRegisteredDefaultItem_NSData() throws {
        let defaults = try standard()
        let bytes: [UInt8] = [0, 1, 2, 3, 4]
        defaults.register(defaults: ["key1": NSData(bytes: bytes, length: bytes.count)])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.data(forKey: "key1") == Data(bytes))
    }

    @Test func test_getRegisteredDefaultItem_Data() throws {
        let defaults = try standard()
        let bytes: [UInt8] = [0, 1, 2, 3, 4]
        defaults.register(defaults: ["key1": Data(bytes)])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.data(forKey: "key1") == Data(bytes))
    }

    @Test func test_getRegisteredDefaultItem_BoolFromString() throws {
        let defaults = try standard()
        defaults.register(defaults: ["key1": "YES"])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.bool(forKey: "key1") == true)
    }

    @Test func test_getRegisteredDefaultItem_IntFromString() throws {
        let defaults = try standard()
        defaults.register(defaults: ["key1": "1234"])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.integer(forKey: "key1") == 1234)
    }

    @Test func test_getRegisteredDefaultItem_DoubleFromString() throws {
        let defaults = try standard()
        defaults.register(defaults: ["key1": "12.34"])
        defaults.removeObject(forKey: "key1")
        #expect(defaults.double(forKey: "key1") == 12.34)
    }

    // MARK: Set values

    @Test func test_setValue_NSString() throws {
        let defaults = try standard()
        defaults.set("hello" as NSString, forKey: "key1")
        #expect(defaults.string(forKey: "key1") == "hello")
    }

    @Test func test_setValue_String() throws {
        let defaults = try standard()
        defaults.set("hello", forKey: "key1")
        #expect(defaults.string(forKey: "key1") == "hello")
    }

    @Test func test_setValue_NSURL() throws {
        let defaults = try standard()
        defaults.set(NSURL(fileURLWithPath: "/hello/world"), forKey: "key1")
        #expect(defaults.url(forKey: "key1") == URL(fileURLWithPath: "/hello/world"))
    }

    @Test func test_setValue_URL() throws {
        let defaults = try standard()
        defaults.set(URL(fileURLWithPath: "/hello/world"), forKey: "key1")
        #expect(defaults.url(forKey: "key1") == URL(fileURLWithPath: "/hello/world"))
    }

    @Test func test_setValue_NSData() throws {
        let defaults = try standard()
        let bytes: [UInt8] = [0, 1, 2, 3, 4]
        defaults.set(NSData(bytes: bytes, length: bytes.count), forKey: "key1")
        #expect(defaults.data(forKey: "key1") == Data(bytes))
    }

    @Test func test_setValue_Data() throws {
        let defaults = try standard()
        let bytes: [UInt8] = [0, 1, 2, 3, 4]
        defaults.set(Data(bytes), forKey: "key1")
        #expect(defaults.data(forKey: "key1") == Data(bytes))
    }

    @Test func test_setValue_BoolFromString() throws {
        let defaults = try standard()
        defaults.set("YES", forKey: "key1")
        #expect(defaults.bool(forKey: "key1") == true)
    }

    @Test func test_setValue_IntFromBool() throws {
        let defaults = try standard()
        defaults.set(true, forKey: "key1")
        #expect(defaults.integer(forKey: "key1") == 1)
    }

    @Test func test_setValue_IntFromFloat() throws {
        let defaults = try standard()
        defaults.set(12.34 as Float, forKey: "key1")
        #expect(defaults.integer(forKey: "key1") == 12)
    }

    @Test func test_setValue_IntFromDouble() throws {
        let defaults = try standard()
        defaults.set(12.34, forKey: "key1")
        #expect(defaults.integer(forKey: "key1") == 12)
    }

    @Test func test_setValue_IntFromString() throws {
        let defaults = try standard()
        defaults.set("1234", forKey: "key1")
        #expect(defaults.integer(forKey: "key1") == 1234)
    }

    @Test func test_setValue_FloatFromBool() throws {
        let defaults = try standard()
        defaults.set(true, forKey: "key1")
        #expect(defaults.float(forKey: "key1") == 1)
    }

    @Test func test_setValue_FloatFromInt() throws {
        let defaults = try standard()
        defaults.set(42, forKey: "key1")
        #expect(defaults.float(forKey: "key1") == 42)
    }

    @Test func test_setValue_FloatFromDouble() throws {
        let defaults = try standard()
        defaults.set(12.34, forKey: "key1")
        #expect(defaults.float(forKey: "key1") == 12.34)
    }

    @Test func test_setValue_FloatFromString() throws {
        let defaults = try standard()
        defaults.set("1234", forKey: "key1")
        #expect(defaults.float(forKey: "key1") == 1234)
    }

    @Test func test_setValue_DoubleFromBool() throws {
        let defaults = try standard()
        defaults.set(true, forKey: "key1")
        #expect(defaults.double(forKey: "key1") == 1)
    }

    @Test func test_setValue_DoubleFromInt() throws {
        let defaults = try standard()
        defaults.set(42, forKey: "key1")
        #expect(defaults.double(forKey: "key1") == 42)
    }

    @Test func test_setValue_DoubleFromFloat() throws {
        let defaults = try standard()
        defaults.set(12.34 as Float, forKey: "key1")
        #expect(defaults.double(forKey: "key1") == Double(12.34 as Float))
    }

    @Test func test_setValue_DoubleFromString() throws {
        let defaults = try standard()
        defaults.set("12.34", forKey: "key1")
        #expect(defaults.double(forKey: "key1") == 12.34)
    }

    @Test func test_setValue_StringFromBool() throws {
        let defaults = try standard()
        defaults.set(true, forKey: "key1")
        #expect(defaults.string(forKey: "key1") == "1")
    }

    @Test func test_setValue_StringFromInt() throws {
        let defaults = try standard()
        defaults.set(42, forKey: "key1")
        #expect(defaults.string(forKey: "key1") == "42")
    }

    @Test func test_setValue_StringFromFloat() throws {
        let defaults = try standard()
        defaults.set(12.34 as Float, forKey: "key1")
        #expect(defaults.string(forKey: "key1") == "12.34")
    }

    @Test func test_setValue_StringFromDouble() throws {
        let defaults = try standard()
        defaults.set(12.34, forKey: "key1")
        #expect(defaults.string(forKey: "key1") == "12.34")
    }

    // MARK: Domains

    @Test func test_volatileDomains() throws {
        let (dateKey, stringKey, arrayKey) = ("A Date", "A String", "An Array")
        let (dictionaryKey, dataKey, boolKey) = ("A Dictionary", "Some Data", "A Bool")
        let defaultsIn: [String: Any] = [
            dateKey: Date(),
            stringKey: "The String",
            arrayKey: [1, 2, 3],
            dictionaryKey: ["Swift": "Imperative", "Haskell": "Functional", "LISP": "LISP", "Today": Date()],
            dataKey: Data("The Data".utf8),
            boolKey: true,
        ]
        let domainName = "TestDomain"
        let defaults = try standard()
        #expect(!defaults.volatileDomainNames.contains(domainName))

        defaults.setVolatileDomain(defaultsIn, forName: domainName)
        let defaultsOut = defaults.volatileDomain(forName: domainName)
        #expect(defaultsIn.count == defaultsOut.count)
        #expect(defaultsIn[dateKey] as? Date == defaultsOut[dateKey] as? Date)
        #expect(defaultsIn[stringKey] as? String == defaultsOut[stringKey] as? String)
        #expect(defaultsIn[arrayKey] as? [Int] == defaultsOut[arrayKey] as? [Int])
        #expect(defaultsIn[dictionaryKey] as? [String: AnyHashable] == defaultsOut[dictionaryKey] as? [String: AnyHashable])
        #expect(defaultsIn[dataKey] as? Data == defaultsOut[dataKey] as? Data)
        #expect(defaultsIn[boolKey] as? Bool == defaultsOut[boolKey] as? Bool)
        #expect(defaultsOut[dateKey] is Date && defaultsOut[arrayKey] is [Int] && defaultsOut[boolKey] is Bool)
    }

    @Test func test_persistentDomain() throws {
        let int = (key: "An Integer", value: 1234)
        let double = (key: "A Double", value: 5678.1234)
        let string = (key: "A String", value: "Some string")
        let array = (key: "An Array", value: [1, 2, 3, 4, "Surprise"] as [AnyHashable])
        let dictionary = (
            key: "A Dictionary",
            value: ["Swift": "Imperative", "Haskell": "Functional", "LISP": "LISP", "Today": Date()] as [String: AnyHashable])
        let domainName = "org.swift.Foundation.TestPersistentDomainName"

        let defaults1 = try standard()
        let defaults2 = try standard()
        let defaults3 = try standard()
        let ours = Set([defaults1, defaults2, defaults3].map(ObjectIdentifier.init))
        let fired = Counter()
        let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) { note in
            if let object = note.object as AnyObject?, ours.contains(ObjectIdentifier(object)) { fired.add() }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        defaults1.removePersistentDomain(forName: domainName)
        if let domain = defaults1.persistentDomain(forName: domainName) {
            #expect(domain.count == 0)
        }  // else it's nil, which is also OK (corelibs' words).

        let defaultsIn: [String: Any] = [
            int.key: int.value, double.key: double.value, string.key: string.value,
            array.key: array.value, dictionary.key: dictionary.value,
        ]
        defaults1.setPersistentDomain(defaultsIn, forName: domainName)

        let returned = try #require(defaults2.persistentDomain(forName: domainName))
        #expect(returned.count == defaultsIn.count)
        #expect(returned[int.key] as? Int == int.value)
        #expect(returned[double.key] as? Double == double.value)
        #expect(returned[string.key] as? String == string.value)
        #expect(returned[array.key] as? [AnyHashable] == array.value)
        #expect(returned[dictionary.key] as? [String: AnyHashable] == dictionary.value)

        defaults2.removePersistentDomain(forName: domainName)
        if let domain = defaults3.persistentDomain(forName: domainName) {
            #expect(domain.count == 0)
        }
        #expect(fired.value == 3)
        // Written, and nothing posted twice once the background writes have run.
        #expect(defaults3.synchronize())
        #expect(fired.value == 3)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
