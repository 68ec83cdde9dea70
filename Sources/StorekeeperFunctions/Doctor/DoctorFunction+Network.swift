import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// The checks that ask another machine: the public notification URL, and Apple's clock.
extension DoctorFunction {
    /// Apple checks a token's `iat` and `exp` against its own clock: a host clock this far off
    /// has its tokens refused, and its notion of "expired" differs from Apple's.
    static let clockTolerance: TimeInterval = 60

    /// A body receive-notification refuses at its first step (not a JWS): nothing is stored,
    /// queued or logged as Apple's, and the answer shows the route and its error shape.
    static let probeBody = Array(#"{"signedPayload":"storekeeper-doctor-probe"}"#.utf8)

    /// Storekeeper's error shape: `{"error": {"code": "...", "message": "..."}}`.
    private struct ErrorShape: Decodable {
        struct Body: Decodable {
            var code: String
            var message: String
        }

        var error: Body
    }

    func notificationCheck(_ url: String?) -> DoctorCheck {
        let name = "notification-url"
        guard let url else {
            return .skipped(name, "no notification URL given (--notification-url URL, or notificationURL in the request)")
        }
        let response: HTTPResponse
        do {
            let request = HTTPRequest(method: "POST", url: url, headers: [("Content-Type", "application/json")], body: Self.probeBody,
                                      connectTimeout: .seconds(5), timeout: .seconds(15), maximumResponseBytes: 64 << 10)
            response = try context.adapters.http().send(request)
        } catch let error as HTTPError {
            let what = switch error.kind {
            case .tlsFailure: "the TLS handshake failed (Apple requires a certificate a public CA signs, TLS 1.2 or later)"
            case .timedOut: "it did not answer in time"
            case .connectionFailed: "no connection could be made"
            default: "the request failed"
            }
            return .problem(name, "\(url): \(what): \(error.reason)")
        } catch {
            return .problem(name, "\(url): \(Self.message(error))")
        }
        let shape = try? JSONDecoder().decode(ErrorShape.self, from: Data(response.body))
        switch response.status {
        case 400 where shape != nil:
            return .ok(name, "\(url) answered 400 \(shape?.error.code ?? "") to an unsigned probe, in Storekeeper's error shape: Apple's notifications reach receive-notification")
        case 400:
            return .warning(name, "\(url) answered 400, but not in Storekeeper's error shape: is receive-notification behind this URL?")
        case 200...299:
            return .problem(name, "\(url) answered \(response.status) to an unsigned probe: whatever answers there does not verify what Apple sends")
        case 300...399:
            return .problem(name, "\(url) answered \(response.status), a redirect (to \(response.header("location") ?? "nowhere")): give Apple the final URL")
        case 401, 403:
            return .problem(name, "\(url) answered \(response.status): something in front asks for credentials Apple does not send")
        case 404:
            return .problem(name, "\(url) answered 404: no route there (receive-notification is served at /appstore/notifications)")
        case 503 where shape?.error.code == FunctionErrorCode.storeUnavailable.rawValue:
            return .problem(name, "\(url) answered 503 store_unavailable: receive-notification cannot reach its store, so Apple's notifications wait")
        default:
            return .problem(name, "\(url) answered \(response.status)" + (shape.map { " \($0.error.code)" } ?? "") + ": Apple's notifications would not be accepted")
        }
    }

    func clockCheck() -> DoctorCheck {
        let name = "clock"
        let base: String
        do {
            base = try environment.value(StorekeeperSettings.apiBaseURL).map { AppStoreAPIBaseURLs.overridden($0).production }
                ?? AppStoreAPIBaseURLs.apple.production
        } catch {
            return .problem(name, Self.message(error))
        }
        let response: HTTPResponse
        // The real wall time, never the pinned now(): this machine's clock is what is checked.
        let sent = context.clock.realNow()
        do {
            let request = HTTPRequest(method: "HEAD", url: base + "/", connectTimeout: .seconds(3), timeout: .seconds(8))
            response = try context.adapters.http().send(request)
        } catch let error as HTTPError {
            return .skipped(name, "\(base) is unreachable from here (\(error.reason)): the clock was not compared")
        } catch {
            return .skipped(name, "\(base) could not be asked (\(Self.message(error))): the clock was not compared")
        }
        let received = context.clock.realNow()
        guard let header = response.header("date"), let appleTime = HTTPDate.parse(header) else {
            return .skipped(name, "\(base) answered \(response.status) without a Date header: the clock was not compared")
        }
        // Against the middle of the exchange; the header has whole seconds, so up to 1 s of
        // the difference is its rounding.
        let local = sent.addingTimeInterval(received.timeIntervalSince(sent) / 2)
        let offset = local.timeIntervalSince(appleTime)
        let words = Self.seconds(abs(offset)) + (offset >= 0 ? " ahead of" : " behind")
        guard abs(offset) <= Self.clockTolerance else {
            return .problem(name, "this machine's clock is \(words) \(base) (Date: \(header)); Apple refuses tokens dated more than a minute off: run NTP (chrony, systemd-timesyncd)")
        }
        return .ok(name, "this machine's clock is \(words) \(base) (allowed \(Int(Self.clockTolerance)) s)")
    }

    private static func seconds(_ value: TimeInterval) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
