import ArgumentParser
import ConfigFiles
import FoundationEssentials
import Outputs
import TalkingClockCore

/// `talking-clock outputs`: what this machine can play to and what each output would do.
struct ListOutputs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outputs",
        abstract: "List what the clock can play to here, and what each output would do.",
        discussion: """
            First the configured device (the config's 'device', or --device), opened as the daemon opens it: \
            a Snapcast server is asked about its stream and clients. Then every ALSA device (as 'aplay -L' lists \
            them) and every sink of the sound server (PulseAudio or PipeWire, network sinks included: play to one \
            with --device pulse:NAME). See docs/outputs.md.
            """
    )

    @Option(help: "Config file (default: $XDG_CONFIG_HOME/talking-clock/config.toml, if it exists).")
    var config: String?

    @Option(help: "Describe this device instead of the configured one: ALSA, pulse:SINK or snapcast://HOST:PORT.")
    var device: String?

    func run() throws {
        let settings: Config
        do { settings = try ConfigFile.loadConfig(path: config, overrides: ConfigOverrides(device: device)) } catch {
            throw CLIError(error.status, error.description)
        }
        let entries = OutputCatalog.list(configured: settings.device)
        for (title, kinds) in [
            ("configured device", [OutputCatalog.Entry.Kind.configured, .snapcast]), ("ALSA devices", [.alsa]),
            ("sound-server sinks", [.sink]),
        ] {
            let shown = entries.filter { kinds.contains($0.kind) }
            guard !shown.isEmpty else {
                if title == "sound-server sinks" { print("\(title): none (no PulseAudio or PipeWire server answers)") }
                continue
            }
            print("\(title):")
            for entry in shown {
                print("  \(entry.device)" + (entry.description.isEmpty ? "" : "  (\(entry.description))"))
                print("      \(entry.behaviour)")
            }
        }
    }
}
