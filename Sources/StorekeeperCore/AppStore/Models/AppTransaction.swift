import FoundationEssentials

/// The decoded payload of a `JWSAppTransaction`: the customer's purchase of the app itself,
/// from StoreKit's `AppTransaction`, Get App Transaction Info, or a notification's `appData`.
///
/// `receiptType` is the environment that signed it. StoreKit's copy also carries the
/// device-verification fields; the server API's copy omits them.
///
/// [JWSAppTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwsapptransactiondecodedpayload)
public struct AppTransaction: Codable, Sendable, Equatable, Hashable {
    /// The wire value of `receiptType` (an environment: `Production`, `Sandbox`, ...).
    public var rawReceiptType: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    /// The app version the app transaction applies to.
    public var applicationVersion: String?
    /// The App Store's identifier of the app version.
    public var versionExternalIdentifier: Int64?
    /// When the App Store signed the app transaction, in milliseconds since 1970.
    public var receiptCreationDate: Int64?
    /// When the customer first bought the app, in milliseconds since 1970.
    public var originalPurchaseDate: Int64?
    /// The app version the customer first bought.
    public var originalApplicationVersion: String?
    /// A Base64 SHA-384 value that ties the app transaction to a device.
    public var deviceVerification: String?
    /// The UUID used to compute `deviceVerification`.
    public var deviceVerificationNonce: String?
    /// When the customer pre-ordered the app, in milliseconds since 1970.
    public var preorderDate: Int64?
    /// The unique identifier of the app download transaction.
    public var appTransactionId: String?
    /// The wire value of `originalPlatform`.
    public var rawOriginalPlatform: String?

    public init(
        rawReceiptType: String? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        applicationVersion: String? = nil,
        versionExternalIdentifier: Int64? = nil,
        receiptCreationDate: Int64? = nil,
        originalPurchaseDate: Int64? = nil,
        originalApplicationVersion: String? = nil,
        deviceVerification: String? = nil,
        deviceVerificationNonce: String? = nil,
        preorderDate: Int64? = nil,
        appTransactionId: String? = nil,
        rawOriginalPlatform: String? = nil
    ) {
        self.rawReceiptType = rawReceiptType
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.deviceVerification = deviceVerification
        self.deviceVerificationNonce = deviceVerificationNonce
        self.preorderDate = preorderDate
        self.appTransactionId = appTransactionId
        self.rawOriginalPlatform = rawOriginalPlatform
    }

    /// The environment that signed the app transaction.
    public var receiptType: Environment? {
        get { rawReceiptType.flatMap(Environment.init(rawValue:)) }
        set { rawReceiptType = newValue?.rawValue }
    }

    public var originalPlatform: PurchasePlatform? {
        get { rawOriginalPlatform.flatMap(PurchasePlatform.init(rawValue:)) }
        set { rawOriginalPlatform = newValue?.rawValue }
    }

    /// `deviceVerificationNonce` parsed as a UUID; `nil` when absent or malformed.
    public var deviceVerificationNonceValue: UUID? {
        deviceVerificationNonce.flatMap(UUID.init(uuidString:))
    }

    public var receiptCreationDateValue: Date? {
        get { AppStoreMilliseconds.date(receiptCreationDate) }
        set { receiptCreationDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var originalPurchaseDateValue: Date? {
        get { AppStoreMilliseconds.date(originalPurchaseDate) }
        set { originalPurchaseDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var preorderDateValue: Date? {
        get { AppStoreMilliseconds.date(preorderDate) }
        set { preorderDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    enum CodingKeys: String, CodingKey {
        case rawReceiptType = "receiptType"
        case appAppleId
        case bundleId
        case applicationVersion
        case versionExternalIdentifier
        case receiptCreationDate
        case originalPurchaseDate
        case originalApplicationVersion
        case deviceVerification
        case deviceVerificationNonce
        case preorderDate
        case appTransactionId
        case rawOriginalPlatform = "originalPlatform"
    }
}
