// courtesy-probe: the courtesy edges one at a time, for tests and scripts/bench-courtesy.
//   courtesy-probe duck --percent P --state FILE [--hold]   duck every other playing stream; prints
//                                                          "ducked N"; --hold: then wait to be killed
//   courtesy-probe repair --state FILE                     restore a record left behind; "restored N"
//   courtesy-probe look [--budget S] [--repeat N]          N looks (default 1): the last findings as
//                                                          JSON, then "ms median M max X" over the N
//                  [--idle S]                            then S seconds idle: "idle wakeups N" (context
//                                                          switches of every thread of the process)
//   courtesy-probe say TEXT                                TEXT to speech-dispatcher at priority message
import Courtesy
import Foundation
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
    FileHandle.standardError.write(Data(("courtesy-probe: " + message + "\n").utf8))
    exit(code)
}

/// Voluntary and involuntary context switches of every thread of this process.
func contextSwitches() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.reduce(0) { total, task in
        let status = (try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)) ?? ""
        return total + status.split(separator: "\n").filter { $0.contains("ctxt_switches") }.reduce(0) {
            $0 + (Int($1.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) ?? 0)
        }
    }
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
        say(String(format: "ms median %.3f max %.3f first %.3f", median, sorted.last!, times[0]))
        if let idle = value("--idle").flatMap(Double.init) {
            let before = contextSwitches()
            var pause = timespec(tv_sec: Int(idle), tv_nsec: Int((idle - idle.rounded(.down)) * 1e9))
            var left = timespec()
            while nanosleep(&pause, &left) != 0 { pause = left }
            // The main thread's own sleep and wake-up is one switch; anything more is a wake-up.
            say("idle wakeups \(contextSwitches() - before - 1) threads \(threadCount())")
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
