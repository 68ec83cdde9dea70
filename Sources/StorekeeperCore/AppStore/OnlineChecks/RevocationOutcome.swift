/// What the online checks concluded about a chain, reported with verified data so the
/// caller can log it (a soft-failed check is accepted, but never silently).
public enum RevocationOutcome: Sendable, Equatable {
    /// Online checks are off (`APPSTORE_ONLINE_CHECKS=off`).
    case notChecked
    /// Leaf and intermediate are known good (fresh OCSP answers, from the responder or the store).
    case good
    /// The responder could not be reached; a good answer under 24 hours old was used.
    case cachedWhileUnreachable
    /// Soft policy: the responder could not be reached (or answered unusably) and no recent
    /// good answer was known: accepted, unchecked.
    case unchecked(reason: String)
}
