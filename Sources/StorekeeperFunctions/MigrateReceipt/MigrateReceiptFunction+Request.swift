import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

extension MigrateReceiptFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case receiptData, bundleId, dryRun, legacyCheck, userId, appAccountToken, sessionToken
        }
        /// Base64 of the receipt file (line breaks and spaces tolerated, as apps send them).
        var receiptData: String
        /// The app the receipt must be of (any of the catalog's without it: a receipt names its app).
        var bundleId: String?
        var dryRun: Bool?
        var legacyCheck: Bool?
        /// The user the purchases are linked to.
        var userId: String?
        /// A UUID to set at Apple on purchases that carry none (default: the user's own).
        var appAccountToken: String?
        /// The app's own proof of its user: the session Sign in with Apple opened (siwa-native's
        /// sessionToken). Lets an old app version link its purchases without the admin token.
        var sessionToken: String?
    }

    /// A request whose fields agree with each other and with who sent it.
    struct CheckedRequest {
        var bundleId: String?
        var dryRun: Bool
        var legacyCheck: Bool
        var userId: String?
        /// Lowercase.
        var appAccountToken: String?
        var sessionToken: String?
        /// `receiptData` without white space, as verifyReceipt takes it.
        var receiptData: String
        var der: [UInt8]
        /// Nobody vouches for a user: the answer may come from the store (see the help).
        var anonymous: Bool
    }

    /// The base64 length of the largest container the reader accepts.
    static let maximumReceiptDataLength = (PKCS7SignedData.maximumSize + 2) / 3 * 4

    /// Checks the fields in a fixed order, so the first problem named stays the same.
    static func check(_ request: Request, call: FunctionRequest, environment: EnvironmentVariables) throws -> CheckedRequest {
        let dryRun = request.dryRun ?? false
        let legacyCheck = request.legacyCheck ?? false
        if dryRun && legacyCheck {
            throw FunctionError.badInput(message: "legacyCheck asks Apple; a dry run asks nobody: send one or the other")
        }
        if dryRun && (request.userId != nil || request.appAccountToken != nil || request.sessionToken != nil) {
            throw FunctionError.badInput(message: "a dry run links nobody: userId, appAccountToken and sessionToken need dryRun false")
        }
        if request.sessionToken != nil && (request.userId != nil || request.appAccountToken != nil) {
            throw FunctionError.badInput(message: "give sessionToken (the app speaks for its user) or userId/appAccountToken (your backend does), not both")
        }
        let vouched = call.carriesAdminAuthorization(environment)
        if request.userId != nil || request.appAccountToken != nil, !vouched {
            // The route is public; linking purchases to a user, or writing a token at Apple, is
            // for a caller that vouches for the user.
            throw FunctionError.unauthorized(message: "userId and appAccountToken over HTTP need Authorization: Bearer $\(RuntimeVariable.adminToken) (your backend speaks for the user)")
        }
        if let userId = request.userId, userId.isEmpty || userId.utf8.count > 128 {
            throw FunctionError.badInput(message: "userId must be 1 to 128 characters")
        }
        var appAccountToken: String?
        if let given = request.appAccountToken {
            guard let uuid = UUID(uuidString: given) else {
                throw FunctionError.badInput(message: "appAccountToken must be a UUID")
            }
            appAccountToken = uuid.uuidString.lowercased()
        }
        let receiptData = request.receiptData.filter { !$0.isWhitespace }
        guard receiptData.utf8.count <= maximumReceiptDataLength else {
            throw FunctionError.payloadTooLarge(message: "receiptData is larger than any app receipt")
        }
        guard let der = Base64.decode(receiptData, padding: .optional), !der.isEmpty else {
            throw ReceiptError(.invalidReceiptFormat, "receiptData is not base64")
        }
        return CheckedRequest(
            bundleId: request.bundleId, dryRun: dryRun, legacyCheck: legacyCheck, userId: request.userId, appAccountToken: appAccountToken,
            sessionToken: request.sessionToken, receiptData: receiptData, der: der,
            anonymous: request.sessionToken == nil && !vouched)
    }
}
