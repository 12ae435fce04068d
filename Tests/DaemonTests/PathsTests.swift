import ConfigFiles
import Daemon
import Foundation
import Glibc
import XCTest

/// The config, the state and the packs are found from one home: `HOME`, or the passwd entry's.
final class PathsTests: XCTestCase {
    /// The passwd entry's home, looked up here independently of the code under test.
    var passwdHome: String { String(cString: getpwuid(getuid())!.pointee.pw_dir) }

    func testWithoutHOMEConfigStateAndPacksAllUseThePasswdHome() {
        for environment in [[:], ["HOME": ""]] as [[String: String]] {
            XCTAssertEqual(
                ConfigFile.defaultConfigPath(environment: environment),
                passwdHome + "/.config/talking-clock/config.toml", "\(environment)")
            XCTAssertEqual(
                StateStore.defaultDirectory(environment: environment).path, passwdHome + "/.local/state/talking-clock",
                "\(environment)")
            XCTAssertEqual(
                PackLocator.searchPaths(environment: environment).first?.path,
                passwdHome + "/.local/share/talking-clock/packs", "\(environment)")
        }
    }

    func testXDGVariablesWinAndRelativeOnesAreIgnored() {
        let cases: [(env: [String: String], config: String, state: String, packs: String)] = [
            (["HOME": "/home/u"], "/home/u/.config", "/home/u/.local/state", "/home/u/.local/share"),
            (
                ["HOME": "/home/u", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s", "XDG_DATA_HOME": "/d"], "/c", "/s",
                "/d"
            ),
            (
                ["HOME": "/home/u", "XDG_CONFIG_HOME": "rel", "XDG_STATE_HOME": "rel", "XDG_DATA_HOME": ""],
                "/home/u/.config", "/home/u/.local/state", "/home/u/.local/share"
            ),
        ]
        for c in cases {
            XCTAssertEqual(
                ConfigFile.defaultConfigPath(environment: c.env), c.config + "/talking-clock/config.toml", "\(c.env)")
            XCTAssertEqual(StateStore.defaultDirectory(environment: c.env).path, c.state + "/talking-clock", "\(c.env)")
            XCTAssertEqual(
                PackLocator.searchPaths(environment: c.env).first?.path, c.packs + "/talking-clock/packs", "\(c.env)")
        }
    }

    func testThePackSearchListNamesEachDirectoryOnce() {
        let paths = PackLocator.searchPaths(environment: ["HOME": "/home/u"]).map(\.path)
        XCTAssertEqual(paths.count, Set(paths).count, "\(paths)")
        XCTAssertTrue(paths.contains(FileManager.default.currentDirectoryPath + "/Sounds"), "\(paths)")
    }
}
