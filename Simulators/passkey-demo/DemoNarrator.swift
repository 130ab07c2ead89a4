import PasskeyCLI

/// How the demo speaks: a chapter's title, its numbered steps, their
/// details, and the one line that says what the chapter verified.
struct DemoNarrator {
    func chapter(_ number: Int, _ title: String) { Output.line("\n━━ Chapter \(number): \(title)") }
    func step(_ text: String) { Output.line("\n• \(text)") }
    func detail(_ text: String) { Output.line("   \(text)") }
    func verified(_ text: String) { Output.line("\n✔ Verified: \(text)") }
    func say(_ text: String) { Output.line(text) }
}
