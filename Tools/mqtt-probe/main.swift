// mqtt-probe: one MQTT connection on the daemon's EventLoop, for tests and measurements.
//   mqtt-probe --port P --id ID [--host H] [--keepalive S] [--will TOPIC] [--online TOPIC]
//              [--user U --password-file F] [--ca-file F] [--seconds S]
// Publishes "online" (retained) to --online on every connect and registers --will with "offline"
// (retained) as Last Will. Prints one line per state change ("state connected", ...) and flushes.
// With --seconds, runs that long after the first connect, then prints "wakeups N" (event-loop
// wake-ups for MQTT since that connect) and exits.
import ConfigFiles
import EventLoop
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import MQTT

func value(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

guard let port = value("--port").flatMap(Int.init), let id = value("--id") else {
    say("usage: mqtt-probe --port P --id ID [--keepalive S] [--will T] [--online T] [--seconds S]")
    exit(64)
}
var options = MQTTOptions(
    host: value("--host") ?? "127.0.0.1", port: port, clientID: id,
    keepalive: value("--keepalive").flatMap(Int.init) ?? 300)
options.caFile = value("--ca-file")
options.username = value("--user")
if let f = value("--password-file"), let text = try? String(contentsOfFile: f, encoding: .utf8) {
    options.password = String(text.prefix { $0 != "\n" })
}
if let will = value("--will") { options.will = MQTTMessage(topic: will, text: "offline", qos: 1, retained: true) }
let online = value("--online")

do {
    let loop = try EventLoop()
    let client = try MQTTClient(options)
    let source = try MQTTEventSource(client: client, loop: loop)
    let seconds = value("--seconds").flatMap(Double.init)
    var atConnect = 0
    let stopTimer = try TimerFD(realtime: false)
    try loop.watch(stopTimer.fd, events: .readable) { _ in
        _ = stopTimer.read()
        say("wakeups \(source.wakeups - atConnect)")
        loop.stop()
    }
    var armed = false
    client.onState = { state in
        switch state {
        case .waiting(let error, let retryIn): say("state waiting \(retryIn) \(error)")
        default: say("state \(state)")
        }
    }
    client.onConnect = {
        if let online { try? client.publish(MQTTMessage(topic: online, text: "online", qos: 1, retained: true)) }
        if let seconds, !armed {
            armed = true
            atConnect = source.wakeups
            stopTimer.arm(after: seconds)
        }
    }
    client.start()
    loop.run()
    client.stop()
} catch {
    say("error \(error)")
    exit(1)
}
