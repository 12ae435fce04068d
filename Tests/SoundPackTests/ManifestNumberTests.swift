import Foundation
import SoundPack
import XCTest

/// (PackAbuseTests) A number that is not whole (issue 29, low item): `"word_gap_ms": 1.5` got the generic "could
/// not be read as a pack manifest"; it names the key and the value now.
extension PackAbuseTests {
    func testAFractionNamesItsKey() {
        let clips = #""clips": {"one": "one.wav", "bell": "bell.wav"}"#
        XCTAssertEqual(
            refusal(#"{"format": 1, "name": "p", \#(clips), "spacing": {"word_gap_ms": 1.5}}"#),
            #"\#(path): "spacing.word_gap_ms" is 1.5; it must be a whole number of milliseconds."#)
        XCTAssertEqual(
            refusal(#"{"format": 1, "name": "p", \#(clips), "sample_rate": 44100.5}"#),
            #"\#(path): "sample_rate" is 44100.5; it must be a whole number."#)
        XCTAssertEqual(
            refusal(#"{"format": 1, "name": "p", \#(clips), "chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "bell", "at_ms": 0}, {"bell": "bell", "at_ms": 2.25}]}}}}}"#),
            #"\#(path): "chimes.patterns.hour.notes.0[1].at_ms" is 2.25; it must be a whole number of milliseconds."#)
        XCTAssertEqual(
            refusal(#"{"format": 1, "name": "p", \#(clips), "spacing": {"chime_gap_ms": 1e300}}"#),
            #"\#(path): "spacing.chime_gap_ms" is 1e+300 (too large); it must be a whole number of milliseconds."#)
        XCTAssertNil(refusal(#"{"format": 1, "name": "p", \#(clips), "spacing": {"word_gap_ms": 15}}"#))
    }
}
