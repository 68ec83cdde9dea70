import StorekeeperCore
import Testing

/// The one error shape: code and disposition from the kind, equality by kind, and the place
/// it was made recorded at creation (for the log).
@Suite struct DomainErrorTests {
    @Test func codeAndDispositionComeFromTheKind() {
        let error = VerificationError(.retryableVerificationFailure, "OCSP responder unreachable")
        #expect(error.code == "RETRYABLE_VERIFICATION_FAILURE")
        #expect(error.disposition == .retryLater && error.isRetryable)
        #expect(VerificationError(.verificationFailure, "x").disposition == .badInput)
        #expect(AppleIDError(.invalidClient, "x").disposition == .configuration)
        #expect(StoreError(.invalidConfiguration, "x").disposition == .configuration)
        #expect(StoreError(.full, "x").disposition == .retryLater)
    }

    @Test func equalityIsByKindNotByReasonOrPlace() {
        let first = IdentityTokenError(.tokenExpired, "exp passed an hour ago")
        let second = IdentityTokenError(.tokenExpired, "exp passed a minute ago")
        #expect(first == second)
        #expect(first != IdentityTokenError(.nonceMismatch, "exp passed an hour ago"))
    }

    @Test func theOriginIsWhereTheErrorWasMade() {
        let line = #line + 1
        let error = SignInError(.invalidState, "state already used")
        #expect(error.origin.fileID == #fileID)
        #expect(error.origin.line == line)
        #expect(error.description == "invalid_state: state already used")
    }

    @Test func aFactoryPassesItsCallersPlaceOn() {
        let line = #line + 1
        let error = VerificationError.environmentNotAccepted("Xcode")
        #expect(error.origin.line == line && error.origin.fileID == #fileID)
        #expect(error.unacceptedEnvironment == "Xcode")
        #expect(VerificationError(.invalidEnvironment, "nested JWS of another environment").unacceptedEnvironment == nil)
    }

    @Test func appleAPIErrorsTakeTheDispositionOfApplesAnswer() {
        #expect(AppStoreAPIErrorCode.entry(4040010)?.disposition == .caller(.notFound))
        #expect(AppStoreAPIErrorCode.entry(4290000)?.disposition == .retryLater)
        #expect(AppStoreAPIErrorCode.entry(5000000)?.disposition == .retryLater)
        #expect(AppStoreAPIErrorCode.entry(4000006)?.disposition == .badInput)
        let refused = AppStoreAPIError(.apiTokenRefused, kind: .unauthorized, reason: "401", httpStatus: 401)
        #expect(refused.disposition == .upstreamRefused && !refused.isRetryable)
        #expect(refused.details.contains(ErrorDetail("attempts", .integer(1))))
    }
}
