import XCTest

@testable import TalkingClockCore
import TestSupport

/// A config file holding garbage or cut short is a clear error with a line, never a crash, and
/// never silently something else.
final class ConfigRobustnessTests: XCTestCase {

    /// The documented example cut at every byte: each prefix either parses (a cut between
    /// complete lines, or inside a comment) or is an error that names the file and a line within
    /// the prefix. A prefix that parses must agree with the full file on every key it contains.
    func testEveryTruncationOfTheExampleIsAnErrorWithALineOrAValidPrefix() throws {
        let full = Array(Config.exampleWithQuietWindows.utf8)
        let complete = try Config.parse(Config.exampleWithQuietWindows, source: "config.toml", zones: TestZones.lookup)
        XCTAssertEqual(complete.quiet.count, 2)
        var parsed = 0
        var refused = 0
        for length in 0..<full.count {
            let prefix = String(decoding: full[0..<length], as: UTF8.self)
            let lineCount = prefix.split(separator: "\n", omittingEmptySubsequences: false).count
            do {
                let config = try Config.parse(prefix, source: "config.toml", zones: TestZones.lookup)
                parsed += 1
                // A parsed prefix holds a subset of the settings; the ones it has are the file's.
                if prefix.contains("\nvolume = 100\n") { XCTAssertEqual(config.volume, complete.volume) }
                XCTAssertLessThanOrEqual(config.quiet.count, complete.quiet.count, "cut at \(length)")
            } catch {
                refused += 1
                XCTAssertEqual(error.source, "config.toml")
                guard let line = error.line else { return XCTFail("cut at \(length): no line in \(error)") }
                XCTAssertTrue(
                    (1...lineCount).contains(line), "cut at \(length): line \(line) of \(lineCount): \(error)")
                XCTAssertTrue(error.description.hasPrefix("config.toml: line \(line)"), error.description)
            }
        }
        XCTAssertGreaterThan(parsed, 100)
        XCTAssertGreaterThan(refused, 100, "cuts inside values must be refused, not read as shorter values")
    }

    /// Cuts inside a value are refused rather than read as another value.
    func testCutsInsideValuesAreRefused() {
        let cases = [
            "volume = 8\ndevice = \"pul",  // the second line is cut
            "zone = \"Europe/Lon",
            "quiet = [",
            "[[quiet]]\nfrom = \"22:",
            "late-limit = 5.",
            "days = [\"sat\", \"su",
        ]
        for text in cases {
            XCTAssertThrowsError(try Config.parse(text, source: "c.toml", zones: TestZones.lookup), text.debugDescription) { error in
                XCTAssertTrue("\(error)".hasPrefix("c.toml: line "), "\(error)")
            }
        }
    }

    /// 20,000 random inputs: bytes, TOML-ish tokens and mutations of the example. Every one parses
    /// or throws a `ConfigError` with a line; none crashes or hangs.
    func testRandomGarbageNeverCrashes() {
        var rng = SeededGenerator(seed: 0xC0FF_1C)
        func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        let tokens = [
            "volume", "=", " ", "\n", "\"", "'", "\"\"\"", "'''", "[", "]", "[[", "]]", "quiet", "{", "}", ",", "#",
            "22:00",
            "true", "1e9", "-", "+", ".", "0x1F", "\\", "\\u", "\t", "\r\n", "zone", "days", "mode", "\u{0}", "é", "🕰",
        ]
        let example = Array(Config.exampleWithQuietWindows.utf8)
        var refused = 0
        for iteration in 0..<20_000 {
            var text: String
            switch below(3) {
            case 0:
                var bytes: [UInt8] = []
                for _ in 0..<below(200) { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
                text = String(decoding: bytes, as: UTF8.self)
            case 1:
                text = ""
                for _ in 0..<below(60) { text += tokens[below(tokens.count)] }
            default:
                var bytes = example
                for _ in 0..<(1 + below(4)) {
                    let at = below(bytes.count)
                    switch below(3) {
                    case 0: bytes.remove(at: at)
                    case 1: bytes.insert(Array(tokens[below(tokens.count)].utf8)[0], at: at)
                    default: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                    }
                }
                text = String(decoding: bytes, as: UTF8.self)
            }
            do {
                _ = try Config.parse(text, source: "fuzz.toml", zones: TestZones.lookup)
            } catch {
                refused += 1
                guard error.line != nil || error.key != nil else {
                    return XCTFail("iteration \(iteration): error without a line or key: \(error)")
                }
            }
        }
        XCTAssertGreaterThan(refused, 10_000)
    }
}
