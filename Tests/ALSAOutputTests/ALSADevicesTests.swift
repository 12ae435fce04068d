import ALSAOutput
import Foundation
import XCTest

/// The devices ALSA names, against `aplay -L` (alsa-utils, the same library call): the same
/// names, in the same order, playback only.
final class ALSADevicesTests: XCTestCase {
    func testTheListIsWhatAplayLists() throws {
        let aplay = URL(fileURLWithPath: "/usr/bin/aplay")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: aplay.path), "needs alsa-utils (scripts/install-deps --test)")
        let process = Process()
        process.executableURL = aplay
        process.arguments = ["-L"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // aplay -L: a name on its own line, its description indented below it.
        let names = text.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.isEmpty }.map(String.init)
        let devices = ALSADevices.list()
        XCTAssertEqual(devices.map(\.name), names)
        XCTAssertTrue(devices.contains { $0.name == "null" && !$0.isCard })
        let pulse = try XCTUnwrap(devices.first { $0.name == "pulse" }, "libasound2-plugins names 'pulse'")
        XCTAssertEqual(pulse.description, "PulseAudio Sound Server")
        XCTAssertFalse(pulse.isCard)
    }
}
