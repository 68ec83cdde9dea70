/// How the waiting set and the backlog keys name a customer: `c:<customerId>`, or `none` for
/// the events about no customer (TEST), which keep their order among themselves too.
enum WebhookQueueMember {
    static func of(_ customerId: String?) -> String {
        customerId.map { "c:" + $0 } ?? "none"
    }

    static func customerId(of member: String) -> String? {
        member.hasPrefix("c:") ? String(member.dropFirst(2)) : nil
    }
}
