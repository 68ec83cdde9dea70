import FoundationEssentials

/// App metadata and the signed transaction and renewal information in a version 2
/// notification. Apple calls this object `data`; Storekeeper calls it `NotificationData`
/// so it does not clash with Foundation's `Data`.
///
/// [data](https://developer.apple.com/documentation/appstoreservernotifications/data)
public struct NotificationData: Codable, Sendable, Equatable, Hashable {
    /// The app's App Store identifier; absent in the sandbox.
    public var appAppleId: Int64?
    public var bundleId: String?
    /// The build version of the app.
    public var bundleVersion: String?
    /// The wire value of `environment`.
    public var rawEnvironment: String?
    /// A `JWSTransaction`: transaction information signed by the App Store.
    public var signedTransactionInfo: String?
    /// A `JWSRenewalInfo`: subscription renewal information signed by the App Store.
    public var signedRenewalInfo: String?
    /// The wire value of `status` (auto-renewable subscriptions only).
    public var rawStatus: Int32?
    /// The wire value of `consumptionRequestReason` (`CONSUMPTION_REQUEST` only).
    public var rawConsumptionRequestReason: String?

    public init(
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        bundleVersion: String? = nil,
        rawEnvironment: String? = nil,
        signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil,
        rawStatus: Int32? = nil,
        rawConsumptionRequestReason: String? = nil
    ) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.rawEnvironment = rawEnvironment
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.rawStatus = rawStatus
        self.rawConsumptionRequestReason = rawConsumptionRequestReason
    }

    public var environment: Environment? {
        get { rawEnvironment.flatMap(Environment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    public var status: Status? {
        get { rawStatus.flatMap(Status.init(rawValue:)) }
        set { rawStatus = newValue?.rawValue }
    }

    public var consumptionRequestReason: ConsumptionRequestReason? {
        get { rawConsumptionRequestReason.flatMap(ConsumptionRequestReason.init(rawValue:)) }
        set { rawConsumptionRequestReason = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case appAppleId
        case bundleId
        case bundleVersion
        case rawEnvironment = "environment"
        case signedTransactionInfo
        case signedRenewalInfo
        case rawStatus = "status"
        case rawConsumptionRequestReason = "consumptionRequestReason"
    }
}
