import Foundation
import StorekeeperCore

/// Apple's StoreKit Testing resources (Tests/Fixtures/xcode; see its README).
public enum XcodeFixtures {
    public static let bundleId = "com.example.naturelab.backyardbirds.example"

    public static func jws(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: TestPKI.directory).deletingLastPathComponent()
            .appendingPathComponent("xcode/xcode-signed-\(name)").path
        return try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public static func verifier(environments: Set<String>) -> SignedDataVerifier {
        SignedDataVerifier(configuration: .init(
            trustAnchors: TrustAnchors([]), bundleId: bundleId, appAppleId: nil, acceptedEnvironments: environments))
    }
}
