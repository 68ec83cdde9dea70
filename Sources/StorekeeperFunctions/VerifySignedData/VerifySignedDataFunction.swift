import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `verify-signed-data`: verifies one piece of App Store signed data (a notification's
/// `signedPayload`, a transaction, renewal info or an app transaction) and answers it decoded,
/// or says precisely why it was rejected, with Apple's error codes.
///
/// Written on the byte layer, not as a `TypedFunction`: its answer splices each verified
/// payload exactly as it was signed (members in their order, numbers as written, see
/// `StrictJSON`), which no `Encodable` sent through `JSONEncoder` can reproduce, and a batch
/// (NDJSON) of them skips a decode and re-encode per line. The request and both answers are
/// still typed values; only the answer's last step, its bytes, is written here.
public final class VerifySignedDataFunction: FunctionHandler {
    /// The request: the JWS and, optionally, what it is supposed to be.
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case signedData, type
        }
        var signedData: String
        var type: String?
    }

    /// `{"valid": true, "type", "environment", "payload", ...}`: the verified data, decoded.
    struct Accepted {
        let verified: VerifiedSignedData

        /// In the order the answer has always had; the signed parts spliced in as verified.
        func encoded() -> [UInt8] {
            var answer = JSONObjectBuilder()
            answer.add("valid", true)
            answer.add("type", verified.type.rawValue)
            answer.add("environment", verified.environment.rawValue)
            answer.add("payload", rawJSON: verified.payload)
            if let transactionInfo = verified.transactionInfo { answer.add("transactionInfo", rawJSON: transactionInfo) }
            if let renewalInfo = verified.renewalInfo { answer.add("renewalInfo", rawJSON: renewalInfo) }
            if let appTransactionInfo = verified.appTransactionInfo { answer.add("appTransactionInfo", rawJSON: appTransactionInfo) }
            if let onlineCheck = verified.revocation.answerValue { answer.add("onlineCheck", onlineCheck) }
            // Said out loud so nobody mistakes Xcode test data for Apple-signed data.
            if verified.signatureSkipped { answer.add("signatureChecked", false) }
            return answer.build()
        }
    }

    /// `{"valid": false, "error": {"code", "message"}}`: the check that failed, in Apple's code.
    struct Rejected {
        struct Failure: Encodable {
            var code: String
            var message: String
        }
        let error: Failure
        let disposition: ErrorDisposition

        func response() throws -> FunctionResponse {
            var answer = JSONObjectBuilder()
            answer.add("valid", false)
            try answer.add("error", encoding: error)
            return FunctionResponse(status: disposition.httpStatus, body: answer.build(), exitCode: disposition.exitCode)
        }
    }

    public static let descriptor = FunctionDescriptor(
        name: "verify-signed-data",
        route: "/appstore/verify",
        method: "POST",
        visibility: .internal,
        summary: "Verify App Store signed data (JWS with an x5c chain) and answer its decoded payload.",
        request: """
            {"signedData": "<compact JWS>", "type": "notification" | "transaction" | "renewalInfo" | "appTransaction" | "realtimeRequest"}
              type is optional: without it the kind is inferred from the payload; with it, a
              payload of another kind is INVALID_JWT_FORMAT (so is each nested JWS of a
              notification that is not the kind its field names).
            """,
        response: """
            accepted: {"valid": true, "type": "...", "environment": "Sandbox", "payload": {...},
                       "transactionInfo": {...}, "renewalInfo": {...}, "appTransactionInfo": {...}}
              payload: the signed JSON value itself, every field (known or not) with its value and
               type as signed, re-encoded compactly; a payload with duplicate keys, a byte order
               mark or bytes that are not UTF-8 JSON is INVALID_JWT_FORMAT.
              (transactionInfo/renewalInfo/appTransactionInfo: a notification's nested JWS
               (data.signed*, appData.signedAppTransactionInfo), verified and decoded;
               "onlineCheck": "good" | "cached" | "unchecked" when APPSTORE_ONLINE_CHECKS is on;
               "signatureChecked": false for Xcode / LocalTesting data, accepted unsigned only
               when APPSTORE_ENVIRONMENT lists that environment, as StoreKit Testing signs it
               with its own self-signed key)
            rejected: {"valid": false, "error": {"code": "INVALID_JWT_FORMAT" | "INVALID_CERTIFICATE" |
                       "VERIFICATION_FAILURE" | "RETRYABLE_VERIFICATION_FAILURE" |
                       "INVALID_APP_IDENTIFIER" | "INVALID_ENVIRONMENT", "message": "..."}}
              exit 65 (HTTP 400); RETRYABLE_VERIFICATION_FAILURE exits 75 (HTTP 503).
            """,
        variables: AppStoreSettings.variables
    )

    private let verifier: SignedDataVerifier
    private let context: FunctionContext

    public init(context: FunctionContext) throws {
        let settings = try AppStoreSettings(environment: context.environment)
        verifier = settings.makeVerifier(adapters: context.adapters, log: context.log)
        self.context = context
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        var type: SignedDataType?
        if let name = body.type {
            guard let known = SignedDataType(rawValue: name) else {
                throw FunctionError.badInput(code: .invalidRequest, message: "type must be one of \(SignedDataType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            type = known
        }

        let verified: VerifiedSignedData
        do {
            verified = try verifier.verify(body.signedData, as: type, now: context.clock.now())
        } catch {
            context.log.warning("signed_data_rejected", ["code": error.code, "reason": error.reason])
            return try Rejected(error: .init(code: error.code, message: error.reason), disposition: error.disposition).response()
        }
        context.log.onlineCheck(verified.revocation)
        return FunctionResponse(status: 200, body: Accepted(verified: verified).encoded())
    }
}
