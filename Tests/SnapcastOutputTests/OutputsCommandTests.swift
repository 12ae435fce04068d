import Foundation
import TestSupport
import XCTest

/// `talking-clock outputs` as a user runs it: a Snapcast server with a client, the client's
/// PulseAudio as the sound server; and a Snapcast device with nothing behind it.
final class OutputsCommandTests: XCTestCase {
    func testItDescribesTheConfiguredSnapcastServerAndTheSinks() throws {
        try XCTSkipUnless(SnapcastRig.isAvailable, "needs snapserver, snapclient and the PulseAudio harness: scripts/install-deps --test")
        let rig = try SnapcastRig("outputs", clients: 1)
        defer { rig.stop() }
        let run = try BinaryRunner.run(["outputs", "--device", rig.device], environment: ["PULSE_SERVER": rig.pulseServer(1)], timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "configured device:")
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("  \(rig.device)  (source \"clock\"; 48000:16:2, chunk 20 ms, buffer 1000 ms; snapserver 0.26.0, 1 client connected (") },
            run.stdout)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("      opened 3.0 s ahead (buffer, chunk, the clients' warm-up); a connection per announcement, nothing held") },
            run.stdout)
        XCTAssertTrue(lines.contains("sound-server sinks:"), run.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  pulse:tc_null  (talking-clock-null, ") }, run.stdout)
        XCTAssertTrue(lines.contains("      compensated through the stream's delay") || lines.contains { $0.contains("ms, compensated through the stream's delay") }, run.stdout)
    }

    func testASnapcastServerThatIsNotThereIsSaidSo() throws {
        let run = try BinaryRunner.run(["outputs", "--device", "snapcast://127.0.0.1:1?control=off"], environment: ["PULSE_SERVER": "unix:/nonexistent/native"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.prefix(2), ["configured device:", "  snapcast://127.0.0.1:1?control=off  (cannot be opened now)"])
        XCTAssertTrue(lines[2].contains("Could not connect to the Snapcast server at 127.0.0.1:1: Connection refused."), lines[2])
    }
}
