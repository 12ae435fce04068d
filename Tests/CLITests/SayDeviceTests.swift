import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// `say` opens its device on a second thread while it loads the pack and mixes: whichever way the
/// device is given (`--device`, `--device=`, `--config`, the default config file), the announcement
/// reaches the device the settings name, and a command that fails after the open began ends with its
/// own error, the device closed.
final class SayDeviceTests: XCTestCase {
    var dir: URL!
    var pack: URL!

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("saydev")
        pack = dir.appendingPathComponent("pack")
        try FixturePack.write(to: pack)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// 09:05 in the fixture pack: its four clips back to back.
    let expected = ["nine", "oh", "five", "am"].flatMap { FixturePack.signal(for: $0, frames: 200 + $0.utf8.count * 10, channels: 1) }

    func device(_ name: String) -> (url: URL, alsa: String) {
        let url = dir.appendingPathComponent(name + ".wav")
        return (url, "file:FILE=\(url.path),FORMAT=wav")
    }

    /// The samples ALSA's file plugin recorded (its header's lengths may be 0).
    func samples(_ url: URL) throws -> [Int16] {
        guard let samples = try WAVSamples.int16(at: url) else {
            XCTFail("\(url.path) has no data chunk")
            return []
        }
        return samples
    }

    func assertSpoken(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "nothing played on \(url.lastPathComponent)", file: file, line: line)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let written = try samples(url)
        XCTAssertGreaterThanOrEqual(written.count, expected.count, file: file, line: line)
        XCTAssertEqual(Array(written.prefix(expected.count)), expected, "the whole announcement, sample for sample", file: file, line: line)
    }

    func testTheDeviceOnTheCommandLinePlaysTheAnnouncement() throws {
        let spaced = device("spaced")
        let r = try BinaryRunner.run(["say", "--local", "--at", "09:05", "--device", spaced.alsa, "--pack", pack.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        try assertSpoken(spaced.url)

        let joined = device("joined")
        let j = try BinaryRunner.run(["say", "--at=09:05", "--device=\(joined.alsa)", "--pack=\(pack.path)"])
        XCTAssertEqual(j.status, 0, j.stderr)
        try assertSpoken(joined.url)
    }

    func testTheConfigsDeviceIsUsedWhenTheCommandLineNamesNone() throws {
        // --config FILE naming a device: that device, not the default one.
        let named = device("config")
        let config = dir.appendingPathComponent("config.toml")
        try "device = \"\(named.alsa)\"\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["say", "--local", "--at", "09:05", "--config", config.path, "--pack", pack.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        try assertSpoken(named.url)

        // The default config file ($XDG_CONFIG_HOME/talking-clock/config.toml) likewise.
        let xdg = device("xdg")
        let home = dir.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("talking-clock"), withIntermediateDirectories: true)
        try "device = \"\(xdg.alsa)\"\n".write(to: home.appendingPathComponent("talking-clock/config.toml"), atomically: true, encoding: .utf8)
        let d = try BinaryRunner.run(["say", "--local", "--at", "09:05", "--pack", pack.path], environment: ["XDG_CONFIG_HOME": home.path])
        XCTAssertEqual(d.status, 0, d.stderr)
        try assertSpoken(xdg.url)

        // --device wins over the config's.
        let override = device("override")
        let o = try BinaryRunner.run(["say", "--local", "--at", "09:05", "--config", config.path, "--device", override.alsa, "--pack", pack.path])
        XCTAssertEqual(o.status, 0, o.stderr)
        try assertSpoken(override.url)
    }

    func testACommandThatFailsAfterTheDeviceOpenedEndsWithItsOwnError() throws {
        let early = device("early")
        let badTime = try BinaryRunner.run(["say", "--local", "--at", "25:00", "--device", early.alsa, "--pack", pack.path])
        XCTAssertEqual(badTime.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(badTime.stderr, "talking-clock: --at: \"25:00\" is not a time of day: use 24-hour HH:MM, such as 07:30 or 15:45.\n")

        let noPack = try BinaryRunner.run(["say", "--local", "--at", "09:05", "--device", early.alsa, "--pack", dir.appendingPathComponent("none").path])
        XCTAssertEqual(noPack.status, ExitStatus.packError.rawValue)
        XCTAssertTrue(noPack.stderr.hasPrefix("talking-clock: Sound pack directory "), noPack.stderr)

        // A parse error is the full command's (usage of `talking-clock say`).
        let unknown = try BinaryRunner.run(["say", "--local", "--bogus", "--device", early.alsa, "--pack", pack.path])
        XCTAssertEqual(unknown.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(unknown.stderr.contains("Unknown option '--bogus'"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("Usage: talking-clock say"), unknown.stderr)

        let noDevice = try BinaryRunner.run(["say", "--local", "--at", "09:05", "--device", "hw:CARD=NoSuchCard", "--pack", pack.path])
        XCTAssertEqual(noDevice.status, ExitStatus.deviceError.rawValue)
        XCTAssertTrue(noDevice.stderr.hasPrefix("talking-clock: Could not open ALSA device \"hw:CARD=NoSuchCard\""), noDevice.stderr)
    }

    func testHelpIsTheFullCommandsHelp() throws {
        let r = try BinaryRunner.run(["say", "--local", "--device", "file:FILE=/dev/null", "--help"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("USAGE: talking-clock say"), r.stdout)
    }
}
