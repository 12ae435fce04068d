import XCTest

@testable import TalkingClockCore
import TestSupport

/// `[courtesy]` and `voice-output` parsing, and the pure decision from plain findings.
final class CourtesyPolicyTests: XCTestCase {
    private func parse(_ text: String) throws -> Config {
        try Config.parse(text, source: "config.toml", zones: TestZones.lookup)
    }

    private func message(_ text: String) -> String {
        do {
            _ = try parse(text)
            XCTFail("expected an error for:\n\(text)")
            return ""
        } catch {
            return "\(error)"
        }
    }

    private let zoom = CourtesyFindings.Call(application: "ZOOM VoiceEngine", role: "phone")

    func testDefaults() throws {
        let config = try parse("")
        XCTAssertEqual(config.voiceOutput, .clips)
        XCTAssertEqual(config.courtesy.call, .skip)
        XCTAssertEqual(config.courtesy.doNotDisturb, .skip)
        XCTAssertEqual(config.courtesy.media, .duck)
        XCTAssertEqual(config.courtesy.duckPercent, 30)
        XCTAssertNil(config.courtesy.role)
    }

    func testEveryKey() throws {
        let config = try parse(
            """
            voice-output = "speech-dispatcher"
            [courtesy]
            call = "chime-only"
            do-not-disturb = "speak"
            media = "pause"
            duck-percent = 0
            role = "notification"
            """)
        XCTAssertEqual(config.voiceOutput, .speechDispatcher)
        XCTAssertEqual(config.courtesy.call, .chimeOnly)
        XCTAssertEqual(config.courtesy.doNotDisturb, .speak)
        XCTAssertEqual(config.courtesy.media, .pause)
        XCTAssertEqual(config.courtesy.duckPercent, 0)
        XCTAssertEqual(config.courtesy.role, "notification")
        XCTAssertNil(try parse("[courtesy]\nrole = \"\"").courtesy.role, "an empty role means none")
    }

    func testBadValuesNameTheKeyAndTheFix() {
        XCTAssertEqual(
            message("voice-output = \"speech-dispatcer\""),
            "config.toml: line 1: 'voice-output' must be one of \"clips\" or \"speech-dispatcher\", not "
                + "\"speech-dispatcer\"; did you mean \"speech-dispatcher\"?")
        XCTAssertEqual(
            message("[courtesy]\ncall = \"chime_only\""),
            "config.toml: line 2: 'call' in [courtesy] must be one of \"skip\", \"chime-only\" or \"speak\", not "
                + "\"chime_only\"; did you mean \"chime-only\"?")
        XCTAssertEqual(
            message("[courtesy]\nmedia = \"mute\""),
            "config.toml: line 2: 'media' in [courtesy] must be one of \"duck\", \"pause\" or \"ignore\", not \"mute\".")
        XCTAssertEqual(
            message("[courtesy]\nduck-percent = 130"),
            "config.toml: line 2: 'duck-percent' in [courtesy] must be an integer from 0 to 100 (a percentage), not 130.")
        XCTAssertEqual(
            message("[courtesy]\nrole = \"my role\""),
            "config.toml: line 2: 'role' in [courtesy] must be a media role of 1 to 32 letters, digits, '-' or '_' "
                + "such as \"notification\" or \"event\" (or \"\" for none), not \"my role\".")
        XCTAssertTrue(
            message("[courtesy]\ndnd = \"skip\"").hasPrefix("config.toml: line 2: unknown key 'dnd' in [courtesy]"))
        XCTAssertTrue(message("courtesy = 3").contains("'courtesy' must be a table: write [courtesy]"))
    }

    func testNothingFoundSpeaksAndLeavesMediaAlone() {
        XCTAssertEqual(CourtesyPolicy.decide(.nothing, CourtesyConfig()), .speak(.leave))
    }

    func testCallFollowsItsSetting() {
        var config = CourtesyConfig()
        let findings = CourtesyFindings(call: zoom)
        XCTAssertEqual(CourtesyPolicy.decide(findings, config), .skip(.call(zoom)))
        XCTAssertEqual(CourtesyPolicy.decide(findings, config).text, "skip: call (ZOOM VoiceEngine, phone)")
        config.call = .chimeOnly
        XCTAssertEqual(CourtesyPolicy.decide(findings, config), .chimeOnly(.call(zoom), .leave))
        config.call = .speak
        XCTAssertEqual(CourtesyPolicy.decide(findings, config), .speak(.leave))
    }

    func testDoNotDisturbFollowsItsSetting() {
        var config = CourtesyConfig()
        let findings = CourtesyFindings(doNotDisturb: .gnomeShowBanners)
        XCTAssertEqual(CourtesyPolicy.decide(findings, config).text, "skip: do-not-disturb (gnome-show-banners)")
        config.doNotDisturb = .chimeOnly
        XCTAssertEqual(CourtesyPolicy.decide(findings, config), .chimeOnly(.doNotDisturb(.gnomeShowBanners), .leave))
        config.doNotDisturb = .speak
        XCTAssertEqual(CourtesyPolicy.decide(findings, config), .speak(.leave))
    }

    /// Both at once: the quieter setting wins; on a tie the call is named.
    func testTheQuieterOfCallAndDoNotDisturbWins() {
        let both = CourtesyFindings(call: zoom, doNotDisturb: .notificationsInhibited)
        let rows: [(call: CourtesyAction, dnd: CourtesyAction, expected: String)] = [
            (.skip, .skip, "skip: call (ZOOM VoiceEngine, phone)"),  // tie: the call
            (.speak, .skip, "skip: do-not-disturb (notifications-inhibited)"),
            (.chimeOnly, .skip, "skip: do-not-disturb (notifications-inhibited)"),
            (.skip, .chimeOnly, "skip: call (ZOOM VoiceEngine, phone)"),
            (.speak, .chimeOnly, "chime-only: do-not-disturb (notifications-inhibited)"),
            (.chimeOnly, .speak, "chime-only: call (ZOOM VoiceEngine, phone)"),
            (.speak, .speak, "speak"),
        ]
        for row in rows {
            var config = CourtesyConfig()
            config.call = row.call
            config.doNotDisturb = row.dnd
            XCTAssertEqual(CourtesyPolicy.decide(both, config).text, row.expected, "call \(row.call), dnd \(row.dnd)")
        }
    }

    func testMediaPlan() {
        let music = CourtesyFindings(
            playingPlayers: ["org.mpris.MediaPlayer2.mpv"],
            playingStreams: [.init(index: 7, application: "mpv"), .init(index: 9, application: "Firefox")])
        var config = CourtesyConfig()
        XCTAssertEqual(CourtesyPolicy.decide(music, config), .speak(.duck(streams: [7, 9], percent: 30)))
        config.duckPercent = 100
        XCTAssertEqual(CourtesyPolicy.decide(music, config), .speak(.leave), "100 % changes nothing")
        config.media = .pause
        XCTAssertEqual(CourtesyPolicy.decide(music, config), .speak(.pause(players: ["org.mpris.MediaPlayer2.mpv"])))
        config.media = .ignore
        XCTAssertEqual(CourtesyPolicy.decide(music, config), .speak(.leave))
        // A chime still ducks; a skipped boundary touches nothing.
        config.media = .duck
        config.duckPercent = 10
        config.call = .chimeOnly
        var withCall = music
        withCall.call = zoom
        XCTAssertEqual(CourtesyPolicy.decide(withCall, config), .chimeOnly(.call(zoom), .duck(streams: [7, 9], percent: 10)))
        config.call = .skip
        XCTAssertEqual(CourtesyPolicy.decide(withCall, config).media, .leave)
        // Pause with no player playing (a browser tab without MPRIS) leaves things alone.
        config.media = .pause
        XCTAssertEqual(
            CourtesyPolicy.decide(CourtesyFindings(playingStreams: [.init(index: 3, application: "x")]), config),
            .speak(.leave))
    }
}
