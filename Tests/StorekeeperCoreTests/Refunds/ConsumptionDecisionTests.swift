import Foundation
import StorekeeperCore
import Testing

/// The decision, without a store: who is answered, and with what body.
@Suite("Refund requests: what is sent to Apple")
struct ConsumptionDecisionTests {
    typealias F = RefundFixtures
    static let consent = ConsumptionConsent(consented: true, recordedAt: F.asked, recordedBy: "test", reason: nil)

    private func decide(_ request: RefundRequest, consent: ConsumptionConsent? = consent, consumption: TransactionConsumption? = nil,
                        policy: CatalogRefundPolicy = .none) -> ConsumptionDecision {
        ConsumptionDecision.decide(request, consent: consent, consumption: consumption, policy: policy)
    }

    private func consumption(_ status: String?, _ percentage: Int32?) -> TransactionConsumption {
        TransactionConsumption(deliveryStatus: status, consumptionPercentage: percentage, recordedAt: F.asked, recordedBy: "test", reason: nil)
    }

    @Test func noConsentWithdrawnConsentAssignedAndXcodeAreNotSent() throws {
        let request = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        #expect(decide(request, consent: nil) == .wait(.noConsent))
        let withdrawn = ConsumptionConsent(consented: false, recordedAt: F.asked, recordedBy: "test", reason: nil)
        #expect(decide(request, consent: withdrawn) == .wait(.noConsent))
        let assigned = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "u2", ownership: "ASSIGNED"))
        #expect(decide(assigned) == .final(.assignedOwnership), "ASSIGNED is never answered, consent or not")
        let xcode = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "u3", environment: "Xcode"))
        #expect(decide(xcode) == .final(.unsupportedEnvironment))
    }

    @Test func aConsumableIsDeliveredByDefaultWithNothingElseToSay() throws {
        let request = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        #expect(decide(request) == .send(ConsumptionRequest(customerConsented: true, deliveryStatus: "DELIVERED",
                                                            sampleContentProvided: false)))
    }

    @Test func consumptionIsOmittedForAutoRenewableZeroWhenUndeliveredElseRecordedOrThePolicys() throws {
        let subscription = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "u1", productType: "Auto-Renewable Subscription"))
        let policy = CatalogRefundPolicy(consumptionPercentage: 25_000)
        guard case .send(let forSubscription) = decide(subscription, consumption: consumption("DELIVERED", 80_000), policy: policy) else {
            Issue.record("not sent")
            return
        }
        #expect(forSubscription.consumptionPercentage == nil, "Apple computes it for auto-renewable subscriptions")

        let consumable = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "u2"))
        let cases: [(TransactionConsumption?, Int32?, String)] = [
            (consumption("UNDELIVERED_SERVER_OUTAGE", nil), 0, "UNDELIVERED_SERVER_OUTAGE"),
            (consumption("DELIVERED", 0), 0, "DELIVERED"),
            (consumption("DELIVERED", 80_000), 80_000, "DELIVERED"),
            (consumption(nil, 40_000), 40_000, "DELIVERED"),
            (nil, 25_000, "DELIVERED"),
        ]
        for (recorded, percentage, status) in cases {
            guard case .send(let body) = decide(consumable, consumption: recorded, policy: policy) else {
                Issue.record("not sent")
                continue
            }
            #expect(body.consumptionPercentage == percentage && body.deliveryStatus == status, "\(String(describing: recorded))")
        }
    }

    @Test func theFirstMatchingRuleGivesThePreferenceElseTheDefault() throws {
        let policy = CatalogRefundPolicy(sampleContentProvided: true, refundPreference: .grantProrated, rules: [
            .init(reasons: [.legal], refundPreference: .grantFull),
            .init(afterDaysOfUse: 7, refundPreference: .decline),
        ])
        let cases: [(Int64, String, String?)] = [
            (3, "UNINTENDED_PURCHASE", "GRANT_PRORATED"),
            (7, "UNINTENDED_PURCHASE", "DECLINE"),
            (30, "LEGAL", "GRANT_FULL"),
        ]
        for (days, reason, preference) in cases {
            let request = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "u\(days)", reason: reason,
                                                       purchaseDate: F.asked - days * F.day - 1))
            #expect(ConsumptionDecision.daysOfUse(request) == days)
            // Consumed 10 %: a prorated refund is one Apple takes.
            guard case .send(let body) = decide(request, consumption: consumption("DELIVERED", 10_000), policy: policy) else {
                Issue.record("not sent")
                continue
            }
            #expect(body.refundPreference == preference && body.sampleContentProvided == true, "\(days) days, \(reason)")
        }
        guard case .send(let none) = decide(try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "n")), policy: .none) else {
            Issue.record("not sent")
            return
        }
        #expect(none.refundPreference == nil, "no policy: no preference")
    }

    /// Apple refuses GRANT_PRORATED for a consumable consumed 0 or not said: sent without a preference.
    @Test func aProratedRefundNeedsAConsumptionAboveZeroExceptForSubscriptions() throws {
        let policy = CatalogRefundPolicy(refundPreference: .grantProrated)
        let consumable = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "c"))
        let subscription = try F.request(F.notification("CONSUMPTION_REQUEST", uuid: "s", productType: "Auto-Renewable Subscription"))
        let cases: [(RefundRequest, TransactionConsumption?, String?)] = [
            (consumable, nil, nil), (consumable, consumption("DELIVERED", 0), nil),
            (consumable, consumption("UNDELIVERED_OTHER", nil), nil),
            (consumable, consumption("DELIVERED", 1), "GRANT_PRORATED"), (subscription, nil, "GRANT_PRORATED"),
        ]
        for (request, recorded, preference) in cases {
            guard case .send(let body) = decide(request, consumption: recorded, policy: policy) else {
                Issue.record("not sent")
                continue
            }
            #expect(body.refundPreference == preference, "\(String(describing: request.productType)) \(String(describing: recorded))")
        }
    }

    /// The encoder tells absent from 0: a field without a value is left out, 0 is written.
    @Test func theBodyLeavesAbsentFieldsOutAndWritesZero() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let zero = ConsumptionRequest(customerConsented: true, deliveryStatus: "UNDELIVERED_OTHER", sampleContentProvided: false,
                                      consumptionPercentage: 0)
        #expect(String(decoding: try encoder.encode(zero), as: UTF8.self)
                == #"{"consumptionPercentage":0,"customerConsented":true,"deliveryStatus":"UNDELIVERED_OTHER","sampleContentProvided":false}"#)
        let absent = ConsumptionRequest(customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: true,
                                        refundPreference: "DECLINE")
        #expect(String(decoding: try encoder.encode(absent), as: UTF8.self)
                == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"DECLINE","sampleContentProvided":true}"#)
    }
}
