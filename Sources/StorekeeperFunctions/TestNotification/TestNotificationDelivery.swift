import StorekeeperCore

/// test-notification's conversation with Apple: request a test notification, then ask for
/// its status until Apple reports a send attempt or the time is up.
struct TestNotificationDelivery {
    let client: AppStoreServerAPIClient
    /// Paces the polls on its monotonic clock.
    let time: any TimeSource
    let environment: AppStoreAPIEnvironment

    /// Asks Apple to send one; its token names it in the polls.
    func requestTestNotification() throws(AppStoreAPIError) -> String {
        guard let token = try client.requestTestNotification(environment: environment).value.testNotificationToken else {
            throw AppStoreAPIError(.invalidResponse, kind: .invalidResponse,
                                   reason: "Apple's answer has no testNotificationToken", httpStatus: 200)
        }
        return token
    }

    /// Apple's last status and how many times it was asked.
    struct Report {
        var status: CheckTestNotificationResponse?
        var polls: Int
    }

    /// Polls the status until Apple reports an attempt, or until one more interval would pass
    /// the timeout.
    func waitForReport(token: String, interval: Duration, timeout: Duration) throws(AppStoreAPIError) -> Report {
        let started = time.monotonic()
        var report = Report(status: nil, polls: 0)
        while true {
            report.polls += 1
            report.status = try poll(token: token)
            if let attempts = report.status?.sendAttempts, !attempts.isEmpty { break }
            if time.monotonic() - started + interval > timeout { break }
            time.sleep(for: interval)
        }
        return report
    }

    /// One status poll; Apple's "not found yet" counts as nothing reported.
    private func poll(token: String) throws(AppStoreAPIError) -> CheckTestNotificationResponse {
        do {
            return try client.getTestNotificationStatus(testNotificationToken: token, environment: environment).value
        } catch {
            if error.errorCode == 4040008 { return CheckTestNotificationResponse(signedPayload: nil, sendAttempts: []) }
            throw error
        }
    }
}
