/// One domain's vocabulary of wire codes (Apple's names for App Store data, OAuth's for Sign
/// in with Apple, snake_case for Storekeeper's own), each with its disposition.
///
/// The raw value is the contract users match on; `allCases` lets a test hold the README's
/// table of codes against the code.
public protocol ErrorKind: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    var disposition: ErrorDisposition { get }
}
