import Foundation
import SoundPack
import TestSupport
import XCTest

/// pack.json is strict like the config: a key this version does not know is an error naming the
/// file, the key and the closest known key.
final class ManifestStrictnessTests: XCTestCase {
    let path = "/packs/p/pack.json"
    let top = "Known keys: format, name, description, license, language, phrasings, sample_rate, channels, synthesis, spacing, clips, bells, chimes."

    func refusal(_ json: String) -> String? {
        do {
            _ = try PackManifest.parse(Data(json.utf8), path: path)
            return nil
        } catch {
            XCTAssertEqual(error.kind, .badManifest)
            return error.message
        }
    }

    func testMisspeltKeysAreRefusedWithTheClosestKnownKey() {
        let cases: [(json: String, message: String)] = [
            (
                #"{"format": 1, "name": "p", "sampel_rate": 22050, "clips": {"one": "one.wav"}}"#,
                "\(path): unknown key 'sampel_rate'; did you mean 'sample_rate'? \(top)"
            ),
            (
                #"{"format": 1, "name": "p", "clip": {"one": "one.wav"}}"#,
                "\(path): unknown key 'clip'; did you mean 'clips'? \(top)"
            ),
            (
                #"{"format": 1, "name": "p", "clips": {"one": "one.wav"}, "chimes": {"beatms": 700}}"#,
                "\(path): unknown key 'beatms' in \"chimes\"; did you mean 'beat_ms'? Known keys in \"chimes\": beat_ms, "
                    + "hour_after_ms, strike_interval_ms, ship_strike_ms, ship_pair_gap_ms, voice_after_ms, duck_db, patterns."
            ),
            (
                #"{"format": 1, "name": "p", "clips": {"one": "one.wav"}, "spacing": {"wordgap_ms": 10}}"#,
                "\(path): unknown key 'wordgap_ms' in \"spacing\"; did you mean 'word_gap_ms'? Known keys in \"spacing\": "
                    + "word_gap_ms, lead_in_gap_ms, chime_gap_ms, word_overlap_ms."
            ),
            (
                #"{"format": 1, "name": "p", "clips": {"one": "one.wav"}, "bells": {"hours": "one"}}"#,
                "\(path): unknown key 'hours' in \"bells\"; did you mean 'hour'? Known keys in \"bells\": quarter, hour, ship."
            ),
            (
                #"{"format": 1, "name": "p", "clips": {"one": "one.wav"}, "chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "one", "at_ms": 0}, {"bell": "one", "atms": 5}]}}}}}"#,
                "\(path): unknown key 'atms' in \"chimes.patterns.hour.notes.0[1]\"; did you mean 'at_ms'? Known keys in "
                    + "\"chimes.patterns.hour.notes.0[1]\": bell, at_ms, anchor."
            ),
            (
                #"{"format": 1, "name": "p", "clips": {"one": "one.wav"}, "chimes": {"patterns": {"hour": {"strikes": {"bell": "one", "count": "hour", "minutes": [0], "interval_ms": 1, "pairgap_ms": 2}}}}}"#,
                "\(path): unknown key 'pairgap_ms' in \"chimes.patterns.hour.strikes\"; did you mean 'pair_gap_ms'? Known keys in "
                    + "\"chimes.patterns.hour.strikes\": bell, count, minutes, after_ms, interval_ms, pair_gap_ms, anchor."
            ),
            (
                #"{"format": 1, "name": "p", "clips": {"one": "one.wav"}, "colour": "red"}"#,
                "\(path): unknown key 'colour'. \(top)"
            ),
        ]
        for c in cases { XCTAssertEqual(refusal(c.json), c.message) }
    }

    /// Keys of the pack's choosing (clip ids, minutes, chime names) are not checked against a list.
    func testEveryDocumentedKeyIsAccepted() throws {
        let json = """
            { "format": 1, "name": "p", "description": "d", "license": "l", "sample_rate": 8000, "channels": 1,
              "synthesis": { "engine": "piper", "voice": "v", "model": "m.onnx" },
              "spacing": { "word_gap_ms": 0, "lead_in_gap_ms": 0, "chime_gap_ms": -2500, "word_overlap_ms": 0 },
              "clips": { "one": "one.wav", "any-clip-id": "x.wav" },
              "bells": { "quarter": ["one", "one", "one", "one"], "hour": "one", "ship": "one" },
              "chimes": { "beat_ms": 750, "hour_after_ms": 3000, "strike_interval_ms": 2500, "ship_strike_ms": 600,
                "ship_pair_gap_ms": 1200, "voice_after_ms": 9500, "duck_db": 6,
                "patterns": { "westminster": { "notes": { "15": [{ "bell": "one", "at_ms": 0, "anchor": true }] },
                  "strikes": { "bell": "one", "count": "hour", "minutes": [0], "after_ms": 3000, "interval_ms": 2500,
                    "pair_gap_ms": 100, "anchor": true },
                  "voice_after_ms": 1500 } } } }
            """
        XCTAssertNoThrow(try PackManifest.parse(Data(json.utf8), path: path))
    }

    func testTheShippedPackLoads() throws {
        let url = BinaryRunner.packageRoot.appendingPathComponent("Sounds/default/pack.json")
        XCTAssertNoThrow(try PackManifest.parse(try Data(contentsOf: url), path: url.path))
    }

    func testSyntaxErrorsSayWhereNotFoundationsSentence() {
        XCTAssertEqual(
            refusal("{\"format\": 1,\n  \"name\": }"),
            "\(path) is not valid JSON (Invalid value at line 2, column 11); check it with 'python3 -m json.tool \(path)'."
        )
        XCTAssertEqual(
            refusal("[1]"),
            "\(path) must hold one JSON object, { \"format\": 1, \"name\": …, \"clips\": { … } }; see the pack format in the README."
        )
    }
}
