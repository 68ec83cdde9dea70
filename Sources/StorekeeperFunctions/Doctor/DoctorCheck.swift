/// One line of `doctor`'s answer: what was checked, how it stands, and in plain words why.
/// A detail never holds a secret's value: tokens, keys and store passwords are named by their
/// variable, never shown.
public struct DoctorCheck: Encodable, Sendable, Equatable {
    public enum Status: String, Encodable, Sendable, Comparable {
        case ok, skipped, warning, problem

        /// Worse outranks better: a problem is what an operator must fix before traffic.
        var severity: Int {
            switch self {
            case .ok: 0
            case .skipped: 1
            case .warning: 2
            case .problem: 3
            }
        }

        public static func < (lhs: Status, rhs: Status) -> Bool { lhs.severity < rhs.severity }
    }

    public var name: String
    public var status: Status
    public var detail: String

    init(_ name: String, _ status: Status, _ detail: String) {
        self.name = name
        self.status = status
        self.detail = detail
    }

    static func ok(_ name: String, _ detail: String) -> DoctorCheck { DoctorCheck(name, .ok, detail) }
    static func skipped(_ name: String, _ detail: String) -> DoctorCheck { DoctorCheck(name, .skipped, detail) }
    static func warning(_ name: String, _ detail: String) -> DoctorCheck { DoctorCheck(name, .warning, detail) }
    static func problem(_ name: String, _ detail: String) -> DoctorCheck { DoctorCheck(name, .problem, detail) }
}
