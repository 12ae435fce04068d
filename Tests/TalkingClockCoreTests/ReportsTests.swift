import JSON
import Foundation
import TalkingClockCore
import XCTest

/// The Codable reports: one encoding (`ReportJSON`, sorted keys) for every surface.
final class ReportsTests: XCTestCase {
    func testScheduleEntryIsJSONEncoderOutputWithTheSameFieldNames() throws {
        let entry = ScheduleEntryReport(
            at: "2026-07-01T22:00:00+00:00", utc: "2026-07-01T22:00:00Z", decision: "skip", reason: "quiet", volume: nil,
            language: "en-US", text: "ten \"PM\" \\ \u{1}", clips: [], chime: "none", strikes: 0, anchorOffsetMs: 0)
        let json = entry.json
        XCTAssertFalse(json.contains("\"volume\""), "absent values are left out, as before: \(json)")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(
            Set(object.keys),
            ["at", "utc", "decision", "reason", "language", "text", "clips", "chime", "strikes", "anchor_offset_ms"])
        XCTAssertEqual(object["text"] as? String, "ten \"PM\" \\ \u{1}", "every character escaped and read back")
        XCTAssertEqual(try JSONDecoder().decode(ScheduleEntryReport.self, from: Data(json.utf8)), entry)
    }

    func testRoomReportCarriesTheStatusObject() throws {
        let state = StatusReport(
            driver: "timer", next: .init(at: "2026-11-24T23:45:00+00:00", text: "eleven forty-five PM"), muted: false,
            mute: "unmuted", skipPending: false, stateWarning: nil, quiet: nil,
            last: .init(result: "spoke", text: "x", boundary: nil, onsetErrorMs: -0.2704), playing: false, device: "null",
            pack: "default", zone: "UTC", chime: "hour", volume: 100)
        XCTAssertEqual(StatusReport.decode(state.json), state)
        XCTAssertNil(StatusReport.decode("not json"))
        let room = RoomReport(room: "kitchen", online: true, state: state)
        let json = ReportJSON.encode([room, RoomReport(room: "hall", online: false, state: nil)])
        XCTAssertTrue(json.hasPrefix(#"[{"online":true,"room":"kitchen","state":{"away":null,"away_switch":false,"chime":"hour""#), json)
        XCTAssertTrue(json.hasSuffix(#"{"online":false,"room":"hall","state":null}]"#), json)
    }
}
