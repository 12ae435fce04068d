import Foundation
import XCTest

import SoundServer
import TestSupport

/// The sinks a server offers, against two private PulseAudios: the harness's null sink, and a
/// tunnel to the other server (a network sink with the latency it was given).
final class SoundServerSinkTests: XCTestCase {
    func testSinksIncludeANetworkTunnelWithItsLatency() throws {
        try XCTSkipUnless(AudioHarness.isAvailable, "needs scripts/install-deps --test (pulseaudio, pactl)")
        let near = try AudioHarness.PrivatePulse("sinks-near")
        defer { near.stop() }
        let far = try AudioHarness.PrivatePulse("sinks-far")
        defer { far.stop() }
        let server = near.environment["PULSE_SERVER"]!
        let plain = try SoundServer.sinks(server: server, timeout: 2)
        XCTAssertEqual(plain.map(\.name), ["tc_null"])
        XCTAssertEqual(plain.first?.description, "talking-clock-null")
        XCTAssertEqual(plain.first?.isNetwork, false)
        XCTAssertEqual(plain.first?.device, "pulse:tc_null")

        let load = Process()
        load.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        load.arguments = [
            "-s", server, "load-module", "module-tunnel-sink", "server=\(far.environment["PULSE_SERVER"]!)", "sink=tc_null",
            "sink_name=kitchen", "latency_msec=250", "sink_properties=device.description=Kitchen",
        ]
        try load.run()
        load.waitUntilExit()
        XCTAssertEqual(load.terminationStatus, 0)
        let deadline = Date().addingTimeInterval(10)
        var tunnel: SoundServer.Sink?
        while Date() < deadline {
            tunnel = try SoundServer.sinks(server: server, timeout: 2).first { $0.name == "kitchen" && $0.latency > 0 }
            if tunnel != nil { break }
            usleep(50_000)
        }
        let kitchen = try XCTUnwrap(tunnel, "the tunnel never reported a latency")
        // The tunnel names itself after the far sink and host, whatever device.description says.
        XCTAssertTrue(kitchen.description.hasPrefix("talking-clock-null on "), kitchen.description)
        XCTAssertTrue(kitchen.isNetwork)
        XCTAssertEqual(kitchen.driver, "module-tunnel.c")
        XCTAssertEqual(kitchen.device, "pulse:kitchen")
        XCTAssertGreaterThan(kitchen.latency, 0.1, "the tunnel's 250 ms, less what it has not filled yet")
        XCTAssertEqual(kitchen.configuredLatency, 0.25, accuracy: 0.05)
    }

    func testNoServerFailsFastWithASentence() {
        XCTAssertThrowsError(try SoundServer.sinks(server: "unix:/nonexistent/tc/native", timeout: 0.2)) { error in
            XCTAssertTrue("\(error)".hasPrefix("no sound server to connect to ("), "\(error)")
        }
    }
}
