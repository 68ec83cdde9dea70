import FoundationEssentials
import OpenSSLCrypto

/// Verifies anything the App Store signs, in one fixed order:
///
/// 1. shape: compact JWS, header `alg` ES256, a payload that is strict JSON (UTF-8, no
///    duplicate keys) of the kind the caller names, `x5c` of exactly three certificates
///    (INVALID_JWT_FORMAT);
/// 2. chain: leaf and intermediate parsed, Apple's OIDs, path to a configured root at the
///    validation time (INVALID_CERTIFICATE);
/// 3. signature with the leaf's key (VERIFICATION_FAILURE);
/// 4. claims: bundle id and App Apple ID (INVALID_APP_IDENTIFIER), then environment
///    (INVALID_ENVIRONMENT).
///
/// Data from an Xcode or LocalTesting environment is not signed by Apple: it skips the x5c
/// count and steps 2–3 only when that environment is explicitly accepted and the caller
/// allows unsigned data at all, and is rejected otherwise.
///
/// One verifier serves a whole process: a chain once verified is remembered (with the window
/// in which its certificates are all valid), so a notification's three JWS, or a batch of
/// thousands, pay for the chain once.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/jwsdecodedheader
public final class SignedDataVerifier {
    /// What this deployment trusts and accepts.
    public struct Configuration {
        /// Trust anchors: Apple's roots in production, the test PKI's root in tests.
        public var trustAnchors: TrustAnchors
        /// The apps whose data is accepted (the catalog's). Every transaction, notification
        /// and app transaction must carry one's bundle id, and is then checked against that
        /// app's environments and, on Production data, its numeric App Apple ID.
        public var apps: [CatalogApp]

        public init(trustAnchors: TrustAnchors, apps: [CatalogApp]) {
            self.trustAnchors = trustAnchors
            self.apps = apps
        }

        /// One app: its bundle id, its App Apple ID (required when Production is accepted)
        /// and the environments whose data it accepts (a production server also serves App
        /// Review's sandbox purchases).
        public init(trustAnchors: TrustAnchors, bundleId: String, appAppleId: Int64?, acceptedEnvironments: Set<Environment>) {
            self.init(trustAnchors: trustAnchors,
                      apps: [CatalogApp(bundleId: bundleId, appAppleId: appAppleId, environments: acceptedEnvironments)])
        }

        /// Every environment some app accepts: renewal info, which names no app, is checked
        /// against these.
        public var acceptedEnvironments: Set<Environment> {
            apps.reduce(into: []) { $0.formUnion($1.environments) }
        }

        public func app(bundleId: String?) -> CatalogApp? {
            apps.first { $0.bundleId == bundleId }
        }
    }

    /// Environments whose data Apple does not sign with its PKI.
    public static let unsignedEnvironments: Set<Environment> = Set(Environment.allCases.filter { !$0.isSignedByApple })

    public let configuration: Configuration
    private var chains = VerifiedChainCache()
    /// Where proven chains are remembered across processes (nil: only in this process).
    private let chainStore: (any KeyValueStore)?
    /// OCSP checks; nil or `.off` validates at the data's signedDate without going online.
    private let revocation: RevocationChecker?

    /// - Parameters:
    ///   - chainStore: the store in which proven chains are cached across processes (a
    ///     `SelfOpeningStore` opens on first need). Reading it is the first thing a
    ///     verification does with a chain, before anything is proven: a store that fails (or
    ///     will not open) is a cache miss and a failed write is ignored, because the cache is
    ///     an optimisation.
    ///   - revocation: online checks. With them on, chains are validated at `now`, not at the
    ///     data's signedDate, and leaf and intermediate are checked by OCSP.
    public init(configuration: Configuration, chainStore: (any KeyValueStore)? = nil,
                revocation: RevocationChecker? = nil) {
        self.configuration = configuration
        self.chainStore = chainStore
        self.revocation = revocation
    }

    private var onlineChecks: Bool { (revocation?.policy ?? .off) != .off }

    /// Whether data from an environment Apple does not sign (Xcode, LocalTesting) may skip
    /// the chain and signature checks.
    public enum UnsignedData: Sendable {
        /// Skipped when that environment is in `acceptedEnvironments` (StoreKit Testing).
        case acceptedWhenConfigured
        /// Never: the data must carry Apple's chain and signature, whatever the
        /// configuration says. Apple never sends Xcode or LocalTesting data to a server, so
        /// the public webhook and notification recovery take only signed data.
        case refused
    }

    /// What `verifyNotification` reads into Apple's models.
    public enum NotificationModels: Sendable {
        /// The envelope and every nested payload.
        case all
        /// The envelope only: a fresh process that only stores the notification does not pay
        /// for decoding models it never reads (about 0.7M instructions per webhook call).
        case envelope
    }

    /// Verifies a `JWSTransaction` (`signedTransactionInfo`, StoreKit 2 `jwsRepresentation`)
    /// and reads it into Apple's model. Throws VerificationError (a payload of another kind
    /// is INVALID_JWT_FORMAT), or DecodingError for signed data the model cannot read.
    public func verifyTransaction(_ jws: String, now: Date, unsignedData: UnsignedData = .acceptedWhenConfigured)
        throws -> Verified<JWSTransactionDecodedPayload> {
        try verify(jws, as: .transaction, model: JWSTransactionDecodedPayload.self, now: now, unsignedData: unsignedData)
    }

    /// Verifies a `JWSRenewalInfo` (`signedRenewalInfo`) and reads it into Apple's model.
    public func verifyRenewalInfo(_ jws: String, now: Date, unsignedData: UnsignedData = .acceptedWhenConfigured)
        throws -> Verified<JWSRenewalInfoDecodedPayload> {
        try verify(jws, as: .renewalInfo, model: JWSRenewalInfoDecodedPayload.self, now: now, unsignedData: unsignedData)
    }

    /// Verifies a `JWSAppTransaction` (StoreKit 2 `AppTransaction.jwsRepresentation`).
    public func verifyAppTransaction(_ jws: String, now: Date, unsignedData: UnsignedData = .acceptedWhenConfigured)
        throws -> Verified<AppTransaction> {
        try verify(jws, as: .appTransaction, model: AppTransaction.self, now: now, unsignedData: unsignedData)
    }

    /// Verifies a Retention Messaging realtime request's `signedPayload` (Apple-signed only:
    /// Apple alone calls the endpoint) and reads it into Apple's model; the app is the one its
    /// `appAppleId` names.
    public func verifyRealtimeRequest(_ signedPayload: String, now: Date) throws -> Verified<DecodedRealtimeRequestBody> {
        try verify(signedPayload, as: .realtimeRequest, model: DecodedRealtimeRequestBody.self, now: now, unsignedData: .refused)
    }

    private func verify<Model: Decodable & Sendable>(_ jws: String, as type: SignedDataType, model: Model.Type, now: Date,
                                                     unsignedData: UnsignedData) throws -> Verified<Model> {
        let signed = try verify(jws, as: type, now: now, unsignedData: unsignedData)
        return Verified(payload: try signed.decode(model), signed: signed)
    }

    /// Verifies a notification's `signedPayload` and each JWS nested in it, and reads them
    /// into Apple's models. A notification without `notificationUUID` or `signedDate`, or
    /// that the models cannot read, is refused (INVALID_JWT_FORMAT): it could be neither
    /// deduplicated, ordered nor applied.
    ///
    /// `models: .envelope` (the webhook: it stores the verified JSON, and the worker reads the
    /// nested payloads when it applies them) leaves `transaction`, `renewalInfo` and
    /// `appTransaction` nil; the JWS nested in the notification are verified all the same.
    public func verifyNotification(_ signedPayload: String, now: Date, unsignedData: UnsignedData = .acceptedWhenConfigured,
                                   models: NotificationModels = .all) throws(VerificationError) -> VerifiedNotification {
        let signed = try verify(signedPayload, as: .notification, now: now, unsignedData: unsignedData)
        do {
            let payload = try signed.decode(ResponseBodyV2DecodedPayload.self)
            guard let notificationUUID = payload.notificationUUID, let signedDate = payload.signedDate else {
                throw VerificationError(.invalidJWTFormat, "notification without notificationUUID or signedDate")
            }
            let nested = models == .all
            return VerifiedNotification(
                payload: payload, notificationUUID: notificationUUID, signedDate: signedDate,
                transaction: try signed.transactionInfo.flatMap { nested ? try signed.decode(JWSTransactionDecodedPayload.self, from: $0) : nil },
                renewalInfo: try signed.renewalInfo.flatMap { nested ? try signed.decode(JWSRenewalInfoDecodedPayload.self, from: $0) : nil },
                appTransaction: try signed.appTransactionInfo.flatMap { nested ? try signed.decode(AppTransaction.self, from: $0) : nil },
                signed: signed)
        } catch let error as VerificationError {
            throw error
        } catch {
            throw VerificationError(.invalidJWTFormat, "notification does not read as Apple documents it: \(error)")
        }
    }

    /// Verifies `jws` as `type` (inferred from the payload when nil; when given, the payload
    /// must be of that kind), answering the verified JSON untyped, for callers that pass it
    /// on as it is (`verify-signed-data`). `now` is used when the payload carries no signing time.
    public func verify(_ jws: String, as type: SignedDataType? = nil, now: Date,
                       unsignedData: UnsignedData = .acceptedWhenConfigured) throws(VerificationError) -> VerifiedSignedData {
        let (parsed, payload, claims) = try read(jws)
        guard let resolvedType = type ?? claims.inferredType else {
            throw VerificationError(.invalidJWTFormat, "payload is not a notification, transaction, renewal info, app transaction or realtime request")
        }
        guard claims.inferredType == resolvedType else {
            throw VerificationError(.invalidJWTFormat,
                                    "payload is \(claims.inferredType.map { "a \($0.rawValue)" } ?? "of no known kind"), not a \(resolvedType.rawValue)")
        }
        let declaredEnvironment = claims.environment(for: resolvedType)
        let environment = declaredEnvironment.flatMap(Environment.init(rawValue:))
        let signingTime = claims.signingTime(for: resolvedType)

        // Apple's libraries decode StoreKit Testing data without any chain when their
        // environment is Xcode; its x5c is one self-signed certificate, so it is not even
        // looked at here.
        let skipSignature = unsignedData == .acceptedWhenConfigured && environment.map {
            !$0.isSignedByApple && configuration.acceptedEnvironments.contains($0)
        } ?? false
        var revocationOutcome = RevocationOutcome.notChecked
        if !skipSignature {
            revocationOutcome = try checkChainAndSignature(parsed, signingTime: signingTime, now: now)
        }

        let app = try checkAppIdentity(claims, type: resolvedType, environment: environment)
        guard let environment, (app?.environments ?? configuration.acceptedEnvironments).contains(environment) else {
            throw VerificationError.environmentNotAccepted(declaredEnvironment)
        }
        var nested = NestedPayloads()
        if resolvedType == .notification, let scope = claims.notificationScope {
            nested = try verifyNested(in: scope, environment: environment, bundleId: app?.bundleId, now: now,
                                      unsignedData: unsignedData)
        }
        return VerifiedSignedData(
            type: resolvedType, environment: environment, bundleId: app?.bundleId, payload: payload.encoded(), signedDate: signingTime,
            transactionInfo: nested.transactionInfo, renewalInfo: nested.renewalInfo,
            appTransactionInfo: nested.appTransactionInfo, signatureSkipped: skipSignature, revocation: revocationOutcome)
    }

    /// Step 1, shape: compact JWS, ES256, no critical parameters, a payload that is strict
    /// JSON with the claims of the documented types. The payload is read strictly and what
    /// is kept is that reading re-encoded, so no later reader can see other fields than the
    /// checks saw.
    private func read(_ jws: String) throws(VerificationError) -> (CompactJWS, StrictJSON, SignedPayloadClaims) {
        let parsed: CompactJWS
        do {
            parsed = try CompactJWS(parsing: jws)
        } catch {
            throw VerificationError(.invalidJWTFormat, error.reason)
        }
        guard parsed.header.alg == "ES256" else {
            throw VerificationError(.invalidJWTFormat, "algorithm \(parsed.header.alg) is not ES256")
        }
        if let critical = parsed.header.crit, !critical.isEmpty {
            throw VerificationError(.invalidJWTFormat, "unsupported critical header parameters")
        }
        do {
            let payload = try StrictJSON.parse(parsed.payload)
            return (parsed, payload, try SignedPayloadClaims(payload))
        } catch let error as StrictJSON.FormatError {
            throw VerificationError(.invalidJWTFormat, "payload is not strict JSON: \(error)")
        } catch {
            throw VerificationError(.invalidJWTFormat, "payload is not a JSON object of the expected shape")
        }
    }

    /// Steps 2–3: the x5c chain to a configured root, then the signature with the leaf's key.
    private func checkChainAndSignature(_ jws: CompactJWS, signingTime: Date?, now: Date) throws(VerificationError) -> RevocationOutcome {
        guard let x5c = jws.header.x5c, x5c.count == AppleCertificatePolicy.chainLength else {
            throw VerificationError(.invalidJWTFormat, "x5c must hold exactly \(AppleCertificatePolicy.chainLength) certificates")
        }
        // Online checks validate at the current time (a revoked certificate must fail now);
        // offline, at the time Apple signed, as Apple's libraries do.
        let validationTime = onlineChecks ? now : (signingTime ?? now)
        let chain = try verifiedLeafKey(x5c: x5c, at: validationTime, now: now)
        guard chain.key.isValidES256Signature(jws.signature, for: jws.signingInput) else {
            throw VerificationError(.verificationFailure, "signature does not match the leaf certificate")
        }
        return chain.revocation
    }

    /// The verified payloads of a notification's nested JWS.
    private struct NestedPayloads {
        var transactionInfo: [UInt8]?
        var renewalInfo: [UInt8]?
        var appTransactionInfo: [UInt8]?
    }

    /// The nested JWS are Apple-signed in their own right: verify them, never trust them
    /// because the envelope verified; each must be the kind its field names, of the
    /// envelope's environment.
    private func verifyNested(in scope: SignedPayloadClaims.NotificationScope, environment: Environment, bundleId: String?,
                              now: Date, unsignedData: UnsignedData) throws(VerificationError) -> NestedPayloads {
        func nested(_ signed: String?, _ field: String, as kind: SignedDataType) throws(VerificationError) -> [UInt8]? {
            guard let signed else { return nil }
            let inner: VerifiedSignedData
            do {
                inner = try verify(signed, as: kind, now: now, unsignedData: unsignedData)
            } catch let error where error.kind == .invalidEnvironment {
                throw VerificationError(.invalidEnvironment, "\(field): \(error.reason); the notification declares \(environment.rawValue)")
            } catch {
                throw VerificationError(error.kind, "\(field): \(error.reason)")
            }
            guard inner.environment == environment else {
                throw VerificationError(.invalidEnvironment,
                                        "\(field) declares environment \(inner.environment.rawValue), the notification \(environment.rawValue)")
            }
            // Several apps are served: a notification for one never carries another's data.
            if let innerApp = inner.bundleId, innerApp != bundleId {
                throw VerificationError(.invalidAppIdentifier, "\(field) is for \(innerApp), the notification for \(bundleId ?? "(none)")")
            }
            return inner.payload
        }
        return NestedPayloads(
            transactionInfo: try nested(scope.signedTransactionInfo, "signedTransactionInfo", as: .transaction),
            renewalInfo: try nested(scope.signedRenewalInfo, "signedRenewalInfo", as: .renewalInfo),
            appTransactionInfo: try nested(scope.signedAppTransactionInfo, "signedAppTransactionInfo", as: .appTransaction))
    }

    /// The leaf's public key once the chain is proven at `time`: from this process's cache,
    /// else from the store's, else by parsing and validating the chain (and, with online
    /// checks, OCSP), remembering the result in both.
    private func verifiedLeafKey(x5c: [String], at time: Date, now: Date) throws(VerificationError) -> VerifiedChainCache.Entry {
        if let entry = chains.entry(leaf: x5c[0], intermediate: x5c[1], now: now), isUsable(entry, at: time, now: now) {
            return entry
        }
        let storeKey = StoreKeys.verifiedChain(leaf: x5c[0], intermediate: x5c[1],
                                               roots: try configuration.trustAnchors.identity())
        if let entry = cachedChain(storeKey), isUsable(entry, at: time, now: now) {
            chains.insert(leaf: x5c[0], intermediate: x5c[1], entry, now: now)
            return entry
        }
        let online = onlineChecks
        guard let leafDER = Base64.decode(x5c[0]),
              let intermediateDER = Base64.decode(x5c[1])
        else { throw VerificationError(.invalidCertificate, "x5c entry is not base64") }
        let leaf: Certificate
        let intermediate: Certificate
        do {
            leaf = try Certificate(der: leafDER)
            intermediate = try Certificate(der: intermediateDER)
        } catch {
            throw VerificationError(.invalidCertificate, "x5c certificate does not parse")
        }
        try AppleCertificatePolicy.check(leaf: leaf, intermediate: intermediate)
        let trustStore = try configuration.trustAnchors.trustStore()
        let chain: [Certificate]
        do {
            chain = try trustStore.verifyChain(leaf: leaf, intermediates: [intermediate], at: time)
        } catch {
            throw VerificationError(.invalidCertificate, "\(error)")
        }
        let key: ECPublicKey
        do {
            key = try leaf.publicKey()
        } catch {
            throw VerificationError(.invalidCertificate, "leaf key is not P-256")
        }
        var outcome = RevocationOutcome.notChecked
        var freshUntil: Date?
        if online, let revocation {
            (outcome, freshUntil) = try revocation.check(chain: chain, trustStore: trustStore, now: now)
        }
        // A soft-failed check is remembered in this process only, and only briefly: a batch
        // verified during a responder outage must not re-validate the chain for every JWS.
        let processFreshUntil = online && freshUntil == nil ? now.addingTimeInterval(60) : freshUntil
        let entry = VerifiedChainCache.Entry(
            key: key,
            validFrom: chain.map(\.notBefore).max() ?? leaf.notBefore,
            validUntil: chain.map(\.notAfter).min() ?? leaf.notAfter,
            revocationFreshUntil: processFreshUntil,
            revocation: outcome)
        chains.insert(leaf: x5c[0], intermediate: x5c[1], entry, now: now)
        // Only a chain whose online status is settled is shared: a soft-failed check is
        // tried again by the next process.
        if !online || freshUntil != nil {
            storeChain(entry, key: storeKey, now: now)
        }
        return entry
    }

    /// Whether a chain proven before still serves: it covers `time` and, with online
    /// checks, its revocation status is still fresh.
    private func isUsable(_ entry: VerifiedChainCache.Entry, at time: Date, now: Date) -> Bool {
        entry.covers(time) && (!onlineChecks || (entry.revocationFreshUntil.map { now < $0 } ?? false))
    }

    private func cachedChain(_ key: String) -> VerifiedChainCache.Entry? {
        guard let chainStore, let stored = try? chainStore.get(key),
              let cached = try? JSONDecoder().decode(CachedChain.self, from: Data(stored.bytes)),
              let spki = Data(base64Encoded: cached.leafKey),
              let publicKey = try? ECPublicKey(spkiDER: Array(spki))
        else { return nil }
        return VerifiedChainCache.Entry(
            key: publicKey,
            validFrom: Date(millisecondsSince1970: cached.validFrom),
            validUntil: Date(millisecondsSince1970: cached.validUntil),
            revocationFreshUntil: cached.revocationFreshUntil.map(Date.init(millisecondsSince1970:)),
            revocation: cached.revocationFreshUntil == nil ? .notChecked : .good)
    }

    /// A failed write is not an error: the chain was proven, only not remembered.
    private func storeChain(_ entry: VerifiedChainCache.Entry, key: String, now: Date) {
        guard let chainStore else { return }
        let cached = CachedChain(
            leafKey: Data(entry.key.spkiDER).base64EncodedString(),
            validFrom: entry.validFrom.millisecondsSince1970,
            validUntil: entry.validUntil.millisecondsSince1970,
            revocationFreshUntil: entry.revocationFreshUntil.map(\.millisecondsSince1970))
        var lifetime = CachedChain.lifetime
        if let fresh = entry.revocationFreshUntil {
            let remaining = fresh.timeIntervalSince(now)
            lifetime = .milliseconds(Int64(max(1, min(remaining, 86_400)) * 1000))
        }
        guard let bytes = try? JSONEncoder().encode(cached) else { return }
        try? chainStore.set(key, Array(bytes), expiresIn: lifetime)
    }

    /// Step 4: the app the data names, which the deployment must serve; nil for renewal
    /// info, which names none.
    private func checkAppIdentity(_ claims: SignedPayloadClaims, type: SignedDataType,
                                  environment: Environment?) throws(VerificationError) -> CatalogApp? {
        let bundleId: String?
        let appAppleId: Int64?
        switch type {
        case .notification:
            bundleId = claims.notificationScope?.bundleId
            appAppleId = claims.notificationScope?.appAppleId
        case .appTransaction:
            bundleId = claims.bundleId
            appAppleId = claims.appAppleId
        case .transaction:
            bundleId = claims.bundleId
            appAppleId = nil
        case .renewalInfo:
            // Renewal info carries no bundle id; its environment is still checked.
            return nil
        case .realtimeRequest:
            return try realtimeRequestApp(claims, environment: environment)
        }
        guard let app = configuration.app(bundleId: bundleId) else {
            throw VerificationError(.invalidAppIdentifier,
                                    "bundle id \(bundleId.map { String($0.prefix(200)) } ?? "(none)") is not \(configuration.apps.map(\.bundleId).joined(separator: " or "))")
        }
        // Apple omits appAppleId from sandbox data; in Production it must be this app's.
        // (Production data for an app that does not accept Production is refused by the
        // environment check that follows, which says so more plainly.)
        if environment == .production, app.environments.contains(.production),
           type == .notification || type == .appTransaction {
            guard let expected = app.appAppleId, appAppleId == expected else {
                throw VerificationError(.invalidAppIdentifier, "App Apple ID \(appAppleId.map(String.init) ?? "(none)") is not \(app.bundleId)'s")
            }
        }
        return app
    }

    /// A realtime request names its app by App Apple ID only. Apple's libraries compare it in
    /// Production only (they serve one app); a deployment of several apps needs it to know
    /// whose rules answer, so one that is given must be one of the catalog's, in every
    /// environment. Sandbox data without one (as sandbox notifications come), or for a one-app
    /// deployment that was given none, is the only app's.
    private func realtimeRequestApp(_ claims: SignedPayloadClaims, environment: Environment?) throws(VerificationError) -> CatalogApp {
        if let id = claims.appAppleId, let app = configuration.apps.first(where: { $0.appAppleId == id }) {
            return app
        }
        if environment != .production, configuration.apps.count == 1, let only = configuration.apps.first,
           only.appAppleId == nil || claims.appAppleId == nil {
            return only
        }
        throw VerificationError(.invalidAppIdentifier,
                                "App Apple ID \(claims.appAppleId.map(String.init) ?? "(none)") is not one of this deployment's apps")
    }
}
