import ALSAOutput
import ArgumentParser
import Daemon
import Foundation
import SoundPack
import TalkingClockCore

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a sound pack (every clip decodes, all 1,440 minutes can be said) and optionally a device.",
        discussion: """
            Prints every problem as a sentence; exits 65 if the pack is broken, 69 if the device cannot be opened. \
            Also warns (exit 0) about voice clips whose loudness is more than 1.5 dB from the pack's median and \
            about clips with clipped samples.
            """
    )

    @Option(help: "Sound pack: a name or a directory containing pack.json.")
    var pack: String?

    @Option(help: "Also check that this ALSA device opens.")
    var device: String?

    @Option(help: "Prove every minute can be said in this phrasing: 12h or 24h.")
    var phrasing: String = Phrasing.twelveHour.rawValue

    func run() throws {
        guard let style = Phrasing(rawValue: phrasing) else {
            throw CLIError(.badInput, "--phrasing: \"\(phrasing)\" is not a phrasing; use 12h or 24h.")
        }
        try Check.perform(pack: pack, device: device, styles: [PhraseStyle(phrasing: style)])
    }

    /// Loads and checks a pack, printing one line per finding: `problem:` (the pack is broken:
    /// exit 65), `warning:` (loudness or clipping: still exit 0), then `ok:`.
    static func perform(pack name: String?, device: String?, styles: [PhraseStyle]) throws {
        let loaded: SoundPack
        do { loaded = try Support.pack(name, scan: true, keepingBrokenClips: true) } catch let error as CLIError {
            print("problem: \(error.description)")
            throw CLIError(error.status, "the pack cannot be loaded.")
        }
        let pack = loaded
        let report = pack.check(styles: styles)
        for problem in report.problems { print("problem: \(problem.description)") }
        for warning in pack.loudnessReport().warnings { print("warning: \(warning.description)") }
        var deviceProblem: String?
        if let device {
            do { try ALSASink.probe(device: device, format: pack.format) } catch {
                deviceProblem = error.description
                print("problem: \(error.description)")
            }
        }
        if !report.isValid {
            throw CLIError(.packError, "sound pack '\(pack.name)' has \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s").")
        }
        print("ok: sound pack '\(pack.name)' (\(pack.directory.path)): \(report.clipCount) clips decode (\(pack.format)); all \(report.minutesChecked) minutes can be said.")
        var rings: [String] = []
        var cannot: [String] = []
        for style in ChimeStyle.allCases where style != .none {
            do throws(PackError) {
                _ = try pack.chimePattern(for: style)
                rings.append(style.rawValue)
            } catch {
                if pack.manifest.chimes.patterns[style.rawValue] != nil {
                    print("problem: \(error.description)")  // a pattern spelled out in pack.json is broken
                    throw CLIError(.packError, "sound pack '\(pack.name)': its \(style.rawValue) pattern rings a missing bell.")
                }
                cannot.append(style.rawValue)
            }
        }
        print("ok: chimes it can ring: \(rings.isEmpty ? "none" : rings.joined(separator: ", "))" + (cannot.isEmpty ? "." : "; not \(cannot.joined(separator: ", ")) (no bells for it in pack.json)."))
        if let deviceProblem {
            throw CLIError(.deviceError, deviceProblem)
        }
        if let device { print("ok: ALSA device \"\(device)\" opens for \(pack.format).") }
    }
}
