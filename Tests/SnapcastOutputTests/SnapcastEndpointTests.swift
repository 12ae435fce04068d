import Outputs
import Playback
import SnapcastOutput
import TalkingClockCore
import XCTest

final class SnapcastEndpointTests: XCTestCase {
    func testParsesHostPortAndOptions() throws {
        let e = try SnapcastEndpoint("snapcast://192.168.1.10:4953?buffer=800&latency=-12&chunk=10&format=44100:16:1&control=off&meta=no")
        XCTAssertEqual(e.host, "192.168.1.10")
        XCTAssertEqual(e.port, 4953)
        XCTAssertEqual(e.bufferMs, 800)
        XCTAssertEqual(e.latencyMs, -12)
        XCTAssertEqual(e.chunkMs, 10)
        XCTAssertEqual(e.format, StreamFormat(sampleRate: 44100, channels: 1))
        XCTAssertNil(e.controlPort)
        XCTAssertEqual(e.meta, .no)
        XCTAssertEqual(e.address, "192.168.1.10:4953")
    }

    func testDefaultsAreSnapserversOwn() throws {
        let e = try SnapcastEndpoint("snapcast://snapserver.local:4953/")
        XCTAssertEqual(e.host, "snapserver.local")
        XCTAssertEqual(e.bufferMs, 1000)
        XCTAssertEqual(e.latencyMs, 0)
        XCTAssertNil(e.chunkMs)
        XCTAssertNil(e.format)
        XCTAssertEqual(e.controlPort, 1705)
        XCTAssertEqual(e.meta, .auto)
        let v6 = try SnapcastEndpoint("snapcast://[::1]:4953")
        XCTAssertEqual(v6.host, "::1")
        XCTAssertEqual(v6.address, "[::1]:4953")
    }

    func testBadNamesSayWhatIsWrongAndHowToWriteIt() {
        let cases: [(String, String)] = [
            ("snapcast://host", "the port is missing"),
            ("snapcast://:4953", "the host is missing"),
            ("snapcast://host:99999", "'99999' is not a port from 1 to 65535"),
            ("snapcast://host:4953?buffer=fast", "'buffer' must be whole milliseconds from 0 to 60000 (e.g. buffer=1000), not 'fast'"),
            ("snapcast://host:4953?format=48000:24:2", "'format' must be RATE:16:CHANNELS"),
            ("snapcast://host:4953?volume=3", "unknown option 'volume'"),
            ("snapcast://host:4953?meta=maybe", "'meta' must be auto, yes or no"),
            ("snapcast://::1:4953", "write an IPv6 address in brackets"),
        ]
        for (device, part) in cases {
            XCTAssertThrowsError(try SnapcastEndpoint(device), device) { error in
                let e = error as! SinkError
                XCTAssertEqual(e.kind, .notFound, device)
                XCTAssertTrue(e.message.contains(part), "\(device): \(e.message)")
                XCTAssertTrue(e.message.contains("snapcast://HOST:PORT"), "\(device): \(e.message)")
            }
        }
        XCTAssertTrue(SnapcastEndpoint.matches("snapcast://h:1"))
        XCTAssertFalse(SnapcastEndpoint.matches("default"))
    }

    /// Without asking the server: the device's options, else snapserver's defaults; a meta stream
    /// is assumed unless the device says `meta=no` (the lead-in costs time, never the timing).
    func testUnprobedUsesTheOptionsAndTheSafeAssumption() throws {
        let plain = try SnapcastTarget.unprobed(try SnapcastEndpoint("snapcast://127.0.0.1:4953?meta=no&chunk=10&buffer=400"))
        XCTAssertEqual(plain.chunkMs, 10)
        XCTAssertFalse(plain.meta)
        XCTAssertEqual(plain.streamFormat, StreamFormat(sampleRate: 48000, channels: 2))
        XCTAssertEqual(plain.latency, 0.41, accuracy: 1e-9, "buffer + a chunk")
        XCTAssertEqual(plain.openAhead, 2.41, accuracy: 1e-9, "and the clients' warm-up")
        XCTAssertNil(plain.status)
        let unknown = try SnapcastTarget.unprobed(try SnapcastEndpoint("snapcast://127.0.0.1:4953"))
        XCTAssertTrue(unknown.meta)
        XCTAssertEqual(unknown.chunkMs, 20)
        XCTAssertGreaterThan(unknown.latency, 1.9, "buffer, chunk, lead-in, lead and stall")
    }

    /// The registry gives the daemon the lead a device needs, from the name alone.
    func testTheRegistryKnowsHowFarAheadToOpen() {
        XCTAssertTrue(OutputRegistry.driver(for: "snapcast://h:4953") is SnapcastOutputDriver)
        XCTAssertEqual(OutputRegistry.driver(for: "default").name, "alsa")
        XCTAssertEqual(OutputRegistry.leadTime("snapcast://127.0.0.1:4953?meta=no&buffer=400"), 0.4 + 0.02 + 2, accuracy: 1e-9)
        XCTAssertGreaterThan(OutputRegistry.leadTime("snapcast://127.0.0.1:4953"), 3.5, "a meta stream's lead-in too")
        XCTAssertEqual(OutputRegistry.leadTime("default"), 0)
        XCTAssertEqual(OutputRegistry.leadTime("pulse:far_speaker"), 2.5, "a named sink may be a network sink")
        XCTAssertEqual(OutputRegistry.leadTime("snapcast://broken"), 0)
    }
}
