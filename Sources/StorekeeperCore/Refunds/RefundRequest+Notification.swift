/// How a refund request is read from the notification that announces it.
extension RefundRequest {
    /// The request a stored `CONSUMPTION_REQUEST` announces (or, from a REFUND / REFUND_DECLINED,
    /// the transaction it decides); nil without a transaction (Apple always signs one; a
    /// notification without it has nothing to answer for).
    public init?(consumptionRequest notification: StoredNotification) {
        guard let transaction = notification.transactionInfo, let transactionId = transaction.transactionId,
              !transactionId.isEmpty else { return nil }
        let data = notification.payload.data
        guard let bundleId = data?.bundleId ?? transaction.bundleId,
              let environment = data?.rawEnvironment ?? transaction.rawEnvironment else { return nil }
        self.init(bundleId: bundleId, environment: environment, transactionId: transactionId,
                  originalTransactionId: transaction.originalTransactionId ?? transactionId,
                  productId: transaction.productId, productType: transaction.rawType,
                  inAppOwnershipType: transaction.rawInAppOwnershipType, purchaseDate: transaction.purchaseDate,
                  appAccountToken: transaction.appAccountToken,
                  consumptionRequestReason: data?.rawConsumptionRequestReason,
                  notificationUUID: notification.notificationUUID, signedDate: notification.signedDate,
                  receivedAt: notification.receivedAt, deadline: notification.signedDate + Self.answerWindow,
                  state: .open)
    }
}
