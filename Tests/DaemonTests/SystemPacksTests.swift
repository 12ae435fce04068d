import ConfigFiles
import Foundation
import XCTest

/// Packs installed for every user (the Debian package puts them in /usr/share/talking-clock/packs)
/// are found by name, after the user's own and after a checkout's Sounds/.
final class SystemPacksTests: XCTestCase {
    func testUsrShareIsSearchedAfterTheUsersAndTheCheckoutsPacks() {
        let paths = PackLocator.searchPaths(environment: ["HOME": "/home/u"]).map(\.path)
        let user = paths.firstIndex(of: "/home/u/.local/share/talking-clock/packs")
        let local = paths.firstIndex(of: "/usr/local/share/talking-clock/packs")
        let system = paths.firstIndex(of: "/usr/share/talking-clock/packs")
        let checkout = paths.firstIndex { $0.hasSuffix("/Sounds") }
        XCTAssertNotNil(system, "\(paths)")
        XCTAssertNotNil(checkout, "\(paths)")
        XCTAssertLessThan(user ?? .max, local ?? .max, "\(paths)")
        XCTAssertLessThan(local ?? .max, system ?? .max, "XDG_DATA_DIRS' default order: \(paths)")
        XCTAssertLessThan(checkout ?? .max, system ?? .max, "a checkout's binary must use the checkout's packs")
    }

    func testXDGDataDirsAreSearchedAndUsrShareStaysWhenTheyOmitIt() {
        let paths = PackLocator.searchPaths(environment: [
            "HOME": "/home/u", "XDG_DATA_DIRS": "/opt/a:relative:/opt/b/",
        ])
        .map(\.path)
        XCTAssertTrue(paths.contains("/opt/a/talking-clock/packs"), "\(paths)")
        XCTAssertTrue(paths.contains("/opt/b/talking-clock/packs"), "\(paths)")
        XCTAssertFalse(paths.contains { $0.contains("relative") }, "relative entries are ignored: \(paths)")
        XCTAssertFalse(paths.contains("/usr/local/share/talking-clock/packs"), "the default applies only when unset")
        XCTAssertTrue(paths.contains("/usr/share/talking-clock/packs"), "\(paths)")
    }

    func testAPackInASystemDataDirectoryIsFoundByName() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("system-packs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let pack = data.appendingPathComponent("talking-clock/packs/only-in-system")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: pack.appendingPathComponent("pack.json"))
        let environment = ["HOME": "/nonexistent", "XDG_DATA_DIRS": data.path]
        XCTAssertEqual(try PackLocator.locate("only-in-system", environment: environment).get().path, pack.path)
        guard case .failure(let error) = PackLocator.locate("only-in-system", environment: ["HOME": "/nonexistent"])
        else { return XCTFail("found without its data directory") }
        XCTAssertTrue(error.description.contains("/usr/share/talking-clock/packs"), error.description)
    }

    /// Issue 22, item 10: an installed binary searches no `Sounds/` directory: not `/usr/Sounds` or
    /// `/Sounds` (the old walk up from the binary), not the working directory's. A binary SwiftPM
    /// built in a checkout finds that checkout's `Sounds/`, and no other.
    func testAnInstalledBinarySearchesNoSoundsDirectory() {
        let environment = ["HOME": "/home/u"]
        for executable in ["/usr/bin/talking-clock", "/home/u/.local/bin/talking-clock", "/opt/tc/bin/talking-clock"] {
            let paths = PackLocator.searchPaths(environment: environment, executable: executable).map(\.path)
            XCTAssertEqual(paths.filter { $0.hasSuffix("/Sounds") }, [], "\(executable): \(paths)")
            XCTAssertFalse(paths.contains(FileManager.default.currentDirectoryPath + "/Sounds"), "\(paths)")
        }
        XCTAssertEqual(
            PackLocator.searchPaths(environment: environment, executable: "/usr/bin/talking-clock").map(\.path),
            [
                "/home/u/.local/share/talking-clock/packs", "/usr/share/talking-clock/packs",
                "/usr/local/share/talking-clock/packs",
            ])
    }

    func testABinaryBuiltInACheckoutFindsThatCheckoutsSounds() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("checkout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent(".build/x86_64-unknown-linux-gnu/release"), withIntermediateDirectories: true)
        let built = root.appendingPathComponent(".build/x86_64-unknown-linux-gnu/release/talking-clock").path
        let withoutManifest = PackLocator.searchPaths(environment: ["HOME": "/home/u"], executable: built).map(\.path)
        XCTAssertEqual(withoutManifest.filter { $0.hasSuffix("/Sounds") }, [], "no Package.swift, no checkout: \(withoutManifest)")
        try Data().write(to: root.appendingPathComponent("Package.swift"))
        let paths = PackLocator.searchPaths(environment: ["HOME": "/home/u"], executable: built).map(\.path)
        XCTAssertEqual(paths.filter { $0.hasSuffix("/Sounds") }, [root.standardizedFileURL.path + "/Sounds"], "\(paths)")
    }
}
