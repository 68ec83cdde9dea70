/// The one readable line a chat endpoint (`"format": "slack"`) gets for an event.
enum WebhookChatLine {
    static func text(of event: Event) -> String {
        var parts = [event.type]
        if let customer = event.customerId { parts.append("customer \(customer)") }
        if let product = event.productId { parts.append(product) }
        if let entitlement = event.entitlement { parts.append("entitlement \(entitlement)") }
        if let app = event.app { parts.append(app) }
        if let environment = event.environment, environment != "Production" { parts.append(environment) }
        if let previous = event.previousCustomerId { parts.append("from \(previous)") }
        return parts.joined(separator: " · ") + " (#\(event.sequence))"
    }
}
