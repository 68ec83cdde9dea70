/// Transfers in the timeline: a purchase that moved from one user to another under the
/// move-to-latest policy is a `TRANSFER` line in both users' histories.
extension CustomerRepository {
    /// Records the move of `subscription` from `from` to `to` on both sides; `factId` names
    /// the fact that caused it, so a redelivery records nothing twice.
    func recordTransfer(of subscription: SubscriptionRef, productId: String?, from: String, to: String,
                        context: TransferContext, factId: String) throws {
        let originalTransactionId = subscription.originalTransactionId
        let action = SupportAction(actor: context.actor, date: context.date, reason: "transfer policy move-to-latest")
        let id = "transfer:" + subscription.member + ":" + factId
        var out = action.entry(id: id + ":out", type: "TRANSFER", otherUserId: to)
        out.subtype = "TRANSFERRED_OUT"
        out.productId = productId
        out.transactionId = originalTransactionId
        var into = out
        into.id = id + ":in"
        into.subtype = "TRANSFERRED_IN"
        into.otherUserId = from
        try update(userId: from) { $0.record(out) }
        try update(userId: to) { $0.record(into) }
    }
}
