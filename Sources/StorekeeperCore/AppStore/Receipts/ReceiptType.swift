/// Which App Store environment made a receipt: the value of the payload's attribute 0
/// (undocumented by Apple but always present: "Production", "ProductionSandbox", "Xcode";
/// volume purchase receipts say "ProductionVPP" / "ProductionVPPSandbox").
///
/// Keeps the raw value, so a new one decodes instead of failing.
public struct ReceiptType: RawRepresentable, Hashable, Sendable, Codable {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let production = ReceiptType(rawValue: "Production")
    public static let productionSandbox = ReceiptType(rawValue: "ProductionSandbox")
    public static let productionVPP = ReceiptType(rawValue: "ProductionVPP")
    public static let productionVPPSandbox = ReceiptType(rawValue: "ProductionVPPSandbox")
    public static let xcode = ReceiptType(rawValue: "Xcode")

    /// The environment by the names signed data and `APPSTORE_ENVIRONMENT` use
    /// (Production, Sandbox, Xcode); nil for a value we do not know.
    public var environment: Environment? {
        switch self {
        case .production, .productionVPP: .production
        case .productionSandbox, .productionVPPSandbox: .sandbox
        case .xcode: .xcode
        default: nil
        }
    }
}
