/// The monthly recurring revenue estimate of one period: its price (as Apple signed it, before
/// Apple's commission and taxes: proceeds are Apple's business) normalised to a month by the
/// period's length. Apple signs no period length, so it is read from the period's own dates
/// and snapped to the durations App Store Connect offers (1 week; 1, 2, 3, 6 months; 1 year);
/// in the sandbox, whose periods are accelerated unless a tester's renewal rate says otherwise,
/// its accelerated lengths too (3 minutes a week, 5 a month, an hour a year).
extension MonthlyPrice {
    static func of(_ period: MetricsEventView.Period, environment: String?) -> MonthlyPrice? {
        guard let price = period.price, price > 0, let currency = period.currency,
              let start = period.purchaseDate, let end = period.expiresDate, end > start,
              let length = Period(milliseconds: end - start, accelerated: false)
                ?? (environment == "Sandbox" ? Period(milliseconds: end - start, accelerated: true) : nil) else { return nil }
        return MonthlyPrice(currency: currency, milliunits: length.monthly(price))
    }

    /// A subscription period App Store Connect offers.
    enum Period: Equatable {
        case week
        case months(Int64)

        /// The period's length snapped to the nearest offered one.
        init?(milliseconds: Int64, accelerated: Bool) {
            // Real periods in days; the sandbox's in minutes (Apple's "Testing in the sandbox" table).
            let (unit, week, month): (Int64, Int64, [(Int64, Int64)]) = accelerated
                ? (60_000, 3, [(5, 1), (10, 2), (15, 3), (30, 6), (60, 12)])
                : (86_400_000, 7, [(30, 1), (61, 2), (91, 3), (182, 6), (365, 12)])
            let length = Double(milliseconds) / Double(unit)
            var best: (Period, Double) = (.week, abs(length - Double(week)) / Double(week))
            for (units, months) in month {
                let distance = abs(length - Double(units)) / Double(units)
                if distance < best.1 { best = (.months(months), distance) }
            }
            // A period far from every offered length (an extension, a partial period) says nothing.
            guard best.1 <= 0.25 else { return nil }
            self = best.0
        }

        /// `price` per month: a weekly price × 52 / 12; a price of n months / n.
        func monthly(_ price: Int64) -> Int64 {
            switch self {
            case .week: price * 52 / 12
            case .months(let count): price / count
            }
        }
    }
}
