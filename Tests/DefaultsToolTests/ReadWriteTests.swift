import Foundation
import PropertyList
import Testing

/// `write` with every type flag and `read` of what it wrote, through the real binary.
@Suite("defaults write and read")
struct ReadWriteTests {
    @Test("write -string, -int, -integer, -float, -bool, -boolean, -date, -data store typed values")
    func typedScalars() throws {
        let tool = try ToolFixture()
        let domain = "com.example.types"
        try tool.output(["write", domain, "s", "-string", "Hello world"])
        try tool.output(["write", domain, "i", "-int", "42"])
        try tool.output(["write", domain, "n", "-integer", "-7"])
        try tool.output(["write", domain, "f", "-float", "1.5"])
        try tool.output(["write", domain, "b", "-bool", "yes"])
        try tool.output(["write", domain, "B", "-boolean", "FALSE"])
        try tool.output(["write", domain, "d", "-date", "2024-01-02 03:04:05 +0000"])
        try tool.output(["write", domain, "x", "-data", "0fbd77a0"])
        let disk = try #require(try tool.onDisk(domain))
        #expect(disk["s"] == "Hello world")
        #expect(disk["i"] == 42)
        #expect(disk["n"] == -7)
        #expect(disk["f"] == .double(1.5))
        #expect(disk["b"] == true)
        #expect(disk["B"] == false)
        #expect(disk["d"] == .date(Date(timeIntervalSince1970: 1_704_164_645)))
        #expect(disk["x"] == .data(Data([0x0f, 0xbd, 0x77, 0xa0])))
        #expect(try tool.output(["read", domain, "s"]) == "Hello world\n")
        #expect(try tool.output(["read", domain, "i"]) == "42\n")
    }
}
