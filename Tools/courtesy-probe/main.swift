// courtesy-probe: the courtesy edges one at a time, for tests and scripts/bench-courtesy.
//   courtesy-probe duck --percent P --state FILE [--hold]   duck every other playing stream; prints
//                                                          "ducked N"; --hold: then wait to be killed
//   courtesy-probe repair --state FILE                     restore a record left behind; "restored N"
//   courtesy-probe look [--budget S] [--repeat N]          N looks (default 1): the last findings as
//                                                          JSON, then "ms median M max X" over the N
//                  [--idle S]                            then S seconds idle: "idle wakeups N" (context
//                                                          voluntary switches of every thread of the process)
//   courtesy-probe say TEXT                                TEXT to speech-dispatcher at priority message
import JSON
import Courtesy
import FoundationEssentials
import Glibc
import SoundServer
import SpeechDispatcher
import TalkingClockCore

func value(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String, _ code: Int32 = 1) -> Never {
    let bytes = Array(("courtesy-probe: " + message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

/// Voluntary and involuntary context switches of each thread of this process, by thread id.
func contextSwitches() -> [String: Int] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    var counts: [String: Int] = [:]
    for task in tasks {
        let status = (try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)) ?? ""
        var total = 0
        // Voluntary switches only: a wake-up sleeps again by choice; an involuntary switch is a
        // running thread preempted (the main thread at its own wake-up, on a busy machine).
        for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches") {
            let number = line.split(separator: ":").last.map { $0.filter { $0 != " " && $0 != "\t" } } ?? ""
            total += Int(number) ?? 0
        }
        counts[task] = total
    }
    return counts
}

/// Switches between two readings: threads that exited count what they had done; new threads all.
func switches(from before: [String: Int], to after: [String: Int]) -> Int {
    after.reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
}

func threadCount() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count }

let command = CommandLine.arguments.dropFirst().first ?? ""
do {
    switch command {
    case "duck":
        guard let percent = value("--percent").flatMap(Int.init), let state = value("--state") else {
            fail("usage: courtesy-probe duck --percent P --state FILE [--hold]", 64)
        }
        let record = try Ducker(stateFile: URL(fileURLWithPath: state), timeout: 2).duck(streams: nil, percent: percent)
        say("ducked \(record.entries.count)")
        if CommandLine.arguments.contains("--hold") {
            while true { pause() }
        }
    case "repair":
        guard let state = value("--state") else { fail("usage: courtesy-probe repair --state FILE", 64) }
        say("restored \(try Ducker.repair(stateFile: URL(fileURLWithPath: state), timeout: 2))")
    case "look":
        let budget = value("--budget").flatMap(Double.init) ?? 0.2
        let count = max(1, value("--repeat").flatMap(Int.init) ?? 1)
        var times: [Double] = []
        var findings = CourtesyFindings.nothing
        for _ in 0..<count {
            var start = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            findings = CourtesyLook.look(budget: budget)
            var end = timespec()
            clock_gettime(CLOCK_MONOTONIC, &end)
            times.append(Double(end.tv_sec - start.tv_sec) * 1000 + Double(end.tv_nsec - start.tv_nsec) / 1e6)
        }
        say(ReportJSON.encode(findings))
        let sorted = times.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        func ms(_ value: Double) -> String {
            let thousandths = Int((value * 1000).rounded())
            let fraction = String(thousandths % 1000)
            return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        }
        say("ms median \(ms(median)) max \(ms(sorted.last!)) first \(ms(times[0]))")
        if let idle = value("--idle").flatMap(Double.init) {
            let before = contextSwitches()
            var pause = timespec(tv_sec: Int(idle), tv_nsec: Int((idle - idle.rounded(.down)) * 1e9))
            var left = timespec()
            while nanosleep(&pause, &left) != 0 { pause = left }
            // The main thread's own sleep and wake-up is one switch; anything more is a wake-up.
            let after = contextSwitches()
            let exited = before.keys.filter { after[$0] == nil }.count
            let names = after.keys.sorted().dropFirst().map {
                ((try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) ?? "?").filter { $0 != "\n" }
            }
            say("idle wakeups \(switches(from: before, to: after) - 1) threads \(after.count) exited \(exited) others [\(names.sorted().joined(separator: ","))]")
        }
    case "say":
        guard CommandLine.arguments.count > 2 else { fail("usage: courtesy-probe say TEXT", 64) }
        say("id \(try SpeechDispatcher().say(CommandLine.arguments[2]))")
    default:
        fail("unknown command '\(command)'; use duck, repair, look or say", 64)
    }
} catch {
    fail("\(error)")
}
