/// The flat columns of an event in a CSV export (NDJSON carries each event whole, as
/// delivered). Documented in the README ("export-data"); new columns go at the end.
public enum EventExportRow {
    public static let columns: [(name: String, cell: @Sendable (Event) -> ExportCell)] = [
        ("id", { .text($0.id) }),
        ("sequence", { .integer($0.sequence) }),
        ("type", { .text($0.type) }),
        ("occurredAt", { .date($0.occurredAt) }),
        ("recordedAt", { .date($0.recordedAt) }),
        ("app", { .text($0.app) }),
        ("environment", { .text($0.environment) }),
        ("customerId", { .text($0.customerId) }),
        ("userId", { .text($0.userId) }),
        ("productId", { .text($0.productId) }),
        ("transactionId", { .text($0.transactionId) }),
        ("originalTransactionId", { .text($0.originalTransactionId) }),
        ("notificationUUID", { .text($0.notificationUUID) }),
        ("notificationType", { .text($0.notificationType) }),
        ("notificationSubtype", { .text($0.notificationSubtype) }),
        ("source", { .text($0.source) }),
        ("customerVersion", { .integer($0.customerVersion) }),
        ("previousCustomerId", { .text($0.previousCustomerId) }),
        ("entitlement", { .text($0.entitlement) }),
        ("grantId", { .text($0.grantId) }),
    ]

    public static var columnNames: [String] { columns.map(\.name) }

    public static func cells(_ event: Event) -> [ExportCell] { columns.map { $0.cell(event) } }
}
