import FoundationEssentials
import OpenSSLCrypto

/// After an outage: read what Apple sent during a window from Get Notification History and
/// feed every `signedPayload` through the very `NotificationInbox` the webhook uses: the same
/// verification, the same deduplication by notificationUUID, the same queue. A notification
/// that did arrive is a duplicate and changes nothing; a missing one is queued as if Apple had
/// just delivered it.
///
/// Resumable: the pagination token of the next page is saved after each page, so a killed or
/// out-of-time run continues with that page (its notifications that were already queued are
/// duplicates then, nothing more).
public final class NotificationRecovery {
    private let store: any KeyValueStore
    private let inbox: NotificationInbox
    private let source: any NotificationHistorySource
    private let clock: any TimeSource

    public init(store: any KeyValueStore, inbox: NotificationInbox, source: any NotificationHistorySource, clock: any TimeSource) {
        self.store = store
        self.inbox = inbox
        self.source = source
        self.clock = clock
    }

    /// The next page of an unfinished run, and the exact question it belongs to: Apple wants
    /// the same body with a pagination token, and a question left open-ended ("until now")
    /// must resume as it was first asked, not with a later end.
    struct Cursor: Codable {
        var paginationToken: String
        var query: NotificationHistoryRequest
    }

    /// Apple's pagination tokens do not last; an unfinished run older than this starts over.
    static let cursorLifetime: Duration = .seconds(24 * 3600)

    /// Apple's answers to a pagination token it no longer honours.
    static let stalePaginationTokenCodes: Set<String> = ["PaginationTokenExpiredError", "InvalidPaginationTokenError"]

    /// Reads pages until the end or until `outOfTime()` says so (asked before each page).
    /// `cursorName` names the saved cursor (`cursorName(asked:environment:)`: the question as
    /// the operator put it, before defaults such as an end of "now"); `query` is the question
    /// with its defaults filled in. Throws when the store fails or Apple refuses a page (after
    /// the client's retries); the cursor keeps what was done.
    public func run(_ query: NotificationHistoryRequest, cursorName: String? = nil, restart: Bool = false,
                    outOfTime: () -> Bool) throws -> RecoveryReport {
        let cursorKey = StoreKeys.recoveryCursor(requestDigest: cursorName ?? Self.cursorName(asked: query, environment: ""))
        var report = RecoveryReport()
        var query = query
        var token: String?
        if restart {
            _ = try store.delete(cursorKey)
        } else if let saved = try store.get(cursorKey),
                  let cursor = try? JSONDecoder().decode(Cursor.self, from: Data(saved.bytes)) {
            token = cursor.paginationToken
            query = cursor.query
            report.resumed = true
        }
        let fresh = query
        while true {
            if outOfTime() {
                report.outOfTime = true
                return report
            }
            let page: NotificationHistoryPage
            do {
                page = try source.page(query, paginationToken: token)
            } catch where token != nil && report.pages == 0 && Self.stalePaginationTokenCodes.contains(error.code) {
                // The saved page is gone at Apple: start the question again from its first page.
                // What was queued already comes back as duplicates, which change nothing.
                _ = try store.delete(cursorKey)
                token = nil
                query = fresh
                report.restartedFromFirstPage = true
                continue
            } catch {
                report.stoppedBy = error.code
                if error.retryable { throw RecoveryError.appleUnavailable(error, report) }
                throw RecoveryError.appleRefused(error, report)
            }
            report.pages += 1
            for item in page.items {
                try receive(item, into: &report)
            }
            guard page.hasMore, let next = page.paginationToken else { break }
            token = next
            try store.set(cursorKey, Reconciler.encode(Cursor(paginationToken: next, query: query)), expiresIn: Self.cursorLifetime)
        }
        _ = try store.delete(cursorKey)
        return report
    }

    private func receive(_ item: NotificationHistoryPage.Item, into report: inout RecoveryReport) throws {
        report.fetched += 1
        if let first = item.sendAttemptResults.first {
            report.firstSendAttemptResults[first, default: 0] += 1
        }
        let outcome: Result<NotificationInbox.Receipt, VerificationError>
        do {
            outcome = .success(try inbox.receive(signedPayload: item.signedPayload, now: clock.now(), via: "recovery").receipt)
        } catch let error as VerificationError {
            outcome = .failure(error)
        }
        // A StoreError (or anything else) escapes: the page is not finished, the cursor stays.
        switch outcome {
        case .success(.accepted):
            report.queued += 1
        case .success(.duplicate):
            report.alreadyKnown += 1
        case .success(.droppedEnvironment):
            report.otherEnvironment += 1
        case .failure(let error) where error.isRetryable:
            throw error
        case .failure(let error):
            report.invalid[error.code, default: 0] += 1
        }
    }

    /// The cursor's name: the same question, to the same environment, resumes; a different
    /// one starts afresh.
    public static func cursorName(asked query: NotificationHistoryRequest, environment: String) -> String {
        let encoded = Array(environment.utf8) + [0] + Reconciler.encode(query)
        return String(Hex.encode(Digest.sha256(encoded)).prefix(32))
    }
}

/// Recovery stopped because Apple did not answer a page; the report says how far it got.
public enum RecoveryError: Error {
    case appleUnavailable(NotificationHistoryFailure, RecoveryReport)
    case appleRefused(NotificationHistoryFailure, RecoveryReport)
}
