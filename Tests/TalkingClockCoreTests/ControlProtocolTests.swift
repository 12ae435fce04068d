import TestSupport
import XCTest

@testable import TalkingClockCore


final class ControlProtocolTests: XCTestCase {
    private func parse(_ text: String) -> Result<ControlRequest, ControlProtocolError> {
        ControlRequest.parse(line: Array(text.utf8))
    }

    func testRequests() {
        let cases: [(String, ControlRequest)] = [
            ("status", .status),
            ("STATUS", .status),
            ("  status  ", .status),
            ("\tstatus\t", .status),
            ("status json", .statusJSON),
            ("Status   JSON", .statusJSON),
            ("say", .say),
            ("say\r", .say),
            ("say\r\n", .say),
            ("say\n", .say),
            ("say at 1767225600.000", .sayAt(1_767_225_600)),
            ("SAY AT 1767225600.25", .sayAt(1_767_225_600.25)),
            ("say at 1767225600", .sayAt(1_767_225_600)),
            ("trigger", .trigger),
            ("mute", .mute),
            ("mute for 30m", .muteFor(seconds: 1800)),
            ("mute for 1h 30m", .muteFor(seconds: 5400)),
            ("MUTE FOR 90", .muteFor(seconds: 90)),
            ("mute For 1H30M", .muteFor(seconds: 5400)),
            ("mute until 07:30", .muteUntil(hour: 7, minute: 30)),
            ("mute until 7:05", .muteUntil(hour: 7, minute: 5)),
            ("mute  until  23:59", .muteUntil(hour: 23, minute: 59)),
            ("unmute", .unmute),
            ("skip", .skip),
            ("reload", .reload),
            ("help", .help),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try parse(text).get(), expected, text.debugDescription)
        }
    }

    func testRefusals() {
        let commands = ControlRequest.commands.joined(separator: ", ")
        let cases: [(String, String)] = [
            ("", "the request is empty; send one of: \(commands)."),
            ("   \t ", "the request is empty; send one of: \(commands)."),
            ("dance", "unknown command 'dance'; commands: \(commands)."),
            ("stauts", "unknown command 'stauts'; did you mean 'status'? Commands: \(commands)."),
            ("UNMUTED", "unknown command 'UNMUTED'; did you mean 'unmute'? Commands: \(commands)."),
            ("say now", "'say' takes nothing or 'at <unix-seconds>' (e.g. say at 1767225600.000), not 'now'."),
            ("say at", "'say' takes nothing or 'at <unix-seconds>' (e.g. say at 1767225600.000), not 'at'."),
            ("say at -5", "'say' takes nothing or 'at <unix-seconds>' (e.g. say at 1767225600.000); '-5' is not a number of seconds since 1970."),
            ("say at 1e9", "'say' takes nothing or 'at <unix-seconds>' (e.g. say at 1767225600.000); '1e9' is not a number of seconds since 1970."),
            ("say at 12:00", "'say' takes nothing or 'at <unix-seconds>' (e.g. say at 1767225600.000); '12:00' is not a number of seconds since 1970."),
            ("say at 1767225600.", "'say' takes nothing or 'at <unix-seconds>' (e.g. say at 1767225600.000); '1767225600.' is not a number of seconds since 1970."),
            ("say at nan", "'say' takes nothing or 'at <unix-seconds>' (e.g. say at 1767225600.000); 'nan' is not a number of seconds since 1970."),
            ("reload all the things", "'reload' takes no arguments, but got 'all the things'."),
            ("status xml", "'status' takes no argument or 'json', not 'xml'."),
            ("status json please", "'status' takes no argument or 'json', not 'json please'."),
            ("mute for", "'mute for' needs a duration, such as mute for 30m or mute for 1h30m."),
            (
                "mute for 5x",
                "\"5x\" is not a duration: use a number with a unit (s, m, h or d), such as 90s, 30m, 2h or 1h30m; a "
                    + "plain number means seconds."
            ),
            ("mute for 0", "A duration of zero would not mute anything: give one such as 30m, or use unmute."),
            ("mute until", "'mute until' needs one time of day, such as mute until 07:30 (24-hour HH:MM)."),
            ("mute until 7 30", "'mute until' needs one time of day, such as mute until 07:30 (24-hour HH:MM)."),
            ("mute until 25:00", "\"25:00\" is not a time of day: use 24-hour HH:MM, such as 07:30 or 15:45."),
            ("mute later", "'mute' takes nothing, 'for <duration>' or 'until <HH:MM>', not 'later'."),
            ("status\u{0}", "the request contains non-text bytes; send one line of plain text such as \"status\"."),
            ("st\u{1B}[Aatus", "the request contains non-text bytes; send one line of plain text such as \"status\"."),
            ("mute\rfor 5m", "the request contains non-text bytes; send one line of plain text such as \"status\"."),
            ("mute for 5m\r\r", "the request contains non-text bytes; send one line of plain text such as \"status\"."),
            ("statüs", "the request contains 'ü' (U+00FC), but commands are plain ASCII; retype it with plain letters and digits, e.g. \"mute for 30m\"."),
            ("mute for ５m", "the request contains '５' (U+FF15), but commands are plain ASCII; write numbers with the digits 0-9, e.g. \"mute for 5m\"."),
            ("volume ٥٠", "the request contains '٥' (U+0665), but commands are plain ASCII; write numbers with the digits 0-9, e.g. \"mute for 5m\"."),
        ]
        for (text, message) in cases {
            switch parse(text) {
            case .success(let request): XCTFail("\(text.debugDescription) parsed as \(request)")
            case .failure(let error):
                XCTAssertEqual(error.message, message, text.debugDescription)
                XCTAssertEqual(error.reply, .error(message))
            }
        }
        // Bytes that are not UTF-8 at all.
        for bytes in [[0xFF, 0xFE], [0x73, 0x61, 0x79, 0x80], [0xC3]] as [[UInt8]] {
            XCTAssertEqual(
                ControlRequest.parse(line: bytes),
                .failure(
                    ControlProtocolError(
                        "the request contains non-text bytes; send one line of plain text such as \"status\".")))
        }
        // A line that skipped the framer and is too long is refused too.
        let long = Array(repeating: UInt8(ascii: "a"), count: 600)
        guard case .failure(let error) = ControlRequest.parse(line: long) else { return XCTFail("600 bytes accepted") }
        XCTAssertTrue(error.message.hasPrefix("the request is longer than 511 bytes"), error.message)
    }

    func testHelpListsEveryCommand() {
        for command in [
            "status", "status json", "say", "say at", "trigger", "mute", "mute for", "mute until", "unmute", "skip", "reload",
            "help",
        ] {
            XCTAssertTrue(ControlRequest.helpText.contains(command), command)
        }
        XCTAssertFalse(ControlRequest.helpText.contains("\n"))
    }

    func testRender() {
        let cases: [(ControlReply, String)] = [
            (.ok(), "ok\n"),
            (.ok(nil), "ok\n"),
            (.ok(""), "ok\n"),
            (.ok("muted until 2026-01-10T07:00:00Z"), "ok muted until 2026-01-10T07:00:00Z\n"),
            (.ok(#"{"muted":false,"next":"07:15"}"#), "ok {\"muted\":false,\"next\":\"07:15\"}\n"),
            (.error("the device is busy"), "error usage: the device is busy\n"),
            (.error("two\nlines"), "error usage: two lines\n"),
            (.error("crlf\r\ninside"), "error usage: crlf inside\n"),
            (.error("cr\ronly"), "error usage: cr only\n"),
            (.error("tab\there, bell\u{7}, nel\u{85}, ls\u{2028}"), "error usage: tab here, bell , nel , ls\n"),
            (.ok("trailing newline\n"), "ok trailing newline\n"),
            (.error(""), "error usage: unspecified error\n"),
            (.error("\n\n"), "error usage: unspecified error\n"),
            (.ok("café 日本"), "ok café 日本\n"),
        ]
        for (reply, line) in cases {
            XCTAssertEqual(reply.render(), line, "\(reply)")
        }
    }

    // MARK: Framing

    private func frame(_ chunks: [String], limit: Int = 512) -> (lines: [FramedLine], tail: FramedLine?) {
        var framer = LineFramer(limit: limit)
        var lines: [FramedLine] = []
        for chunk in chunks { lines += framer.append(Array(chunk.utf8)) }
        return (lines, framer.finish())
    }

    private func line(_ s: String) -> FramedLine { .line(Array(s.utf8)) }

    func testFramer() {
        let cases: [(why: String, chunks: [String], limit: Int, lines: [FramedLine], tail: FramedLine?)] = [
            ("one line", ["status\n"], 512, [line("status")], nil),
            ("split across reads", ["sta", "tus", "\nsay", "\n"], 512, [line("status"), line("say")], nil),
            ("several in one read", ["a\nb\n\nc\n"], 512, [line("a"), line("b"), line(""), line("c")], nil),
            ("CR is kept for the parser", ["say\r\n"], 512, [line("say\r")], nil),
            ("an unfinished last line is returned by finish", ["status\nsay"], 512, [line("status")], line("say")),
            ("exactly at the limit: 7 bytes + newline = 8", ["1234567\n"], 8, [line("1234567")], nil),
            ("one over the limit, reported at once", ["12345678"], 8, [.tooLong], nil),
            (
                "the rest of a long line is dropped, then framing resumes", ["12345678", "90\nok\n"], 8,
                [.tooLong, line("ok")], nil
            ),
            (
                "a long line is reported once however long", [String(repeating: "x", count: 5000) + "\nok\n"], 8,
                [.tooLong, line("ok")], nil
            ),
            (
                "a long line across many reads", ["1234", "5678", "9012", "3456", "\n", "ok\n"], 8,
                [.tooLong, line("ok")], nil
            ),
            ("a long unfinished line leaves nothing for finish", ["123456789"], 8, [.tooLong], nil),
            ("empty input", [], 512, [], nil),
            ("limit 1: only empty lines fit", ["\nx\n\n"], 1, [line(""), .tooLong, line("")], nil),
        ]
        for c in cases {
            let (lines, tail) = frame(c.chunks, limit: c.limit)
            XCTAssertEqual(lines, c.lines, c.why)
            XCTAssertEqual(tail, c.tail, c.why)
        }
    }

    func testDefaultLimitIs512BytesWithTheNewline() {
        var framer = LineFramer()
        XCTAssertEqual(framer.limit, 512)
        XCTAssertEqual(LineFramer.maxLineLength, 512)
        let ok = Array(repeating: UInt8(ascii: "a"), count: 511)
        XCTAssertEqual(framer.append(ok + [0x0A]), [.line(ok)])
        XCTAssertEqual(framer.append(ok + [UInt8(ascii: "a"), 0x0A]), [.tooLong])
        // 510 bytes + CRLF is 512: accepted, and the parser drops the CR.
        let crlf = Array(repeating: UInt8(ascii: " "), count: 504) + Array("status\r\n".utf8)
        XCTAssertEqual(crlf.count, 512)
        guard case .line(let bytes) = framer.append(crlf).first else {
            return XCTFail("CRLF line at the limit refused")
        }
        XCTAssertEqual(try ControlRequest.parse(line: bytes).get(), .status)
    }

    /// The specification the framer must meet, written independently of it: split the whole input
    /// at each newline; a segment of `limit` bytes or more is one `.tooLong`, a shorter one a line;
    /// an unfinished last segment that is already too long has been reported, a shorter one is
    /// left for `finish()`.
    private func reference(_ input: [UInt8], limit: Int) -> (lines: [FramedLine], tail: FramedLine?) {
        var segments = input.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        let last = segments.removeLast()
        var lines = segments.map { $0.count >= limit ? FramedLine.tooLong : .line($0) }
        var tail: FramedLine?
        if last.count >= limit { lines.append(.tooLong) } else if !last.isEmpty { tail = .line(last) }
        return (lines, tail)
    }

    func testPropertyRandomBytes() {
        var rng = SeededGenerator(seed: 0x7A1C_C10C)
        func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        let tokens = [
            "status", "json", "say", "trigger", "mute", "for", "until", "unmute", "skip", "reload", "help", "1h30m",
            "07:30", "90s", "STATUS", "Mute", "x", " ", "  ", "\t", "\n", "\n", "\r\n", "\u{0}", "é",
        ].map { Array($0.utf8) }
        var results = 0
        var requests = 0
        var tooLong = 0
        for iteration in 0..<100_000 {
            let limit = [512, 512, 512, 16, 1][below(5)]
            let length = below(10) < 7 ? below(81) : below(1501)
            var input: [UInt8] = []
            input.reserveCapacity(length + 16)
            switch below(4) {
            case 0:  // noise
                while input.count < length { input.append(UInt8(truncatingIfNeeded: rng.next())) }
            case 1:  // words, spaces and line breaks: many valid requests
                while input.count < length { input += tokens[below(tokens.count)] }
            case 2:  // words with stray bytes in between
                while input.count < length {
                    input += below(8) == 0 ? [UInt8(truncatingIfNeeded: rng.next())] : tokens[below(tokens.count)]
                }
            default:  // long lines
                while input.count < length { input.append(below(300) == 0 ? 0x0A : UInt8(ascii: "x")) }
            }

            // Feed in random chunks, as reads from a socket arrive.
            var framer = LineFramer(limit: limit)
            var lines: [FramedLine] = []
            var offset = 0
            while offset < input.count {
                let n = min(input.count - offset, 1 + below(700))
                let out = framer.append(input[offset..<(offset + n)])
                if out.count > n { return XCTFail("iteration \(iteration): more results than bytes") }
                lines += out
                offset += n
                if framer.bufferedByteCount > limit - 1 {
                    return XCTFail(
                        "iteration \(iteration): \(framer.bufferedByteCount) bytes buffered with limit \(limit)")
                }
            }
            let tail = framer.finish()
            XCTAssertEqual(framer.bufferedByteCount, 0)
            let expected = reference(input, limit: limit)
            guard lines == expected.lines && tail == expected.tail else {
                return XCTFail("iteration \(iteration): framer disagrees with the reference for \(input)")
            }

            // Every line gets exactly one reply, and every reply is exactly one line.
            for framed in lines + (tail.map { [$0] } ?? []) {
                let reply: ControlReply
                switch framed {
                case .tooLong:
                    tooLong += 1
                    reply = .error("request too long")
                case .line(let bytes):
                    guard bytes.count < limit else { return XCTFail("iteration \(iteration): oversized line") }
                    switch ControlRequest.parse(line: bytes) {
                    case .success(let request):
                        requests += 1
                        reply = .ok("\(request)")
                    case .failure(let error): reply = error.reply
                    }
                }
                let text = reply.render()
                guard text.utf8.last == 0x0A, !text.utf8.dropLast().contains(where: { $0 == 0x0A || $0 == 0x0D }) else {
                    return XCTFail("iteration \(iteration): reply is not one line: \(text.debugDescription)")
                }
                results += 1
            }
        }
        // Guard against a generator that never reaches the interesting paths.
        XCTAssertGreaterThan(results, 100_000)
        XCTAssertGreaterThan(requests, 10_000, "many random lines should be valid requests")
        XCTAssertGreaterThan(tooLong, 10_000, "many random lines should be too long")
    }
}
