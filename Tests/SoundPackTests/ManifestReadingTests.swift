import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// pack.json is read from one `JSONTree` parse by a typed walk, not by `JSONDecoder` (BENCHMARKS.md,
/// "say --local against aplay"). The cases a hand-written reader could get wrong, each with the
/// message `JSONDecoder` gave (the reader was checked against it on ~11,000 generated manifests:
/// every value type at every key, keys left out or added, numbers in every spelling, encodings).
final class ManifestReadingTests: XCTestCase {
    let path = "/packs/p/pack.json"
    let head = #""format": 1, "name": "p", "clips": {"one": "one.wav"}"#

    func read(_ bytes: [UInt8]) -> Result<PackManifest, PackError> {
        do { return .success(try PackManifest.parse(Data(bytes), path: path)) } catch { return .failure(error) }
    }

    func refusal(_ json: String) -> String? {
        switch read(Array(json.utf8)) {
        case .success: return nil
        case .failure(let error):
            XCTAssertEqual(error.kind, .badManifest)
            return error.message
        }
    }

    func manifest(_ json: String) throws -> PackManifest {
        try read(Array(json.utf8)).get()
    }

    /// A whole number in any spelling is the number: 1e3, 2.205e4, 15.0, -0.0.
    func testAWholeNumberInAnySpellingIsRead() throws {
        let m = try manifest(
            #"{\#(head), "sample_rate": 2.205e4, "spacing": {"word_gap_ms": 1e1, "chime_gap_ms": -0.0, "lead_in_gap_ms": 15.0}, "chimes": {"beat_ms": 1E3}}"#)
        XCTAssertEqual(m.sampleRate, 22050)
        XCTAssertEqual(m.spacing, Spacing(wordGapMs: 10, leadInGapMs: 15, chimeGapMs: 0))
        XCTAssertEqual(m.chimes.timing.beatMs, 1000)
    }

    /// An integer too large for an Int is a number that is not whole, by its key, whatever its key.
    func testAHugeIntegerIsTooLarge() {
        XCTAssertEqual(
            refusal(#"{\#(head), "spacing": {"word_gap_ms": 99999999999999999999}}"#),
            #"\#(path): "spacing.word_gap_ms" is 1e+20 (too large); it must be a whole number of milliseconds."#)
        XCTAssertEqual(
            refusal(#"{\#(head), "channels": -9223372036854775809}"#),
            #"\#(path): "channels" is -9.223372036854776e+18 (too large); it must be a whole number."#)
        XCTAssertEqual(
            refusal(#"{\#(head), "bells": {"quarter": ["one", 1e-3]}}"#),
            #"\#(path): "bells.quarter[1]" is 0.001; it must be a whole number."#)
    }

    /// A value of another type, named as the decoder named it: the key path (an array element is
    /// "Index N") and the type.
    func testAValueOfAnotherTypeIsNamedByItsKeyPath() {
        let cases: [(String, String)] = [
            (#""spacing": {"word_gap_ms": "10"}"#, #""spacing.word_gap_ms" must be a whole number."#),
            (#""spacing": {"word_overlap_ms": true}"#, #""spacing.word_overlap_ms" must be a whole number."#),
            (#""spacing": []"#, #""spacing" must be a Dictionary<String, Any>."#),
            (#""phrasings": "24h""#, #""phrasings" must be a Array<Any>."#),
            (#""phrasings": ["24h", 5]"#, #""phrasings.Index 1" must be a string."#),
            (#""bells": {"quarter": ["one", "one", null, "one"]}"#, #""bells.quarter.Index 2" must be a string, not null."#),
            (#""bells": {"hour": ["one"]}"#, #""bells.hour" must be a string."#),
            (#""synthesis": {"engine": 1}"#, #""synthesis.engine" must be a string."#),
            (#""chimes": {"patterns": {"hour": null}}"#, #""chimes.patterns.hour" must be a Dictionary<String, Any>, not null."#),
            (#""chimes": {"patterns": {"hour": {"notes": {"0": {}}}}}"#, #""chimes.patterns.hour.notes.0" must be a Array<Any>."#),
            (
                #""chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "one", "at_ms": 0}, {"bell": 7, "at_ms": 5}]}}}}"#,
                #""chimes.patterns.hour.notes.0.Index 1.bell" must be a string."#
            ),
            (
                #""chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "one", "at_ms": 0, "anchor": 1}]}}}}"#,
                #""chimes.patterns.hour.notes.0.Index 0.anchor" must be a Bool."#
            ),
            (
                #""chimes": {"patterns": {"hour": {"strikes": {"bell": "one", "count": "hour", "minutes": [0, "15"], "interval_ms": 1}}}}"#,
                #""chimes.patterns.hour.strikes.minutes.Index 1" must be a whole number."#
            ),
        ]
        for (json, message) in cases {
            XCTAssertEqual(refusal(#"{\#(head), \#(json)}"#), "\(path): \(message)", json)
        }
        XCTAssertEqual(refusal(#"{"format": 1, "name": "p", "clips": null}"#), #"\#(path): "clips" must be a Dictionary<String, Any>, not null."#)
        XCTAssertEqual(refusal(#"{"format": 1, "name": "p", "clips": {"one": 1}}"#), #"\#(path): "clips.one" must be a string."#)
        XCTAssertEqual(refusal(#"{"format": null, "name": "p", "clips": {}}"#), #"\#(path): "format" must be a whole number, not null."#)
    }

    /// A key that may be left out may also be null; one that may not is named with its path.
    func testNullIsAKeyLeftOutAndAMissingKeyIsNamed() throws {
        let m = try manifest(
            #"{\#(head), "description": null, "spacing": {"word_gap_ms": null}, "bells": null, "chimes": {"beat_ms": null, "patterns": null}, "phrasings": null}"#)
        XCTAssertNil(m.description)
        XCTAssertEqual(m.spacing, Spacing())
        XCTAssertEqual(m.chimes, PackManifest.Chimes())
        let cases: [(String, String)] = [
            (#"{"name": "p", "clips": {}}"#, "format"),
            (#"{"format": 1, "clips": {}}"#, "name"),
            (#"{"format": 1, "name": "p"}"#, "clips"),
            (#"{\#(head), "synthesis": {"voice": "v"}}"#, "synthesis.engine"),
            (#"{\#(head), "chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "one"}]}}}}}"#, "chimes.patterns.hour.notes.0.Index 0.at_ms"),
            (#"{\#(head), "chimes": {"patterns": {"hour": {"strikes": {"bell": "one", "count": "hour", "minutes": [0]}}}}}"#, "chimes.patterns.hour.strikes.interval_ms"),
        ]
        for (json, key) in cases {
            XCTAssertEqual(refusal(json), "\(path): the key \"\(key)\" is missing; see the pack format in the README.", json)
        }
    }

    /// Values of the right type that are not allowed, inside "chimes".
    func testNestedChimeValuesAreCheckedWhereTheyAre() {
        let strikes = #""bell": "one", "minutes": [0], "interval_ms": 1"#
        let cases: [(String, String)] = [
            (#""chimes": {"duck_db": 61}"#, #""chimes.duck_db": 61 is not a number of dB from 0 to 60."#),
            (#""chimes": {"duck_db": -1, "patterns": {"hour": 5}}"#, #""chimes.duck_db": -1 is not a number of dB from 0 to 60."#),
            (#""chimes": {"patterns": {"hour": {"notes": {"60": []}}}}"#, #""chimes.patterns.hour.notes": "60" is not a minute of the hour (0-59)."#),
            (#""chimes": {"patterns": {"hour": {"notes": {"x": [{"bell": 1}]}}}}"#, #""chimes.patterns.hour.notes.x.Index 0.bell" must be a string."#),
            (
                #""chimes": {"patterns": {"hour": {"strikes": {\#(strikes), "count": "Hour"}}}}"#,
                #""chimes.patterns.hour.strikes.count": Cannot initialize Count from invalid String value Hour."#
            ),
            (#""chimes": {"patterns": {"hour": {"strikes": {\#(strikes)}}}}"#, #"the key "chimes.patterns.hour.strikes.count" is missing; see the pack format in the README."#),
        ]
        for (json, message) in cases {
            XCTAssertEqual(refusal(#"{\#(head), \#(json)}"#), "\(path): \(message)", json)
        }
    }

    /// A key written twice keeps its first value, as the decoder did.
    func testADuplicateKeyKeepsItsFirstValue() throws {
        let m = try manifest(#"{"format": 1, "name": "p", "name": "q", "clips": {"one": "a.wav", "one": 5}}"#)
        XCTAssertEqual(m.name, "p")
        XCTAssertEqual(m.clips, ["one": "a.wav"])
        XCTAssertEqual(
            refusal(#"{"format": 1, "name": "p", "clips": {"one": 5, "one": "a.wav"}}"#), #"\#(path): "clips.one" must be a string."#)
    }

    /// The encodings the decoder read: a UTF-8 byte order mark, UTF-16 with or without one. UTF-32
    /// with a mark it did not read, and a syntax error is placed in the bytes as they are.
    func testTheEncodingsTheDecoderReadAreRead() throws {
        let text = #"{"format": 1, "name": "é😀", "clips": {"one": "one.wav"}}"#
        let utf16 = Array(text.utf16)
        let le = utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be = utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let forms: [[UInt8]] = [[0xEF, 0xBB, 0xBF] + Array(text.utf8), [0xFF, 0xFE] + le, [0xFE, 0xFF] + be, le, be]
        for bytes in forms {
            XCTAssertEqual(try read(bytes).get().name, "é😀")
        }
        let utf32: [UInt8] = [0xFF, 0xFE, 0, 0] + text.unicodeScalars.flatMap { s in (0..<4).map { UInt8((s.value >> (8 * $0)) & 0xFF) } }
        let broken: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"format": 1,, }"#.utf8)
        for bytes in [utf32, broken] {
            guard case .failure(let error) = read(bytes) else { return XCTFail("\(bytes.prefix(8)) was read") }
            XCTAssertEqual(error.message, "\(path) is not valid JSON (Invalid value at line 1, column 1); check it with 'python3 -m json.tool \(path)'.")
        }
    }

    /// record-pack's copy of the manifest (every key kept) comes from the same parse.
    func testRecordPacksCopyOfTheManifestKeepsEveryKeyAndReadsWholeNumbersAsIntegers() throws {
        let dir = FixturePack.temporaryDirectory("manifest-reading")
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = #"{\#(head), "spacing": {"word_gap_ms": 1e1}, "bells": {"hour": "one"}, "description": null}"#
        try Data(json.utf8).write(to: dir.appendingPathComponent("pack.json"))
        let document = try XCTUnwrap(try PackWriter(directory: dir).readManifest())
        XCTAssertEqual(
            document,
            .object([
                "format": .int(1), "name": .string("p"), "clips": .object(["one": .string("one.wav")]),
                "spacing": .object(["word_gap_ms": .int(10)]), "bells": .object(["hour": .string("one")]), "description": .null,
            ]))
        XCTAssertEqual(JSONValue(parsing: Data(json.utf8)), document)
        XCTAssertNil(JSONValue(parsing: Data("{".utf8)))
        try Data(#"{"format": 1, "name": "p", "clips": {"one": 1}}"#.utf8).write(to: dir.appendingPathComponent("pack.json"))
        XCTAssertThrowsError(try PackWriter(directory: dir).readManifest()) { error in
            XCTAssertEqual((error as? PackError)?.message, #"\#(dir.path)/pack.json: "clips.one" must be a string."#)
        }
    }
}
