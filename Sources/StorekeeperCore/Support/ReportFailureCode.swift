/// Storekeeper's own codes for one subscription's failure inside a report (reconcile's
/// `failed` counts, migrate-receipt's per-purchase `failure`), beside Apple's error names and
/// the verification codes. They carry no status of their own: the report's answer has one.
public enum ReportFailureCode: String, CaseIterable, Sendable {
    /// Apple does not know the subscription (in this environment).
    case notFound = "not_found"
    /// Apple's signed answer verified but does not decode as what it should be.
    case invalidPayload = "invalid_payload"
}
