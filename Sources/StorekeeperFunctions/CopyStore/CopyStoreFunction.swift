import FunctionRuntime
import StorekeeperCore

/// `copy-store`: every item of the store STORE_URL names (values with their expiries, sets,
/// queues with their jobs' states, the event log with its sequences) copied into the store
/// COPY_STORE_TARGET_URL names, resumably, then a verification that compares both; or, asked
/// to `verify`, the comparison alone. SQLite to Redis when a deployment grows, Redis to SQLite
/// for a local investigation.
public final class CopyStoreFunction: TypedFunction {
    public static let descriptor = FunctionDescriptor(
        name: "copy-store",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Copies every key of STORE_URL's store into COPY_STORE_TARGET_URL's (expiries, queues and the event log kept), resumably, then verifies that both hold the same.",
        request: """
            {} | {"verify": true}
              {}: copies every item (values with their expiries, sets, queues' jobs in their states, logs with
              their sequences, bounds and stream versions) page by page, then verifies. The progress is kept in
              the target (copy-store:progress): a run killed at any moment and started again goes on from its
              last page, adding no job or log entry twice. An item the target already holds alike is skipped,
              an expired value not copied; a leased job is copied as ready when its lease ends.
              verify: only compares the two stores, both ways (an item only in the target is a difference too),
              writing nothing (a missing SQLite target is created empty).
              A store that functions write meanwhile is not copied as of one moment: stop its writers, or run
              again until the verification passes.
            """,
        response: """
            {"target": "sqlite" | "redis", "copied": {"values", "setMembers", "jobs", "logEntries", "logStreams"},
             "skipped": {same}, "expired", "pages", "resumed",
             "verification": {"passed", "compared", "differenceCount", "differences": [{"item", "difference"}]},
             "milliseconds"}   (copied ... resumed only when copying; at most 20 differences listed)
              copy_differs: the verification found a difference: the same answer with "error", 503, exit 75.
              copy_same_store: COPY_STORE_TARGET_URL names STORE_URL's store: 500, exit 78.
              configuration_error: COPY_STORE_TARGET_URL unset or malformed: 500, exit 78. A store failure
              (either store): 503, exit 75; a key the source's Redis holds that Storekeeper did not write: 503, exit 75.
            """,
        variables: [
            .declared(RuntimeSettings.storeURL, "the store copied from (its STORE_TLS_* apply to it)"),
            .declared(StorekeeperSettings.copyTarget),
        ]
    )

    private let context: FunctionContext

    public init(context: FunctionContext) throws {
        self.context = context
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let started = context.clock.monotonic()
        let sourceLocation = try context.environment.required(RuntimeSettings.storeURL)
        let targetLocation = try context.environment.required(StorekeeperSettings.copyTarget)
        let sourceIdentity = StoreIdentity(sourceLocation)
        guard sourceIdentity != StoreIdentity(targetLocation) else {
            throw CopyError(.sameStore, "COPY_STORE_TARGET_URL names the store STORE_URL names: copy-store copies one store into another")
        }
        let copier = StoreCopier(source: try source(), target: try target(targetLocation),
                                 sourceIdentity: sourceIdentity.digest, time: context.clock)
        let kind = StoreIdentity.kind(targetLocation)
        context.log.info(request.verify == true ? "store_verify_started" : "store_copy_started", ["target": kind])
        let copy = request.verify == true ? nil : try copier.copy()
        let verification = try copier.verify(limit: Self.differenceLimit)
        var response = Response(
            target: kind, copied: copy?.copied, skipped: copy?.skipped, expired: copy?.expired, pages: copy?.pages,
            resumed: copy?.resumed,
            verification: Verification(passed: verification.passed, compared: verification.compared,
                                       differenceCount: verification.differenceCount, differences: verification.differences),
            milliseconds: (context.clock.monotonic() - started).wholeMilliseconds)
        guard verification.passed else {
            let error = CopyError(.differs, "the stores differ in \(verification.differenceCount) items; with the writers stopped, run copy-store again")
            response.error = ErrorField(code: error.code, message: error.reason)
            context.log.warning("store_copy_differs", Self.fields(response))
            return Reply(response, status: error.disposition.httpStatus, exitCode: error.disposition.exitCode)
        }
        context.log.info(copy == nil ? "store_verified" : "store_copied", Self.fields(response))
        return Reply(response)
    }

    /// STORE_URL's store, opened (and its layout checked) as every function opens it.
    private func source() throws -> any StoreContents {
        guard let store = try context.adapters.store() as? any StoreContents else {
            throw FunctionError.configuration("this process's store cannot be walked")
        }
        return store
    }

    /// The target, refused when a newer Storekeeper wrote it: the copy would write an older layout into it.
    private func target(_ location: StoreLocation) throws -> any StoreContents {
        let store = try context.adapters.otherStore(location)
        if let mark = try store.get(StoreKeys.layoutVersion), let version = Int(String(decoding: mark.bytes, as: UTF8.self)),
           version > StoreLayout.currentVersion {
            throw StoreError(.invalidConfiguration, "the target store has layout version \(version), newer than this build's \(StoreLayout.currentVersion)")
        }
        return store
    }
}
