// swift-tools-version:6.0
import PackageDescription

// One target per responsibility; arrows point inward (see docs/architecture.md).

// Release builds of the daemon's code are optimised for size (BENCHMARKS.md "Footprint"): -Osize
// made the stripped binary 0.3 MB smaller. CPU (perf stat -r 10, against the -O build): a year of
// `schedule` 122 vs 135 ms, a Westminster `say --output` 116 vs 113 ms (within the noise), the
// same bytes out. Each function in its own section (-function-sections), so the linker's
// --gc-sections drops the functions nothing calls: the stripped binary 16,625,104 -> 16,100,816
// bytes (2026-12-02, BENCHMARKS.md "This round's targets"). It applies to the clock's own modules
// only (a package cannot set a dependency's flags).
let size: [SwiftSetting] = [.unsafeFlags(["-Osize", "-Xfrontend", "-function-sections"], .when(configuration: .release))]
// The pure modules the tests run hardest (time, phrases, packs, mixing, the engine) are optimised in
// debug builds too. Measured on clean clones of 65009a8 (2 cores): the clean `swift build
// --build-tests` takes 145 s instead of 94, and eleven test classes that render, simulate and
// check (simulated years, grammar properties, loudness, every language spoken, the listening
// proxy, pocketsphinx…) 96 s instead of 184: 36 s less in all (docs/testing.md). No code in
// Sources relies on assert(), so nothing checked is lost; preconditions stay.
let audio: [SwiftSetting] = size + [.unsafeFlags(["-O"], .when(configuration: .debug))]
let fast: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]
// The executable links with lld (from the Swift toolchain): packed relative relocations (RELR: the
// relocation table shrinks from 1 MB to 8 kB, and so does the loader's work at start) and no
// dynamic export of every public symbol (the Swift static-stdlib link asks for -export-dynamic,
// which also keeps unused public code alive). No DWARF in the release binary; symbols stay.
// Identical code folding (--icf=all) merges functions with the same machine code: 0.24 MiB less
// stripped (15.19 -> 14.95 MiB, 2026-11-26). Nothing in the clock compares function addresses (no
// Dispatch, no key paths as keys); the release binary is exercised by DebianPackageTests in a clean
// root and by scripts/bench. -O2 lets lld merge identical string tails (4 kB).
let lean: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
         "-Xlinker", "--strip-debug", "-Xlinker", "-O2", "-Xlinker", "--icf=all"],
        .when(configuration: .release))
]

let package = Package(
    name: "talking-clock",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "talking-clock", targets: ["talking-clock"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C shims: exactly one Swift target imports each.
        .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // libsndfile is loaded on first use (dlopen), not linked: see Sources/CSndfile/include/CSndfile.h.
        // Its header comes from libsndfile1-dev.
        .target(name: "CSndfile"),
        .systemLibrary(name: "CLinux"),
        // libmosquitto likewise (it brings libssl and libcrypto): loaded only when [mqtt] is configured,
        // see Sources/CMosquitto/include/CMosquitto.h. Its header comes from libmosquitto-dev.
        .target(name: "CMosquitto"),
        // libpulse, likewise loaded on first use (no sound server, no load): the courtesy look and
        // the ducker. Its header comes from libpulse-dev. See Sources/CPulse/include/CPulse.h.
        .target(name: "CPulse"),
        // GIO (GDBus + GSettings) and libspeechd, likewise loaded on first use; see their headers.
        .target(name: "CGio"),
        .target(name: "CSpeechd"),

        // General-purpose, no clock in them: a TOML 1.0 parser with line and column in every error,
        // and JSON (a checking parser for files people edit, and the one encoding of reports).
        .target(name: "TOML", swiftSettings: audio),
        .target(name: "JSON", swiftSettings: audio),
        // Pure: time, phrases, schedule, timelines, config and protocol parsing. Foundation only;
        // the words of a time come from PhraseGrammar (data, no I/O), calendar arithmetic from
        // TimeZoneRules.
        .target(name: "TalkingClockCore", dependencies: ["PhraseGrammar", "TimeZoneRules", "TOML", "JSON"], swiftSettings: audio),
        // General time-zone code, not the clock's rules: POSIX TZ strings and their rules, TZif files,
        // ZoneRules. Pure Swift, no Foundation.
        .target(name: "TimeZoneRules", swiftSettings: audio),
        // Phrase grammars as data: (hour, minute, language, phrasing) -> words. Foundation only, no I/O;
        // the language files are embedded by scripts/embed-grammars (see Languages/README.md).
        .target(name: "PhraseGrammar", dependencies: ["JSON"], exclude: ["Languages"], swiftSettings: audio),
        // Pack manifest + decoding (the only importer of CSndfile).
        .target(name: "SoundPack", dependencies: ["TalkingClockCore", "JSON", "CSndfile"], swiftSettings: audio),
        // Reminder texts rendered by a pack's own synthesis engine (festival, espeak-ng, Piper run as
        // programs), off the loop, cached by content.
        .target(name: "Synthesis", dependencies: ["SoundPack", "TalkingClockCore"], swiftSettings: size),
        // The daemon's decisions as one pure value (sans-I/O): events in, effects out, `now` passed
        // in. No Glibc, no fds; the daemon is its shell, the simulated year drives it directly.
        .target(name: "ClockEngine", dependencies: ["TalkingClockCore"], swiftSettings: audio),
        // Sequencer/mixer, the AudioSink and OutputDriver protocols, per-clip completion.
        .target(name: "Playback", dependencies: ["TalkingClockCore"], swiftSettings: audio),
        // AudioSink over ALSA (the only importer of CAlsa).
        .target(name: "ALSAOutput", dependencies: ["Playback", "CAlsa"], swiftSettings: size),
        // An AudioSink that feeds a snapserver TCP source, timed so every snapclient hears the boundary.
        .target(name: "SnapcastOutput", dependencies: ["Playback", "TalkingClockCore", "JSON", "EventLoop"], swiftSettings: size),
        // The output registry: every kind of output, opened the same way by every caller.
        .target(name: "Outputs", dependencies: ["Playback", "ALSAOutput", "SnapcastOutput", "SoundServer"], swiftSettings: size),
        // The Linux I/O primitives: the epoll loop, timerfd, signalfd, inotify, eventfd mailboxes,
        // background jobs, the one thread spawn, socket addresses (the only importer of CLinux).
        .target(name: "EventLoop", dependencies: ["CLinux"], swiftSettings: size),
        // An MQTT client over libmosquitto in external-loop mode (the only importer of CMosquitto),
        // and its source on the event loop.
        .target(name: "MQTT", dependencies: ["CMosquitto", "EventLoop"], swiftSettings: size),
        // The sound server's streams and volumes: calls, ducking (the only importer of CPulse).
        .target(name: "SoundServer", dependencies: ["CPulse"], swiftSettings: size),
        // The session bus: MPRIS players, do-not-disturb (the only importer of CGio).
        .target(name: "DesktopBus", dependencies: ["CGio"], swiftSettings: size),
        // voice-output = "speech-dispatcher" (the only importer of CSpeechd).
        .target(name: "SpeechDispatcher", dependencies: ["CSpeechd"], swiftSettings: size),
        // The courtesy look: the sound server and the session bus at once, within a budget.
        .target(
            name: "Courtesy", dependencies: ["TalkingClockCore", "SoundServer", "DesktopBus", "EventLoop"], swiftSettings: size),
        // Finding and reading the config file, the user's directories, the system zone and the MQTT
        // password file: shared by the daemon and the CLI.
        .target(name: "ConfigFiles", dependencies: ["TalkingClockCore", "TimeZoneRules", "TOML"], swiftSettings: size),
        // The clock's shell: the engine's Linux ports (timers by kind, the device thread, the state
        // writer, courtesy, reloads), its surfaces (journal, systemd, MQTT) and the control socket.
        .target(
            name: "Daemon",
            dependencies: [
                "ClockEngine", "TalkingClockCore", "TimeZoneRules", "TOML", "JSON", "SoundPack", "Playback", "Outputs",
                "EventLoop", "MQTT", "Courtesy", "SpeechDispatcher", "ConfigFiles", "Synthesis",
            ],
            swiftSettings: size
        ),
        // The CLI's clients of a running daemon: the control socket and the MQTT remote (rooms,
        // --everywhere).
        .target(name: "Clients", dependencies: ["ConfigFiles", "EventLoop", "MQTT", "TalkingClockCore"], swiftSettings: size),
        .executableTarget(
            name: "talking-clock",
            dependencies: [
                "TalkingClockCore", "SoundPack", "Playback", "Outputs", "EventLoop", "Daemon", "Courtesy", "TOML", "JSON", "ConfigFiles",
                "Clients", "Synthesis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: size,
            linkerSettings: lean,
            plugins: ["BuildInfo"]
        ),
        // Generates BuildInfo.commit (the git commit) for `talking-clock --version`.
        .plugin(name: "BuildInfo", capability: .buildTool()),
        // scripts/bench-phrases: a year of phrases per language against today's English.
        .executableTarget(name: "phrase-bench", dependencies: ["PhraseGrammar", "TalkingClockCore"], path: "Tools/phrase-bench"),
        // A one-connection MQTT client on the daemon's event loop: the Last Will test kills it, and
        // scripts/mqtt-idle counts its wake-ups.
        .executableTarget(name: "mqtt-probe", dependencies: ["MQTT", "EventLoop", "ConfigFiles"], path: "Tools/mqtt-probe"),
        // The courtesy edges one at a time: the kill -9 ducking test and scripts/bench-courtesy.
        .executableTarget(
            name: "courtesy-probe", dependencies: ["Courtesy", "SoundServer", "DesktopBus", "SpeechDispatcher", "TalkingClockCore", "JSON", "EventLoop"],
            path: "Tools/courtesy-probe"),
        // Gives every test process a private XDG_*/HOME before any test runs (a C constructor), so
        // no test reads the user's config, packs or state. Only TestSupport imports it.
        .target(name: "TestEnvironment"),
        .target(
            name: "TestSupport",
            dependencies: ["TalkingClockCore", "ClockEngine", "ConfigFiles", "TimeZoneRules", "Playback", "SoundPack", "TestEnvironment"],
            swiftSettings: fast),

        .testTarget(name: "TalkingClockCoreTests", dependencies: ["TalkingClockCore", "JSON", "TestSupport"], swiftSettings: fast),
        .testTarget(name: "TimeZoneRulesTests", dependencies: ["TimeZoneRules"]),
        .testTarget(name: "TOMLTests", dependencies: ["TOML"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        // Depends on TalkingClockCore only to compare en-US 12h with today's Phrase.forTime.
        .testTarget(name: "PhraseGrammarTests", dependencies: ["PhraseGrammar", "TalkingClockCore"], exclude: ["Fixtures"]),
        .testTarget(name: "SoundPackTests", dependencies: ["SoundPack", "TestSupport"]),
        .testTarget(name: "PlaybackTests", dependencies: ["Playback", "TestSupport"]),
        .testTarget(name: "ALSAOutputTests", dependencies: ["ALSAOutput", "Playback", "Outputs", "SoundPack", "ConfigFiles", "TestSupport"]),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "EventLoop", "TestSupport"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"]),
        .testTarget(name: "SnapcastOutputTests", dependencies: ["SnapcastOutput", "Outputs", "Playback", "SoundPack", "TestSupport"]),
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "Synthesis", "ConfigFiles", "ClockEngine", "EventLoop", "Playback", "TestSupport"], swiftSettings: fast),
        .testTarget(name: "ClockEngineTests", dependencies: ["ClockEngine", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["SoundPack", "TestSupport"]),
        .testTarget(name: "SoundServerTests", dependencies: ["SoundServer", "TestSupport"]),
        .testTarget(
            name: "CourtesyTests",
            dependencies: [
                "Courtesy", "DesktopBus", "SpeechDispatcher", "SoundServer", "TalkingClockCore", "TestSupport", "ALSAOutput",
                "Playback", "Outputs", "ConfigFiles",
            ]),
    ]
)
