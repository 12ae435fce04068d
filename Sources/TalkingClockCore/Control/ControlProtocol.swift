import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The control socket speaks lines, so that `socat - UNIX-CONNECT:$XDG_RUNTIME_DIR/talking-clock.sock`
// is a usable client and scripts need no library:
//
//   request = command *(SP argument) [CR] LF        ; printable ASCII, at most 512 bytes with the LF
//   reply   = ("ok" [SP text] / "error" SP kind ":" SP sentence) LF
//   kind    = usage / muted / stale / pack / device / state / busy / internal  (one exit status each)
//
// Commands (case-insensitive, any runs of spaces or tabs between words):
//   status | status json | say | say at <unix-seconds> | speak <text> | speak at <unix-seconds> <text> | trigger |
//   mute | mute for <duration> | mute until <HH:MM> | unmute | skip reminder | skip | unskip |
//   announce <max-wait seconds> | chime <style> | volume <0-100> | reminders | reminders json | away on | away off |
//   reload | help
//
// Every request line gets exactly one reply line; `status json` replies `ok {…}` on one line.

/// One control command as every surface shows it, and how it is read: MPD's command table in
/// small (`{ name, permission, min, max, handler }`). The parser tries the rows of the request's
/// first word in order, `help` and the table in docs/control-socket.md list them, the CLI's
/// subcommands take their help from them, and Home Assistant discovery builds its controls from
/// the `homeAssistant` of each row. A new command is one more row here (and its case in the engine).
public struct ControlCommand: Sendable {
    /// The request as typed, arguments in angle brackets.
    public var syntax: String
    /// What it does, in a few words (empty: the syntax says it).
    public var help: String
    /// The Home Assistant control that sends it, or nil.
    public var homeAssistant: HomeAssistantControl?
    /// Reads the arguments after the command word: nil when they are not this row's form (a later
    /// row of the same word may take them), else the request or why it is refused.
    let read: @Sendable (_ arguments: [String]) -> Result<ControlRequest, ControlProtocolError>?

    init(
        _ syntax: String, _ help: String, homeAssistant: HomeAssistantControl? = nil,
        read: @escaping @Sendable ([String]) -> Result<ControlRequest, ControlProtocolError>?
    ) {
        self.syntax = syntax
        self.help = help
        self.homeAssistant = homeAssistant
        self.read = read
    }

    /// A row with no arguments (`unmute`, `skip`); its own usage error when given some.
    init(_ word: String, _ help: String, homeAssistant: HomeAssistantControl? = nil, _ request: ControlRequest) {
        self.init(word, help, homeAssistant: homeAssistant) { arguments in
            guard arguments.isEmpty else {
                return .failure(
                    ControlProtocolError("'\(word)' takes no arguments, but got '\(arguments.joined(separator: " "))'."))
            }
            return .success(request)
        }
    }

    /// The command word ("mute" for "mute for <duration>").
    public var word: String { String(syntax.prefix { $0 != " " }) }

    /// The help of the row whose syntax is `syntax` (the CLI's subcommands use it).
    public static func help(_ syntax: String) -> String {
        all.first { $0.syntax == syntax }?.help ?? ""
    }

    public static let all: [ControlCommand] = [
        ControlCommand("status", "summary") { $0.isEmpty ? .success(.status) : nil },
        ControlCommand("status json", "the same as JSON") { arguments in
            if arguments.count == 1 && arguments[0].lowercased() == "json" { return .success(.statusJSON) }
            return .failure(
                ControlProtocolError("'status' takes no argument or 'json', not '\(arguments.joined(separator: " "))'."))
        },
        ControlCommand(
            "say", "speak the time now",
            homeAssistant: .button(key: "say", name: "Say the time", icon: "mdi:account-voice")
        ) { $0.isEmpty ? .success(.say) : nil },
        ControlCommand("say at <unix-seconds>", "first sample at that instant, e.g. say at 1767225600.000: rooms in unison") {
            ControlRequest.parseSayAt($0)
        },
        ControlCommand(
            "speak <text>", "say these words now, in the pack's voice (its synthesis engine renders them)",
            homeAssistant: .notify(key: "speak", name: "Speak", icon: "mdi:bullhorn", command: "speak {{ value }}", everyRoom: false)
        ) { arguments in
            guard let first = arguments.first, first.lowercased() != "at" else { return nil }
            return ControlRequest.parseSpeakText(arguments, at: nil)
        },
        ControlCommand(
            "speak at <unix-seconds> <text>", "the words with their first sample at that instant: rooms in unison",
            homeAssistant: .notify(
                key: "speak_everywhere", name: "Speak in every room", icon: "mdi:bullhorn-outline",
                command: "speak at {{ (as_timestamp(now()) + \(Int(ControlRequest.speakEverywhereLead))) | round(0, 'ceil') | int }} {{ value }}",
                everyRoom: true)
        ) { arguments in
            guard arguments.first?.lowercased() == "at" else { return nil }
            guard arguments.count >= 3 else {
                return .failure(ControlProtocolError("'speak at' needs an instant and the words, such as speak at 1767225600 Dinner is ready."))
            }
            switch ControlRequest.parseSayAt(Array(arguments.prefix(2))) {
            case .success(.sayAt(let instant)): return ControlRequest.parseSpeakText(Array(arguments.dropFirst(2)), at: instant)
            case .failure(let error):
                return .failure(ControlProtocolError(error.message.replacing("'say' takes nothing or 'at <unix-seconds>'", with: "'speak at' takes <unix-seconds> then the words")))
            default: return nil
            }
        },
        ControlCommand("trigger", "a boundary is near: announce it on time", .trigger),
        ControlCommand(
            "mute", "until unmute",
            homeAssistant: .switchOn(key: "mute", name: "Mute", icon: "mdi:volume-off", state: "{{ 'ON' if value_json.muted else 'OFF' }}")
        ) { $0.isEmpty ? .success(.mute) : nil },
        ControlCommand(
            "mute for <duration>", "e.g. 90s, 30m, 1h30m",
            homeAssistant: .number(
                key: "mute_for", name: "Mute for", icon: "mdi:timer-off-outline",
                // Minutes from now (0 unmutes); its state is the minutes left, from `mute_until`.
                command: "{{ 'unmute' if (value | int) == 0 else 'mute for ' ~ (value | int) ~ 'm' }}",
                state:
                    "{{ [((as_timestamp(value_json.mute_until) - as_timestamp(now())) / 60) | round(0, 'ceil') | int, 0] | max "
                    + "if value_json.get('mute_until') else 0 }}",
                range: HomeAssistantControl.NumberRange(min: 0, max: 1440, step: 5, mode: "box", unit: "min", isSetting: false))
        ) { arguments in
            guard arguments.first?.lowercased() == "for" else { return nil }
            let rest = arguments.dropFirst().joined(separator: " ")
            guard !rest.isEmpty else {
                return .failure(ControlProtocolError("'mute for' needs a duration, such as mute for 30m or mute for 1h30m."))
            }
            do throws(MuteError) { return .success(.muteFor(seconds: try Mute.parseDuration(rest))) } catch {
                return .failure(ControlProtocolError(error.description))
            }
        },
        ControlCommand("mute until <HH:MM>", "local time") { arguments in
            guard arguments.first?.lowercased() == "until" else {
                return .failure(
                    ControlProtocolError(
                        "'mute' takes nothing, 'for <duration>' or 'until <HH:MM>', not '\(arguments.joined(separator: " "))'."))
            }
            guard arguments.count == 2 else {
                return .failure(ControlProtocolError("'mute until' needs one time of day, such as mute until 07:30 (24-hour HH:MM)."))
            }
            do throws(InstantParser.Failure) {
                let time = try InstantParser.parseClockTime(arguments[1])
                return .success(.muteUntil(hour: time.hour, minute: time.minute))
            } catch {
                return .failure(ControlProtocolError(error.description))
            }
        },
        ControlCommand("unmute", "", homeAssistant: .switchOff(key: "mute"), .unmute),
        ControlCommand("skip reminder", "leave out the next reminder") { arguments in
            guard arguments.first?.lowercased() == "reminder" else { return nil }
            guard arguments.count == 1 else {
                return .failure(ControlProtocolError("'skip reminder' takes nothing more, not '\(arguments.dropFirst().joined(separator: " "))'."))
            }
            return .success(.skipReminder)
        },
        ControlCommand(
            "skip", "cut the announcement playing now, or leave out the next one",
            homeAssistant: .button(key: "skip", name: "Skip the next announcement", icon: "mdi:skip-next")
        ) { arguments in
            guard arguments.isEmpty else {
                return .failure(ControlProtocolError("'skip' takes nothing or 'reminder', not '\(arguments.joined(separator: " "))'."))
            }
            return .success(.skip)
        },
        ControlCommand("unskip", "take back a pending skip (of an announcement or a reminder)", .unskip),
        ControlCommand("announce <max-wait seconds>", "as 'announce --next': reply once the next boundary is spoken") { arguments in
            guard arguments.count == 1, let seconds = Int(arguments[0]), seconds >= 0, seconds <= 86_400 else {
                return .failure(
                    ControlProtocolError("'announce' needs the longest wait in whole seconds (0 to 86400), such as announce 60."))
            }
            return .success(.announce(maxWait: seconds))
        },
        ControlCommand(
            "chime <style>", "none, hour, westminster or ships-bells; until reload or restart",
            homeAssistant: .select(
                key: "chime", name: "Chime", icon: "mdi:bell-ring", command: "chime {{ value }}", state: "{{ value_json.chime }}")
        ) { arguments in
            let styles = ChimeStyle.allCases.map(\.rawValue)
            guard arguments.count == 1, let style = ChimeStyle(rawValue: arguments[0].lowercased()) else {
                return .failure(
                    ControlProtocolError(
                        "'chime' needs one style, one of \(styles.joined(separator: ", ")), such as chime westminster"
                            + (arguments.isEmpty ? "." : ", not '\(arguments.joined(separator: " "))'.")))
            }
            return .success(.chime(style))
        },
        ControlCommand(
            "volume <0-100>", "until reload or restart",
            homeAssistant: .number(
                key: "volume", name: "Volume", icon: "mdi:volume-high", command: "volume {{ value | int }}",
                state: "{{ value_json.volume }}",
                range: HomeAssistantControl.NumberRange(min: 0, max: 100, step: 1, mode: "slider", unit: "%", isSetting: true))
        ) { arguments in
            guard arguments.count == 1, arguments[0].allSatisfy(\.isASCII), let percent = Int(arguments[0]), (0...100).contains(percent)
            else {
                return .failure(
                    ControlProtocolError(
                        "'volume' needs a whole percent from 0 to 100, such as volume 40"
                            + (arguments.isEmpty ? "." : ", not '\(arguments.joined(separator: " "))'.")))
            }
            return .success(.volume(percent))
        },
        ControlCommand("reminders", "the reminders and when each is next said") { $0.isEmpty ? .success(.reminders) : nil },
        ControlCommand("reminders json", "the same as JSON") { arguments in
            if arguments.count == 1 && arguments[0].lowercased() == "json" { return .success(.remindersJSON) }
            return .failure(ControlProtocolError("'reminders' takes no argument or 'json', not '\(arguments.joined(separator: " "))'."))
        },
        ControlCommand(
            "away on", "reminders pause until 'away off' (the clock still speaks)",
            homeAssistant: .switchOn(
                key: "away", name: "Away", icon: "mdi:bag-suitcase", state: "{{ 'ON' if value_json.away_switch else 'OFF' }}")
        ) { arguments in
            guard arguments.count == 1, arguments[0].lowercased() == "on" else { return nil }
            return .success(.away(true))
        },
        ControlCommand("away off", "reminders are said again", homeAssistant: .switchOff(key: "away")) { arguments in
            guard arguments.count == 1, arguments[0].lowercased() == "off" else {
                return .failure(ControlProtocolError("'away' takes 'on' or 'off', not '\(arguments.joined(separator: " "))'."))
            }
            return .success(.away(false))
        },
        ControlCommand("reload", "re-read the config and the pack", .reload),
        ControlCommand("help", "", .help),
    ]
}

/// A Home Assistant control made from a row of the command table (discovery builds it).
public enum HomeAssistantControl: Sendable, Equatable {
    public struct NumberRange: Sendable, Equatable {
        public var min: Int
        public var max: Int
        public var step: Int
        public var mode: String
        public var unit: String
        /// Shown among the device's settings (`entity_category: config`).
        public var isSetting: Bool
    }
    /// A button that sends the row's syntax.
    case button(key: String, name: String, icon: String)
    /// A switch whose "on" sends the row's syntax; `state` renders ON/OFF from the state topic.
    case switchOn(key: String, name: String, icon: String, state: String)
    /// The "off" of the switch `key`: sends the row's syntax.
    case switchOff(key: String)
    /// A number: `command` renders the request from the value, `state` the value from the state topic.
    case number(key: String, name: String, icon: String, command: String, state: String, range: NumberRange)
    /// A select of the chime styles the pack rings.
    case select(key: String, name: String, icon: String, command: String, state: String)
    /// A notify entity: Home Assistant's `notify.send_message` renders `command` with the message
    /// as `value`; `everyRoom` sends it to every room's command topic.
    case notify(key: String, name: String, icon: String, command: String, everyRoom: Bool)

    /// The entity's platform ("button", "switch", "number", "select").
    public var platform: String {
        switch self {
        case .button: "button"
        case .switchOn, .switchOff: "switch"
        case .number: "number"
        case .select: "select"
        case .notify: "notify"
        }
    }
}

/// A request from a control client.
public enum ControlRequest: Hashable, Sendable {
    /// A one-line human summary.
    case status
    /// The same as one line of JSON.
    case statusJSON
    /// Speak the current time now.
    case say
    /// Say these words (rendered by the pack's synthesis engine), now or with the first sample at
    /// the instant (as `sayAt`).
    case speak(text: String, at: Double?)
    /// The reminders, on one line.
    case reminders
    /// The same as JSON (`RemindersReport`).
    case remindersJSON
    /// Leave out the next reminder.
    case skipReminder
    /// The away switch: reminders pause (on) or are said again (off).
    case away(Bool)
    /// Speak the time with the first sample at this instant (seconds since the epoch on the
    /// daemon's clock, to the millisecond): what `say --everywhere` sends so that every room
    /// speaks in unison. Spoken at once if it passed less than `late-limit` ago; refused if it
    /// passed longer ago or is more than `sayAtHorizon` seconds ahead.
    case sayAt(Double)
    /// A boundary is near: announce it on time, as the timer would (for `driver = "external"`).
    case trigger
    /// Mute until `unmute`.
    case mute
    /// Mute for this many seconds.
    case muteFor(seconds: Int)
    /// Mute until the next time the local clock reads this time.
    case muteUntil(hour: Int, minute: Int)
    case unmute
    /// Cut the announcement playing now, or, if none is playing, leave out the next one.
    case skip
    /// Take back a pending `skip` (the next announcement is spoken after all).
    case unskip
    /// `announce --next` handed to the daemon: announce the next boundary if it is at most
    /// `maxWait` seconds away, and reply only when it has been decided and played (or failed),
    /// with the same outcome the stand-alone `announce --next` exits with.
    case announce(maxWait: Int)
    /// Set the chime style of the running daemon (until `reload` or restart; the file is not changed).
    case chime(ChimeStyle)
    /// Set the output volume in percent, 0…100 (until `reload` or restart).
    case volume(Int)
    /// Re-read the configuration and the sound pack.
    case reload
    case help

    /// The request syntax, for `help` and for errors (from `ControlCommand.all`).
    public static var commands: [String] { ControlCommand.all.map(\.syntax) }

    /// The reply text of `help`: every command with what it does, on one line.
    public static var helpText: String {
        "commands: "
            + ControlCommand.all.map { $0.help.isEmpty ? $0.syntax : "\($0.syntax) (\($0.help))" }.joined(separator: ", ")
    }

    /// How far ahead a `say at` may be, in seconds.
    public static let sayAtHorizon = 30.0

    /// How far ahead Home Assistant's "Speak in every room" puts the instant: time for each room to
    /// render the words and open its device.
    public static let speakEverywhereLead = 3.0

    /// The words of a `speak`: at least one, plain text (any language: UTF-8 without control
    /// characters).
    static func parseSpeakText(_ words: [String], at instant: Double?) -> Result<ControlRequest, ControlProtocolError> {
        let text = words.joined(separator: " ")
        guard !text.isEmpty else {
            return .failure(ControlProtocolError("'speak' needs the words to say, such as speak Dinner is ready."))
        }
        return .success(.speak(text: text, at: instant))
    }

    /// The longest request line in bytes, including its newline.
    public static let maximumLineLength = 512

    /// The command words, for "did you mean".
    private static var words: [String] {
        var seen: [String] = []
        for c in ControlCommand.all {
            let word = String(c.syntax.prefix { $0 != " " })
            if !seen.contains(word) { seen.append(word) }
        }
        return seen
    }

    /// Parses one request line. A trailing `\n` or `\r\n` is allowed and ignored.
    public static func parse(line: [UInt8]) -> Result<ControlRequest, ControlProtocolError> {
        var bytes = line[...]
        if bytes.last == 0x0A { bytes = bytes.dropLast() }
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        guard bytes.count < maximumLineLength else {
            return .failure(
                ControlProtocolError(
                    "the request is longer than \(maximumLineLength - 1) bytes; send one of: "
                        + "\(commands.joined(separator: ", "))."
                ))
        }
        // `speak` carries words in any language: UTF-8 without control characters.
        if let text = String(validating: bytes, as: UTF8.self), text.lowercased().hasPrefix("speak"),
            text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) || $0 == "\t" }),
            !text.unicodeScalars.contains(where: { $0 == "\u{2028}" || $0 == "\u{2029}" })
        {
            let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if let first = parts.first, first.lowercased() == "speak" {
                let arguments = Array(parts.dropFirst())
                for row in ControlCommand.all where row.word == "speak" {
                    if let result = row.read(arguments) { return result }
                }
                return .failure(ControlProtocolError("'speak' needs the words to say, such as speak Dinner is ready."))
            }
        }
        // Printable ASCII and tab only: anything else is a binary client or a wrong socket.
        guard bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }) else {
            // Text, but not ASCII: say which character ("mute for ５m" has a fullwidth digit).
            if let text = String(validating: bytes, as: UTF8.self),
                let odd = text.unicodeScalars.first(where: { !$0.isASCII }),
                text.unicodeScalars.allSatisfy({ !($0.value < 0x20 && $0 != "\t") && $0.value != 0x7F })
            {
                let hex = String(odd.value, radix: 16, uppercase: true)
                let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                let digit = odd.properties.numericType == .decimal
                return .failure(
                    ControlProtocolError(
                        "the request contains '\(Character(odd))' (\(code)), but commands are plain ASCII"
                            + (digit ? "; write numbers with the digits 0-9, e.g. \"mute for 5m\"." : "; retype it with plain letters and digits, e.g. \"mute for 30m\".")))
            }
            return .failure(
                ControlProtocolError(
                    "the request contains non-text bytes; send one line of plain text such as \"status\"."))
        }
        let parts = bytes.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
            .map { String(decoding: $0, as: UTF8.self) }
        guard let first = parts.first else {
            return .failure(
                ControlProtocolError(
                    "the request is empty; send one of: \(commands.joined(separator: ", "))."))
        }
        let command = first.lowercased()
        let arguments = Array(parts.dropFirst())
        let rows = ControlCommand.all.filter { $0.word == command }
        guard !rows.isEmpty else {
            let list = commands.joined(separator: ", ")
            if let near = Suggestion.closest(to: command, in: words) {
                return .failure(
                    ControlProtocolError("unknown command '\(first)'; did you mean '\(near)'? Commands: \(list)."))
            }
            return .failure(ControlProtocolError("unknown command '\(first)'; commands: \(list)."))
        }
        for row in rows {
            if let result = row.read(arguments) { return result }
        }
        return .failure(
            ControlProtocolError(
                "'\(command)' takes \(rows.map { "'\($0.syntax)'" }.joined(separator: " or ")), not '\(arguments.joined(separator: " "))'."))
    }

    /// `say at <seconds since the epoch>`: digits with an optional fraction (no sign, no exponent).
    static func parseSayAt(_ arguments: [String]) -> Result<ControlRequest, ControlProtocolError> {
        let usage = "'say' takes nothing or 'at <unix-seconds>' (e.g. say at 1767225600.000)"
        guard arguments.count == 2, arguments[0].lowercased() == "at" else {
            return .failure(ControlProtocolError("\(usage), not '\(arguments.joined(separator: " "))'."))
        }
        let text = arguments[1]
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
            parts.count == 1 || (parts[1].count >= 1 && parts[1].count <= 9 && parts[1].allSatisfy({ $0.isASCII && $0.isNumber })),
            let seconds = Double(text), seconds.isFinite
        else {
            return .failure(ControlProtocolError("\(usage); '\(text)' is not a number of seconds since 1970."))
        }
        return .success(.sayAt(seconds))
    }
}

/// Why a request line was refused; its message is the text of the `error` reply.
public struct ControlProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }

    /// The reply to send for this error.
    public var reply: ControlReply { .error(message) }
}

/// What kind of failure an `error` reply reports: the first word of its text, so that every
/// client (the CLI, a script, MQTT) can map it to the same exit status as the stand-alone path.
public enum ControlErrorKind: String, Hashable, Sendable, CaseIterable {
    /// A malformed request or a value that cannot be used (exit 64).
    case usage
    /// Nothing spoken on purpose: muted or quiet hours (exit 2).
    case muted
    /// No boundary near enough, already announced, or too late (exit 3).
    case stale
    /// The sound pack cannot say it (exit 65).
    case pack
    /// The sound device is missing, busy or failed (exit 69).
    case device
    /// The state file could not be written (exit 73).
    case state
    /// Try again: too many clients, an announcement is about to play (exit 75).
    case busy
    /// A bug (exit 70).
    case `internal`

    public var exitStatus: ExitStatus {
        switch self {
        case .usage: .badInput
        case .muted: .muted
        case .stale: .stale
        case .pack: .packError
        case .device: .deviceError
        case .state: .cannotWrite
        case .busy: .busy
        case .internal: .internalError
        }
    }
}

/// A reply line.
public enum ControlReply: Hashable, Sendable {
    /// `ok`, or `ok <text>` (for `status json`, the text is the JSON object).
    case ok(String? = nil)
    /// `error <kind>: <sentence>`, e.g. `error device: Could not open ALSA device "x": …`.
    case error(String, kind: ControlErrorKind = .usage)

    /// Exactly one line ending in `\n`. Line breaks and other control characters inside the text
    /// become spaces, so a message can never split into two replies and desynchronise a client.
    public func render() -> String {
        switch self {
        case .ok(let text):
            let clean = ControlReply.sanitize(text ?? "")
            return clean.isEmpty ? "ok\n" : "ok \(clean)\n"
        case .error(let message, let kind):
            let clean = ControlReply.sanitize(message)
            return "error \(kind.rawValue): \(clean.isEmpty ? "unspecified error" : clean)\n"
        }
    }

    /// Reads a reply line (without its newline) as a client: `ok` text, or the error's kind and
    /// sentence. A line that is neither is an internal error (a wrong socket, a protocol bug).
    public static func parse(_ line: String) -> ControlReply {
        if line == "ok" { return .ok(nil) }
        if line.hasPrefix("ok ") { return .ok(String(line.dropFirst(3))) }
        if line.hasPrefix("error ") {
            let rest = line.dropFirst(6)
            if let colon = rest.firstIndex(of: ":"), let kind = ControlErrorKind(rawValue: String(rest[..<colon])) {
                return .error(String(rest[rest.index(after: colon)...].drop(while: { $0 == " " })), kind: kind)
            }
            return .error(String(rest), kind: .usage)
        }
        return .error("unexpected reply from the daemon: \(line)", kind: .internal)
    }

    static func sanitize(_ text: String) -> String {
        let utf8 = text.utf8
        // Most replies are plain printable ASCII already.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) && utf8.first != 0x20 && utf8.last != 0x20 { return text }
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(utf8.count)
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue  // CRLF becomes one space
            }
            previousWasCR = scalar == "\r"
            let isBreakOrControl =
                scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}"
                || scalar == "\u{2029}"
            out.append(isBreakOrControl ? " " : scalar)
        }
        var start = 0
        var end = out.count
        while start < end && out[start] == " " { start += 1 }
        while end > start && out[end - 1] == " " { end -= 1 }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: out[start..<end])
        return String(view)
    }
}

/// One unit out of `LineFramer`.
public enum FramedLine: Hashable, Sendable {
    /// A complete line without its `\n` (a `\r` before it is left for `ControlRequest.parse`).
    case line([UInt8])
    /// A line longer than the limit; its bytes were dropped.
    case tooLong
}

/// Splits a byte stream into request lines with bounded memory.
///
/// At most `limit - 1` bytes of an unfinished line are held. A line that grows past the limit is
/// reported once, as `.tooLong`, the moment it does (so a client that never sends a newline still
/// gets its one answer), and its remaining bytes are dropped up to and including the next `\n`.
/// The number of results for one `append` is at most the number of bytes appended.
public struct LineFramer: Hashable, Sendable {
    /// The protocol's line limit, in bytes including the `\n` (the default `limit`).
    public static let maxLineLength = ControlRequest.maximumLineLength

    /// The longest accepted line, in bytes including the `\n`.
    public let limit: Int
    private var pending: [UInt8] = []
    private var discarding = false

    public init(limit: Int = LineFramer.maxLineLength) {
        precondition(limit >= 1, "a line needs room for at least its newline")
        self.limit = limit
        pending.reserveCapacity(limit - 1)
    }

    /// Bytes held for the unfinished line; never more than `limit - 1`.
    public var bufferedByteCount: Int { pending.count }

    /// Whether the current line is being dropped because it is too long.
    public var isDiscarding: Bool { discarding }

    public mutating func append(_ bytes: some Collection<UInt8>) -> [FramedLine] {
        // Work on contiguous memory: whole segments between newlines are copied at once instead of
        // going byte by byte through the generic collection.
        if let out = bytes.withContiguousStorageIfAvailable({ append(buffer: $0) }) { return out }
        return Array(bytes).withUnsafeBufferPointer { append(buffer: $0) }
    }

    private mutating func append(buffer: UnsafeBufferPointer<UInt8>) -> [FramedLine] {
        var out: [FramedLine] = []
        var start = 0
        while start < buffer.count {
            var end = start
            while end < buffer.count && buffer[end] != 0x0A { end += 1 }
            if !discarding {
                // With its newline the line would exceed the limit: drop what is held and the rest.
                if pending.count + (end - start) >= limit {
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                    out.append(.tooLong)
                } else {
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<end]))
                }
            }
            guard end < buffer.count else { break }
            if discarding {
                discarding = false
            } else {
                out.append(.line(pending))
                pending.removeAll(keepingCapacity: true)
            }
            start = end + 1
        }
        return out
    }

    /// At end of input: the unfinished last line, if any (so `printf status | socat …` works).
    public mutating func finish() -> FramedLine? {
        defer {
            pending.removeAll(keepingCapacity: true)
            discarding = false
        }
        return discarding || pending.isEmpty ? nil : .line(pending)
    }
}
