/// The one escaping function of the dashboard: every value that reaches its HTML (text or a
/// quoted attribute) goes through it, so a product id or user id can never become markup.
public enum HTMLEscaping {
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters (but tab and newline) have no business on the page.
                if character.value < 0x20, character != "\n", character != "\t" { out += "\u{FFFD}" } else {
                    out.unicodeScalars.append(character)
                }
            }
        }
        return out
    }
}
