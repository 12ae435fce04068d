import EventLoop
import ConfigFiles
import Glibc
import MQTT
import TalkingClockCore

/// What `say --everywhere` (and the other `--everywhere` commands) got back.
public struct RemoteOutcome: Sendable {
    /// Each reply that came, in arrival order: the room and its reply line (`ok …` / `error …`).
    public var answers: [(room: String, reply: String)]
    /// The rooms whose retained availability said `online` when the command was sent.
    public var online: [String]
    /// Online rooms that did not answer within the wait.
    public var silent: [String] { online.filter { room in !answers.contains { $0.room == room } } }
    /// Reply messages that were not taken as an answer, by room: a second one from a room that
    /// had answered, or one from a room that was not online (no retained `online` availability)
    /// when the command was sent. Anyone who may publish on the broker can write to a room's
    /// `reply` topic; only the first reply of each online room is its answer.
    public var ignored: [(room: String, count: Int)] = []
}

/// The CLI's side of the broker: one short connection, driven by its own `EventLoop` on the
/// calling thread (the same libmosquitto external-loop client as the daemon's), that sends one
/// control line to `<topic>/all/command` and collects `<topic>/<room>/reply`, or reads the
/// retained `availability` and `state` of every room.
///
/// Which rooms are online is known from their retained `availability`: to know that all
/// retained messages have arrived, the client subscribes, then publishes a marker on a topic of
/// its own (`<topic>/all/cli/<client id>`) and subscribes to that too; the broker delivers in
/// order, so when the marker comes back everything retained before it has come.
public final class MQTTRemote {
    public let config: MQTTConfig
    public var brokerName: String { options.brokerName }
    private let options: MQTTOptions

    /// Reads the password file like the daemon (refused if others can read it).
    public init(config: MQTTConfig, configPath: String?) throws(DaemonStartError) {
        self.config = config
        let password = try MQTTPasswordFile.read(config, configPath: configPath)
        var options = MQTTOptions(
            host: config.host, port: config.port, clientID: "talking-clock-cli-\(getpid())-\(Int(WallClock.now() * 1000) % 1_000_000)",
            keepalive: 60, username: config.username, password: password,
            caFile: config.tls ? (config.caFile ?? "/etc/ssl/certs/ca-certificates.crt") : nil)
        options.connectTimeout = 5
        self.options = options
    }

    private var topic: String { config.topic }

    /// Sends `line` to every room and waits up to `wait` seconds for the replies, returning as soon
    /// as every room that is online has answered.
    public func send(_ line: String, wait: Double) throws(DaemonStartError) -> RemoteOutcome {
        var outcome = RemoteOutcome(answers: [], online: [])
        var sent = false
        try session(deadlineAfterSync: wait) { [topic] client, event in
            switch event {
            case .synced(let online):
                outcome.online = online.sorted()
                try? client.publish(MQTTMessage(topic: "\(topic)/\(MQTTConfig.allRooms)/command", text: line, qos: 1))
                sent = true
                return online.isEmpty  // nobody to wait for
            case .message(let m):
                guard sent, !m.retained, let room = Self.room(of: m.topic, leaf: "reply", topic: topic) else { return false }
                guard outcome.online.contains(room), !outcome.answers.contains(where: { $0.room == room }) else {
                    if let i = outcome.ignored.firstIndex(where: { $0.room == room }) {
                        outcome.ignored[i].count += 1
                    } else {
                        outcome.ignored.append((room, 1))
                    }
                    return false
                }
                outcome.answers.append((room, m.text))
                return !outcome.online.isEmpty && outcome.silent.isEmpty
            }
        }
        return outcome
    }

    /// Every room with a retained `availability` (online or not) and its retained state. A
    /// retained `state` with no availability beside it (left by a room since renamed, or
    /// published by another client) is not a room.
    public func rooms() throws(DaemonStartError) -> [RoomReport] {
        var reports: [String: RoomReport] = [:]
        var available: Set<String> = []
        try session(deadlineAfterSync: 0) { [topic] _, event in
            switch event {
            case .synced: return true
            case .message(let m):
                if let room = Self.room(of: m.topic, leaf: "state", topic: topic), !m.payload.isEmpty {
                    reports[room, default: RoomReport(room: room, online: false, state: nil)].state = StatusReport.decode(m.text)
                }
                return false
            }
        } availability: { room, online in
            available.insert(room)
            reports[room, default: RoomReport(room: room, online: online, state: nil)].online = online
        }
        return reports.values.filter { available.contains($0.room) }.sorted { $0.room < $1.room }
    }

    enum Event {
        /// Every retained message has arrived: the rooms online.
        case synced(online: Set<String>)
        case message(MQTTMessage)
    }

    /// Connects, subscribes to availability and replies (and states), syncs, then hands events to
    /// `handle` until it returns true or the deadline (`deadlineAfterSync` seconds after the sync).
    private func session(
        deadlineAfterSync: Double, _ handle: @escaping (MQTTClient, Event) -> Bool,
        availability: @escaping (String, Bool) -> Void = { _, _ in }
    ) throws(DaemonStartError) {
        let loop: EventLoop
        let deadline: TimerFD
        let client: MQTTClient
        let source: MQTTEventSource
        do {
            loop = try EventLoop()
            deadline = try TimerFD(realtime: false)
            client = try MQTTClient(options)
            source = try MQTTEventSource(client: client, loop: loop)
        } catch let error as MQTTError {
            throw DaemonStartError(status: .badInput, description: error.clientDescription)
        } catch {
            throw DaemonStartError(status: .internalError, description: "\(error)")
        }
        _ = source
        let marker = "\(topic)/\(MQTTConfig.allRooms)/cli/\(options.clientID)"
        var failure: DaemonStartError?
        var online: Set<String> = []
        var synced = false
        var finished = false
        func finish() {
            finished = true
            loop.stop()
        }
        client.onState = { state in
            if case .waiting(let error, _) = state, !synced {
                failure = DaemonStartError(status: .noDaemon, description: error.clientDescription)
                finish()
            }
        }
        client.onConnect = { [topic] in
            do {
                try client.subscribe("\(topic)/+/availability", qos: 1)
                try client.subscribe("\(topic)/+/reply", qos: 1)
                try client.subscribe("\(topic)/+/state", qos: 1)
                try client.subscribe(marker, qos: 1)
                try client.publish(MQTTMessage(topic: marker, text: "sync", qos: 1))
            } catch {
                failure = DaemonStartError(status: .internalError, description: "\(error)")
                finish()
            }
        }
        client.onMessage = { [topic] m in
            guard !finished else { return }
            if m.topic == marker {
                guard !synced else { return }
                synced = true
                if handle(client, .synced(online: online)) { return finish() }
                deadline.arm(after: max(0.001, deadlineAfterSync))
                return
            }
            if let room = Self.room(of: m.topic, leaf: "availability", topic: topic) {
                if m.text == "online" { online.insert(room) } else { online.remove(room) }
                availability(room, m.text == "online")
                return
            }
            if handle(client, .message(m)) { finish() }
        }
        try? loop.watch(deadline.fd, events: .readable) { _ in
            _ = deadline.read()
            finish()
        }
        // Connecting and syncing get their own limit: the broker answers in milliseconds.
        deadline.arm(after: options.connectTimeout + 1)
        client.start()
        if !finished { loop.run() }
        // The command may still be queued (published from inside a callback): write it, then DISCONNECT.
        client.handle(readable: false, writable: true)
        client.stop()
        if let failure { throw failure }
        guard synced else {
            throw DaemonStartError(
                status: .noDaemon,
                description:
                    "The MQTT broker \(options.brokerName) did not answer within \(Int(options.connectTimeout + 1)) s; check that it runs and that [mqtt] broker is right.")
        }
    }

    /// `kitchen` from `<topic>/kitchen/<leaf>`; nil for other topics and for `all`.
    static func room(of path: String, leaf: String, topic: String) -> String? {
        let prefix = topic + "/"
        let suffix = "/" + leaf
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.count > prefix.count + suffix.count else { return nil }
        let room = String(path.dropFirst(prefix.count).dropLast(suffix.count))
        guard MQTTConfig.isValidRoom(room) else { return nil }
        return room
    }
}
