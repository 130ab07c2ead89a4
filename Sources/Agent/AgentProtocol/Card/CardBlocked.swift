/// A card's secret: its PIN or its PUK.
public enum CardSecret: String, Sendable {
    case pin = "PIN"
    case puk = "PUK"
}

extension AgentError {
    /// The card's PIN or PUK is blocked (`pin_blocked`, `triesLeft` 0). The
    /// agent answers this when the card says so; the CLI says it itself when
    /// `card.pinStatus` already shows no tries left, rather than ask for a
    /// secret the card would refuse.
    public static func cardBlocked(_ secret: CardSecret) -> AgentError {
        let message = switch secret {
        case .pin: "the PIN is blocked after too many wrong tries: unblock it with the PUK using `passkey card pin unblock`"
        case .puk: "the PUK is blocked: only a reset of the card's PIV application can recover it, and that erases its keys"
        }
        return AgentError(.pinBlocked, message, details: ["triesLeft": .number(0)])
    }
}
