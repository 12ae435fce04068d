import Foundation
import TestSupport
import XCTest

/// An independent speech recogniser (pocketsphinx) must understand the default pack's announcements:
/// `scripts/intelligibility` renders the 96 quarter hours of a day with the built binary and decodes
/// them against a grammar in which every hour, quarter word and AM/PM can be chosen wrongly.
final class IntelligibilityTests: XCTestCase {
    static let required = 94
    static let model = "/usr/share/pocketsphinx/model/en-us"

    func testPocketsphinxRecognisesTheQuarterHoursOfADay() throws {
        try recognise(pack: "default", required: Self.required, extra: [])
    }

    /// The 96 en-GB `casual` phrases ("quarter past three", "half past three", "quarter to four",
    /// "three o'clock", "midday", "midnight") with the committed en-GB pack, against a grammar in
    /// which every quarter form can stand before every hour (and "o'clock" after any).
    func testPocketsphinxRecognisesTheEnGBCasualQuarterHours() throws {
        try recognise(pack: "en-GB", required: Self.requiredEnGB, extra: ["--language", "en-GB"])
    }

    static let requiredEnGB = 90

    /// The 96 en-US `casual` phrases ("quarter after three", "half past three", "quarter to four")
    /// with the default pack, which now has those words, against the same kind of grammar (with
    /// "quarter after" as well as "quarter past"). Measured 94/96 with the bells, 96/96 voice only.
    func testPocketsphinxRecognisesTheEnUSCasualQuarterHours() throws {
        try recognise(pack: "default", required: Self.required, extra: ["--phrasing", "casual"])
    }

    /// Dates with the default pack ("Thursday, February twenty-ninth"): `--sample` says every
    /// ordinal and every month once and Feb 29 (32 dates), against a grammar in which every weekday,
    /// month and ordinal can be chosen wrongly. The whole leap year (`--dates` alone) measured
    /// 349/366: the 17 misses are all "fifth" heard as "tenth", as the recogniser also hears it in
    /// festival's own whole sentence "Saturday June fifth" (here: June fifth, 31/32).
    func testPocketsphinxRecognisesTheDates() throws {
        try recognise(pack: "default", required: 31, extra: ["--dates", "--sample"], count: 32)
    }

    /// en-GB's dates with the en-GB pack ("Thursday, the twenty-ninth of February"), the same 32,
    /// against a grammar of any weekday, ordinal and month around "the" and "of". The whole year
    /// measured 366/366.
    func testPocketsphinxRecognisesTheEnGBDates() throws {
        try recognise(pack: "en-GB", required: 31, extra: ["--language", "en-GB", "--dates", "--sample"], count: 32)
    }

    /// Values ("minus sixty-five degrees"): `--sample` says every seventh value of -99 … 150 and
    /// the edges in degrees, every thirtieth in percent (50), against a grammar of any sign,
    /// hundred, tens, ones and unit. All 275 of `--values` alone measured 275/275.
    func testPocketsphinxRecognisesValuesInDegreesAndPercent() throws {
        try recognise(pack: "default", required: 48, extra: ["--values", "--sample"], count: 50)
    }

    private func recognise(pack name: String, required: Int, extra: [String], count: Int = 96) throws {
        // Not a skip: without the recogniser this test would prove nothing, so it fails and says why.
        var missing = ["pocketsphinx_batch", "sox", "python3"].filter { Self.findInPath($0) == nil }
        if !FileManager.default.fileExists(atPath: Self.model + "/en-us/mdef") {
            missing.append("the pocketsphinx-en-us model (\(Self.model))")
        }
        guard missing.isEmpty else {
            return XCTFail(
                "The intelligibility test needs \(missing.joined(separator: ", ")): run scripts/install-deps --test.")
        }
        let script = BinaryRunner.packageRoot.appendingPathComponent("scripts/intelligibility")
        let pack = BinaryRunner.packageRoot.appendingPathComponent("Sounds/\(name)")
        let r = try BinaryRunner.run(
            ["--binary", BinaryRunner.binary.path, "--pack", pack.path, "--min", "\(required)"] + extra, timeout: 900, executable: script)
        XCTAssertNotEqual(
            r.status, 69, "scripts/intelligibility found no recogniser: run scripts/install-deps --test.\n\(r.stderr)")

        let lines = r.stdout.split(separator: "\n").map(String.init)
        let verdicts = lines.filter {
            $0.range(of: #"^(\d\d:\d\d|d\d{8}|v\d{3}(deg|pct))  (ok|FAIL)  "#, options: .regularExpression) != nil
        }
        XCTAssertEqual(verdicts.count, count, "one verdict per phrase said\n\(r.stdout)\(r.stderr)")
        let failures = verdicts.filter { $0.contains("  FAIL  ") }
        guard let total = lines.last(where: { $0.hasSuffix("recognised (need \(required))") }),
            let recognised = Int(total.prefix(while: \.isNumber))
        else {
            return XCTFail(
                "no total in the output of scripts/intelligibility (exit \(r.status))\n\(r.stdout)\(r.stderr)")
        }
        XCTAssertEqual(recognised, count - failures.count, total)
        XCTAssertGreaterThanOrEqual(
            recognised, required,
            "\(total); not recognised:\n\(failures.joined(separator: "\n"))\n\(lines.filter { $0.hasPrefix("by minute") }.joined())"
        )
        XCTAssertEqual(r.status, recognised >= required ? 0 : 1, r.stderr)
    }

    private static func findInPath(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
