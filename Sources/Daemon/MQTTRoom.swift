import ClockEngine
import ConfigFiles
import EventLoop
import FoundationEssentials
import Glibc
import MQTT
import TalkingClockCore

/// The `[mqtt]` settings made ready to connect: the room resolved, the password read.
struct MQTTSettings {
    var options: MQTTOptions
    var room: String
    var topic: String
    /// The Home Assistant discovery message (topic and payload), or nil with `discovery = false`.
    var discovery: MQTTMessage?
    /// `<discovery-prefix>/status`, where Home Assistant says `online` when it (re)starts.
    var discoveryStatusTopic: String?
    /// `[value]`'s topic: each reading is handed to the engine (retained readings too: the latest).
    var valueTopic: String?

    /// Resolves the room (the host name by default) and reads the password file, refusing one
    /// that group or others can read. `configPath` is the file the table came from.
    /// `chimes`: the chime styles the pack can ring (the Home Assistant select offers only those).
    static func resolve(
        _ config: MQTTConfig, configPath: String?, version: String = "unknown", chimes: [String]? = nil, reminders: Bool = false,
        speak: Bool = false
    ) throws(DaemonStartError) -> MQTTSettings {
        let room: String
        if let r = config.room {
            room = r
        } else {
            var buf = [CChar](repeating: 0, count: 256)
            gethostname(&buf, buf.count)
            let host = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            switch MQTTConfig.room(fromHostName: host) {
            case .success(let short): room = short
            case .failure(let error):
                throw DaemonStartError(status: .badInput, description: "\(configPath ?? "config"): \(error.description)")
            }
        }
        let password = try readPassword(config, configPath: configPath)
        var options = MQTTOptions(
            host: config.host, port: config.port, clientID: "talking-clock-\(room)", keepalive: config.keepalive,
            username: config.username, password: password,
            caFile: config.tls ? (config.caFile ?? "/etc/ssl/certs/ca-certificates.crt") : nil,
            will: MQTTMessage(topic: "\(config.topic)/\(room)/availability", text: "offline", qos: 1, retained: true))
        options.backoffMax = 60
        options.maximumPayload = MQTTRoom.maximumPayload
        // Many rooms losing one broker come back spread over the second half of each delay.
        options.jitter = 0.5
        var settings = MQTTSettings(options: options, room: room, topic: config.topic)
        if config.discovery {
            settings.discovery = MQTTMessage(
                topic: HomeAssistantDiscovery.configTopic(prefix: config.discoveryPrefix, room: room),
                text: HomeAssistantDiscovery.payload(
                    config: config, room: room, version: version, chimes: chimes, reminders: reminders, speak: speak
                ).json, qos: 1,
                retained: true)
            settings.discoveryStatusTopic = HomeAssistantDiscovery.statusTopic(prefix: config.discoveryPrefix)
        }
        return settings
    }

    /// The password from `password-file` (nil without one), refusing a file that group or others can read.
    static func readPassword(_ config: MQTTConfig, configPath: String?) throws(DaemonStartError) -> String? {
        try MQTTPasswordFile.read(config, configPath: configPath)
    }
}

/// One room on the broker: the topic contract of docs/mqtt.md. Lives on the daemon's loop;
/// never on the announcement path (publishing while disconnected drops the message, and what is
/// retained is republished on the next connection).
final class MQTTRoom: EngineSurface {
    /// Commands longer than this get an error reply (the control protocol's own limit).
    static let maximumCommand = ControlRequest.maximumLineLength - 1

    let settings: MQTTSettings
    private let client: MQTTClient
    private let source: MQTTEventSource
    private let logger: JournalLog
    /// Runs one control line; the reply text (without newline) comes through the closure, now or later.
    private let execute: ([UInt8], @escaping (String) -> Void) -> Void
    /// A reading of the value topic arrived (its payload as text).
    var onValue: (String) -> Void = { _ in }
    /// The status the engine last handed over (as JSON), published retained whenever connected.
    private var latestState: String?
    private var publishedState: String?
    private let loop: EventLoop
    /// Waits the random delay between Home Assistant's birth message and our discovery answer.
    private let discoveryTimer: TimerFD
    /// Home Assistant asks every device at once when it starts: each room answers after a random
    /// delay of up to this many seconds (its documented advice), not all in the same instant.
    static let discoveryDelayMax = 5.0

    var base: String { "\(settings.topic)/\(settings.room)" }

    init(
        settings: MQTTSettings, loop: EventLoop, logger: JournalLog, state: StatusReport?,
        execute: @escaping ([UInt8], @escaping (String) -> Void) -> Void
    ) throws(DaemonStartError) {
        self.settings = settings
        self.logger = logger
        self.latestState = state?.json
        self.execute = execute
        do { client = try MQTTClient(settings.options) } catch {
            throw DaemonStartError(status: .badInput, description: error.description)
        }
        self.loop = loop
        do {
            source = try MQTTEventSource(client: client, loop: loop)
            discoveryTimer = try TimerFD(realtime: false)
        } catch {
            throw DaemonStartError(status: .internalError, description: error.description)
        }
        client.onState = { [unowned self] in self.stateChanged($0) }
        client.onConnect = { [unowned self] in self.connected() }
        client.onMessage = { [unowned self] in self.received($0) }
        client.onOversized = { [unowned self] in self.oversized(topic: $0, bytes: $1) }
        if settings.discovery != nil {
            do {
                try loop.watch(discoveryTimer.fd, events: .readable) { [unowned self] _ in
                    guard self.discoveryTimer.read() == .fired else { return }
                    self.publishDiscovery(reason: "home assistant online")
                }
            } catch {
                throw DaemonStartError(status: .internalError, description: error.description)
            }
        }
    }

    deinit { loop.unwatch(discoveryTimer.fd) }

    func start() { client.start() }

    /// A clean stop: `offline` (retained) and DISCONNECT, so the broker does not need the will.
    func stop() {
        discoveryTimer.disarm()
        if client.state == .connected { publish("availability", "offline", retained: true) }
        client.stop()
    }

    // MARK: EngineSurface

    /// The retained `state` topic shows this status (now, or once connected).
    func status(_ report: StatusReport, line: String) {
        latestState = report.json
        publishStateIfChanged()
    }

    /// The `event` topic (not retained; dropped while disconnected).
    func outcome(_ outcome: Outcome) {
        guard client.state == .connected else { return }
        publish("event", outcome.event.json, retained: false)
    }

    /// Republishes the retained state if it differs from what was published last.
    private func publishStateIfChanged() {
        guard client.state == .connected, let json = latestState, json != publishedState else { return }
        publishedState = json
        publish("state", json, retained: true)
    }

    private func publish(_ leaf: String, _ text: String, retained: Bool) {
        do { try client.publish(MQTTMessage(topic: "\(base)/\(leaf)", text: text, qos: 1, retained: retained)) } catch {
            logger.warning("mqtt publish failed", metadata: ["topic": "\(base)/\(leaf)", "error": "\(error.description)"])
        }
    }

    private func connected() {
        logger.info("mqtt connected", metadata: ["broker": "\(settings.options.brokerName)", "room": "\(settings.room)"])
        do {
            // Retain as published: a command sent with the retain flag is refused whenever it comes.
            try client.subscribe("\(base)/command", qos: 1, retainAsPublished: true)
            try client.subscribe("\(settings.topic)/\(MQTTConfig.allRooms)/command", qos: 1, retainAsPublished: true)
            if let status = settings.discoveryStatusTopic { try client.subscribe(status, qos: 1) }
            if let value = settings.valueTopic { try client.subscribe(value, qos: 1) }
        } catch {
            logger.warning("mqtt subscribe failed", metadata: ["error": "\(error.description)"])
        }
        publish("availability", "online", retained: true)
        publishedState = nil
        publishStateIfChanged()
        publishDiscovery(reason: "connected")
        let owed = owedReplies
        owedReplies = []
        for text in owed { reply(text) }
    }

    /// The retained Home Assistant discovery config (nothing with `discovery = false`).
    private func publishDiscovery(reason: String) {
        guard let message = settings.discovery, client.state == .connected else { return }
        do {
            try client.publish(message)
            logger.info("mqtt discovery published", metadata: ["topic": "\(message.topic)", "reason": "\(reason)"])
        } catch {
            logger.warning("mqtt publish failed", metadata: ["topic": "\(message.topic)", "error": "\(error.description)"])
        }
    }

    private func stateChanged(_ state: MQTTState) {
        if case .waiting(_, let retry) = state, client.shortSessions >= Self.takeoverSuspicion {
            // MQTT 3.1.1 gives no reason when the broker drops a client for another with the
            // same client id; a run of connections closed at once is how it shows.
            logger.warning(
                "mqtt room taken over",
                metadata: [
                    "room": "\(settings.room)", "client_id": "\(settings.options.clientID)",
                    "closed_at_once": "\(client.shortSessions)", "retry_s": "\(Format.fixed(retry, 1))",
                    "error":
                        "The broker \(settings.options.brokerName) closed \(client.shortSessions) connections in a row within \(Int(settings.options.stableAfter)) s of accepting them: another client uses the client id \(settings.options.clientID), most likely a second talking-clock with room = \"\(settings.room)\" (on this or another machine). Give each clock its own room; this one backs off (at most \(Int(settings.options.backoffMax)) s between attempts).",
                ])
            return
        }
        if case .waiting(let error, let retry) = state {
            // Once per failure: the backoff doubles up to a minute, so at most ~60 lines an hour.
            logger.warning(
                "mqtt not connected",
                metadata: ["error": "\(error.description)", "retry_s": "\(Format.fixed(retry, 1))"])
        }
    }

    /// Connections closed at once, in a row, before the room says it is taken over.
    static let takeoverSuspicion = 3

    /// Largest MQTT payload copied out of libmosquitto's buffer (`MQTTOptions.maximumPayload`).
    static let maximumPayload = 65_536

    /// Commands run from MQTT: a burst of `commandBurst`, then `commandsPerSecond` (a token
    /// bucket). 3,000 `say` in a second restarted the announcement hundreds of times.
    static let commandBurst = 10.0
    static let commandsPerSecond = 2.0
    private var tokens = MQTTRoom.commandBurst
    private var tokensAt = 0.0
    /// Commands refused by the rate limit since the last one that ran (logged, and answered
    /// once per refusal run so a flood does not become a flood of replies).
    private var refused = 0

    /// Takes a token for one command; false when the bucket is empty.
    private func admit(now: Double) -> Bool {
        tokens = min(Self.commandBurst, tokens + (now - tokensAt) * Self.commandsPerSecond)
        tokensAt = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    private func oversized(topic: String, bytes: Int) {
        logger.warning(
            "mqtt message too large",
            metadata: ["topic": "\(topic)", "payload_bytes": "\(bytes)", "limit_bytes": "\(Self.maximumPayload)"])
        if topic == "\(base)/command" || topic == "\(settings.topic)/\(MQTTConfig.allRooms)/command" {
            reply("error usage: the command is \(bytes) bytes, more than \(Self.maximumCommand); send one control line such as 'mute for 30m'.")
        }
    }

    private func received(_ message: MQTTMessage) {
        if let status = settings.discoveryStatusTopic, message.topic == status {
            // Home Assistant's birth message: it has (re)started and wants the discovery again.
            // Its retained `online` replayed on our subscribe is answered too (harmless: the same
            // retained config).
            if message.payload == Array("online".utf8), settings.discovery != nil {
                let delay = Double.random(in: 0...Self.discoveryDelayMax)
                logger.info("mqtt discovery due", metadata: ["reason": "home assistant online", "delay_s": "\(Format.fixed(delay, 3))"])
                discoveryTimer.arm(after: delay)
            }
            return
        }
        if let value = settings.valueTopic, message.topic == value {
            // A sensor's state is short text; anything longer is not one.
            guard message.payload.count <= 64 else {
                logger.warning("value refused", metadata: ["topic": "\(value)", "reason": "a reading of \(message.payload.count) bytes is not a sensor state"])
                return
            }
            onValue(String(decoding: message.payload, as: UTF8.self))
            return
        }
        guard message.topic == "\(base)/command" || message.topic == "\(settings.topic)/\(MQTTConfig.allRooms)/command"
        else { return }
        if message.retained {
            // Replayed by the broker on subscribe, or published retained while we are connected
            // (seen as such through MQTT 5's retain-as-published): a `say` retained by mistake
            // must not speak at every restart.
            logger.warning("mqtt retained command ignored", metadata: ["topic": "\(message.topic)", "payload_bytes": "\(message.payload.count)"])
            reply(
                "error usage: a retained command is never executed; publish commands without the retain flag, and clear this one with: mosquitto_pub -r -n -t '\(message.topic)'"
            )
            return
        }
        // An empty message is how a retained one is cleared (mosquitto_pub -r -n): not a command.
        guard !message.payload.isEmpty else { return }
        var bytes = message.payload
        if bytes.last == 10 { bytes.removeLast() }
        if bytes.last == 13 { bytes.removeLast() }
        guard bytes.count <= Self.maximumCommand else {
            reply("error usage: the command is \(message.payload.count) bytes, more than \(Self.maximumCommand); send one control line such as 'mute for 30m'.")
            return
        }
        if bytes.contains(10) {
            reply("error usage: one command per message; the payload has several lines.")
            return
        }
        guard admit(now: MQTTClient.now()) else {
            refused += 1
            if refused == 1 {
                logger.warning(
                    "mqtt command flood",
                    metadata: ["topic": "\(message.topic)", "burst": "\(Int(Self.commandBurst))", "per_second": "\(Format.fixed(Self.commandsPerSecond, 0))"])
                reply(
                    "error busy: more than \(Int(Self.commandBurst)) commands at once (then \(Format.fixed(Self.commandsPerSecond, 0)) a second) on MQTT; this one and those that follow it too fast are not run.")
            }
            return
        }
        if refused > 0 {
            logger.warning("mqtt commands refused", metadata: ["count": "\(refused)", "reason": "rate limit"])
            refused = 0
        }
        logger.info("mqtt command", metadata: ["topic": "\(message.topic)", "bytes": "\(bytes.count)"])
        execute(bytes) { [weak self] text in self?.reply(text) }
    }

    private func reply(_ text: String) {
        var t = text
        if t.hasSuffix("\n") { t.removeLast() }
        publish("reply", t, retained: false)
    }

    /// Replies owed from before this room connected (a `reload` that replaced the room answers
    /// through the new one).
    private var owedReplies: [String] = []

    /// Publishes a reply now, or once connected.
    func replyWhenConnected(_ text: String) {
        guard client.state == .connected else { return owedReplies.append(text) }
        reply(text)
    }
}
