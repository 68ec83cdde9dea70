import FoundationEssentials

/// The `Date` header's one format that servers send (RFC 9110 §5.6.7, IMF-fixdate):
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Parsed by hand: FoundationEssentials has no HTTP date
/// style, and a formatter would bring the locale machinery this binary leaves out.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), (1...31).contains(day),
              let month = months.firstIndex(of: String(parts[2])).map({ $0 + 1 }),
              let year = Int(parts[3]), (1970...9999).contains(year) else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Howard Hinnant's `days_from_civil` (proleptic Gregorian), the inverse of UTCTimestamp's.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let shiftedYear = Int64(month <= 2 ? year - 1 : year)
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = Int64((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
