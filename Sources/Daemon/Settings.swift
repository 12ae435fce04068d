import Outputs
import EventLoop
import ClockEngine
import ConfigFiles
import FoundationEssentials
import Glibc
import Playback
import SoundPack
import Synthesis
import TalkingClockCore

/// A config and its decoded pack, loaded together (at start, and off the loop by a reload).
struct LoadedSettings {
    var config: Config
    var pack: SoundPack
    /// The `[mqtt]` table resolved (its password file read), if there is one.
    var mqtt: MQTTSettings?
    /// Whether a config file was read (else the defaults and the command line made the config).
    var readConfigFile = false
    /// The device could not be opened when the settings were loaded.
    var deviceWarning: String?
    /// The device opened by a reload's check, for the device thread to hold: the next
    /// announcement then opens nothing.
    var openedDevice: Unchecked<any PreparedOutput>?
    /// The reminders' rendered texts and recordings, in the pack's format.
    var reminders = ReminderAudio()

    /// What the engine knows of them.
    var engineSettings: EngineSettings {
        var facts = PackFacts(pack)
        facts.texts = reminders.texts
        facts.recordings = reminders.recordings
        for (id, audio) in reminders.audio { facts.clipFrames[id] = audio.frames }
        return EngineSettings(config: config, pack: facts, warning: deviceWarning, outputLead: OutputRegistry.leadTime(config.device))
    }
}

extension PackFacts {
    /// The engine's view of a decoded pack, as data: its name, layout, every clip's length and
    /// what each chime style rings (or why it cannot).
    init(_ pack: SoundPack) {
        var frames: [String: Int] = [:]
        for id in pack.clipIds { frames[id] = (try? pack.frames(id)) ?? 0 }
        var chimes: [ChimeStyle: PackFacts.Chime] = [:]
        for style in ChimeStyle.allCases {
            do throws(PackError) { chimes[style] = .rings(try pack.chimePattern(for: style)) } catch {
                chimes[style] = .cannot(error.description)
            }
        }
        self.init(name: pack.name, location: pack.directory.path, layout: pack.layout, clipFrames: frames, chimes: chimes)
    }
}

extension ClockDaemon {
    /// Loads everything a start or a reload needs that may take long (files, the pack's decoding,
    /// the MQTT password file): on a reload this runs off the loop. The device is checked apart,
    /// with a bound (it may belong to a sound server that does not answer).
    static func loadSettings(_ options: DaemonOptions, hadConfigFile: Bool = false) throws(DaemonStartError) -> LoadedSettings {
        let path = options.configPath ?? ConfigFile.defaultConfigPath()
        let present = path.map { p -> Bool in
            var st = stat()
            return lstat(p, &st) == 0
        } ?? false
        if hadConfigFile, !present, let path {
            // A reload must not quietly fall back to the defaults (losing quiet hours, the zone,
            // the volume) because the file was deleted or is being replaced.
            throw DaemonStartError(
                status: .badInput,
                description:
                    "The config file \(path) is gone (it was read before); the running configuration stays. Put it back, or create an empty file to go back to the defaults, then reload.")
        }
        let config = try loadConfig(options)
        let pack = try loadPack(for: config)
        var mqtt: MQTTSettings?
        if let table = config.mqtt, !options.oneShot {
            // Home Assistant's chime select offers what this pack can ring.
            let chimes = ChimeStyle.allCases.filter { style in
                do throws(PackError) { _ = try pack.chimePattern(for: style) } catch { return false }
                return true
            }.map(\.rawValue)
            mqtt = try MQTTSettings.resolve(
                table, configPath: options.configPath ?? ConfigFile.defaultConfigPath(), version: options.version, chimes: chimes,
                reminders: !config.reminders.isEmpty || !config.away.isEmpty,
                speak: config.voiceOutput == .speechDispatcher || SynthesisVoice.of(pack: pack) != nil)
            mqtt?.valueTopic = config.value?.topic
        }
        var loaded = LoadedSettings(config: config, pack: pack, mqtt: mqtt)
        loaded.readConfigFile = present
        // Reminder texts are rendered now, off the loop on a reload (from the cache when they were
        // rendered before): never at their instant.
        do {
            loaded.reminders = try ReminderAudio.prepare(
                config: config, pack: pack, configDirectory: path.map { Format.parentDirectory(of: $0) } ?? ".",
                cache: UserPaths.cacheDirectory(), clipID: PackFacts.clipID(forText:))
        } catch {
            throw DaemonStartError(status: .packError, description: error.description)
        }
        return loaded
    }

    static func deviceWarning(_ device: String, _ failure: SinkError) -> String {
        "the sound device \"\(device)\" cannot be opened now (\(failure.description)); announcements will fail until it can. Fix 'device' in the config or --device ('aplay -L' lists the devices), then reload."
    }

    static func loadConfig(_ options: DaemonOptions) throws(DaemonStartError) -> Config {
        let config = try ConfigFile.loadConfig(path: options.configPath, overrides: options.overrides)
        // A TZ that cannot be read is refused at start, not read as UTC at every boundary.
        if config.zone == nil {
            do { _ = try ZoneResolver.resolve(explicit: nil) } catch {
                throw DaemonStartError(status: .badInput, description: error.description)
            }
        }
        return config
    }

    /// Loads and decodes the config's pack, and makes sure it can ring the config's chime.
    static func loadPack(for config: Config) throws(DaemonStartError) -> SoundPack {
        let url: URL
        switch PackLocator.locate(config.pack) {
        case .success(let found): url = found
        case .failure(let error):
            throw DaemonStartError(
                status: .packError,
                description: error.description + (config.packOrigin.map { " (The pack is set by 'pack' in \($0).)" } ?? ""))
        }
        do {
            let pack = try SoundPack(directory: url, scan: true)
            try pack.requireLanguage(config.language)
            // Decode everything now: nothing is decoded on the boundary, and a damaged clip is
            // found at start or reload, not when it should be heard. The words of dates and values
            // the config never says are checked and dropped (94 clips, 2.6 MB of the default pack).
            let onDemand = config.wordsSaidOnlyOnDemand
            try pack.preload(keeping: { !onDemand.contains($0) })
            _ = try pack.chimePattern(for: config.chime)
            return pack
        } catch {
            throw DaemonStartError(status: .packError, description: error.description)
        }
    }
}

