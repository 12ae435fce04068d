import ALSAOutput
import ArgumentParser
import Daemon
import Foundation
import Playback
import SoundPack
import TalkingClockCore

struct Say: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Speak the current time (or --at HH:MM) once.",
        discussion: """
            Words, chime, pack and device come from the config file (see 'talking-clock config-example'); \
            the options override it. The chime plays first (Westminster at :15/:30/:45/:00, the hour bell \
            at :00). Exit 0 when it spoke; see 'talking-clock --help' for the other codes.
            """
    )

    @OptionGroup var clock: ClockOptions

    @Option(help: "Config file (default: $XDG_CONFIG_HOME/talking-clock/config.toml, if it exists).")
    var config: String?

    @Option(help: "Speak this time of day instead of now (24-hour HH:MM).")
    var at: String?

    @Option(help: "Write the exact samples that would be played to this WAV file instead of playing.")
    var output: String?

    @Flag(help: "Print the phrase and its clips; play nothing.")
    var dryRun = false

    @Option(help: "Shift the wall clock by this many seconds.")
    var clockOffset: Double = 0

    @Flag(help: "Speak here even if a daemon is running (by default a plain 'say' asks the daemon).")
    var local = false

    func run() throws {
        // A plain `say` goes through a running daemon (its device, pack and volume); anything
        // more specific, or no daemon, speaks here.
        if !local, at == nil, output == nil, !dryRun, clockOffset == 0, clock.zone == nil, clock.pack == nil, clock.device == nil,
            clock.chime == nil, clock.phrasing == nil, config == nil, ControlClient.isListening(ControlPaths.socket())
        {
            print(try Control.send("say", socket: ControlPaths.socket()))
            return
        }
        let settings = try Support.config(path: config, options: clock)
        let zone = try settings.zone ?? Support.zone(nil)
        let (hour, minute): (Int, Int)
        if let at {
            do { (hour, minute) = try InstantParser.parseClockTime(at) } catch {
                throw CLIError(.badInput, "--at: \(error.description)")
            }
        } else {
            let local = CivilTime.local(Int((WallClock.now() + clockOffset).rounded(.down)), in: zone)
            (hour, minute) = (local.hour, local.minute)
        }
        let pack = try Support.pack(settings.pack, scan: false)
        // Opening the device (ALSA config, sound-server connection) is the slowest step and does not
        // depend on the words: do it on a second thread while this one plans, decodes and mixes, so
        // the first sample goes out as soon as possible.
        let opening = output == nil && !dryRun ? DeviceOpener(device: settings.device, format: pack.format) : nil
        let style = settings.announcementStyle
        let plan = try Support.plan(hour: hour, minute: minute, style: style, pack: pack)
        if dryRun {
            print(plan.phrase.text)
            print("clips: " + plan.clips.joined(separator: " "))
            if let chime = Support.chimeSummary(plan, style: style.chime) { print(chime) }
            return
        }
        let timeline = try Support.timeline(plan, pack: pack)
        let pcm = Mixer.render(timeline, gain: Float(settings.volume) / 100) { (try? pack.audio($0).samples) ?? [] }
        if let output {
            do {
                try WAV.encode(pcm, format: timeline.format).write(to: URL(fileURLWithPath: output))
            } catch {
                throw CLIError(.cannotWrite, "Could not write \(output): \(error.localizedDescription). Check that the directory exists and is writable.")
            }
            return
        }
        let sink: ALSASink
        switch opening!.wait() {
        case .success(let opened): sink = opened
        case .failure(let error): throw CLIError(.deviceError, error.description)
        }
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, clock: WallClock.now)
        PlaybackRunner.run(session, sink: sink)
        sink.close()
        if let failure = session.failure {
            throw CLIError(.deviceError, failure.description)
        }
    }
}

/// Opens an ALSA device on its own thread; `wait()` joins it.
final class DeviceOpener: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<ALSASink, SinkError>?

    init(device: String, format: StreamFormat) {
        let thread = Thread { [self] in
            let opened: Result<ALSASink, SinkError>
            do throws(SinkError) { opened = .success(try ALSASink(device: device, format: format)) } catch { opened = .failure(error) }
            condition.lock()
            result = opened
            condition.signal()
            condition.unlock()
        }
        thread.start()
    }

    func wait() -> Result<ALSASink, SinkError> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}
