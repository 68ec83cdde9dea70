/// Grants: an entitlement given by support until a date, and taken back. Each is a line of
/// the customer's timeline with who, when and why (`GRANT_ADDED`, `GRANT_REVOKED`).
extension CustomerRepository {
    /// Gives `userId` the entitlement until `expiresDate` (milliseconds). The entitlement must
    /// be one the catalog declares (an implied catalog takes any name) and `bundleId`, when
    /// given, one of its apps; the end must be after `action.date`.
    public func grant(_ entitlement: String, toUser userId: String, bundleId: String?, expiresDate: Int64,
                      catalog: Catalog, by action: SupportAction, grantId: String = RandomToken.hex128()) throws -> EntitlementGrant {
        try Self.checkGrantable(entitlement, bundleId: bundleId, in: catalog)
        guard expiresDate > action.date else {
            throw SupportError(.invalidRequest, "the grant would end before it starts (until must be after now)")
        }
        guard let reason = action.reason, !reason.isEmpty else { throw SupportError(.invalidRequest, "a grant needs a reason") }
        let grant = EntitlementGrant(grantId: grantId, entitlement: entitlement, bundleId: bundleId, grantedAt: action.date,
                                     expiresDate: expiresDate, reason: reason, grantedBy: action.actor)
        return try update(userId: userId) { record in
            guard record.deletedAt == nil else { throw SupportError(.customerDeleted, "the customer was deleted") }
            if let other = record.mergedInto {
                throw SupportError(.alreadyMerged, "\(userId) was merged into \(other): grant to \(other)")
            }
            if let existing = record.grants.first(where: { $0.grantId == grantId }) { return existing }
            record.grants.append(grant)
            record.record(action.entry(id: "grant:" + grantId, type: "GRANT_ADDED", entitlement: entitlement))
            record.outbox.append(.grant(grant, type: .grantAdded, userId: userId, at: action.date))
            return grant
        }
    }

    /// Ends a grant now. A grant revoked already stays as it was (a rerun changes nothing).
    public func revokeGrant(_ grantId: String, ofUser userId: String, by action: SupportAction) throws -> EntitlementGrant {
        guard let reason = action.reason, !reason.isEmpty else { throw SupportError(.invalidRequest, "a revocation needs a reason") }
        return try update(userId: userId) { record in
            guard let index = record.grants.firstIndex(where: { $0.grantId == grantId }) else {
                throw SupportError(.grantNotFound, "the customer has no grant \(grantId)")
            }
            guard record.grants[index].revokedAt == nil else { return record.grants[index] }
            record.grants[index].revokedAt = action.date
            record.record(action.entry(id: "revoke:" + grantId, type: "GRANT_REVOKED", entitlement: record.grants[index].entitlement))
            record.outbox.append(.grant(record.grants[index], type: .grantRevoked, userId: userId, at: action.date))
            return record.grants[index]
        }
    }

    /// The catalog must name the entitlement and the app. In an implied catalog (no
    /// STOREKEEPER_CATALOG) entitlements are named after products, so any name is one.
    static func checkGrantable(_ entitlement: String, bundleId: String?, in catalog: Catalog) throws {
        guard !entitlement.isEmpty else { throw SupportError(.invalidRequest, "entitlement is empty") }
        if let bundleId, catalog.app(bundleId: bundleId) == nil {
            throw SupportError(.invalidRequest, "bundleId \(bundleId.prefix(200)) is not one of this deployment's apps")
        }
        guard catalog.productsImplied || catalog.entitlements[entitlement] != nil else {
            throw SupportError(.unknownEntitlement, "the catalog declares no entitlement \(entitlement)")
        }
    }
}
