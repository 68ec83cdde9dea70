/// Whether and how certificates of App Store signed data are checked for revocation online
/// (OCSP), as `APPSTORE_ONLINE_CHECKS` sets it.
///
/// The field report behind Storekeeper learnt this the hard way: a hard policy turns any
/// short outage of Apple's OCSP responder into frozen purchases, so `soft` is the default.
public enum OnlineCheckPolicy: String, Sendable, CaseIterable {
    /// No OCSP; the chain is validated at the data's signedDate, as Apple's libraries do
    /// with online checks off.
    case off
    /// OCSP at the current time; an unreachable responder is accepted (using a cached good
    /// answer under 24 hours old when there is one, otherwise accepted and reported as unchecked).
    case soft
    /// OCSP at the current time; an unreachable responder is RETRYABLE_VERIFICATION_FAILURE.
    case hard
}
