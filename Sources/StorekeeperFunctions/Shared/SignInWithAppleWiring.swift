import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// What each Sign in with Apple function is built from and reaches for on every request: its
/// context and the `SIWA_*` settings of the parts it uses, the store, the clock and the
/// sign-in steps wired to this process's adapters. One place, so the functions do not each
/// repeat the wiring.
struct SignInWithAppleWiring {
    /// The `--help` line of every function that makes a client secret (`callingApple`): the
    /// disposition of `invalid_client` and `unauthorized_client` is our configuration.
    static let clientRefusedHelp = "Apple refusing the client secret (invalid_client, unauthorized_client): 500, exit 78, explained in the log."

    let context: FunctionContext
    let settings: SignInWithAppleSettings

    init(context: FunctionContext, parts: [SignInWithAppleSettings.Part]) throws {
        self.context = context
        settings = try SignInWithAppleSettings(environment: context.environment, parts: parts)
    }

    var log: Logger { context.log }

    func now() -> Date { context.clock.now() }

    func store() throws -> any KeyValueStore { try context.adapters.store() }

    /// Runs one step that talks to Apple with the sign-in flow. What Apple refuses is
    /// answered by its disposition (`AppleIDErrorKind`: our client refused is configuration).
    func callingApple<T>(_ step: (SignInFlow) throws -> T) throws -> T {
        try step(try settings.flow(adapters: context.adapters))
    }

    /// The web and the native flow log a finished sign-in alike.
    func logSignedIn(_ result: SignInFlow.Result) {
        log.info("signed_in", ["user": result.account.userId, "new_user": result.created])
    }
}
