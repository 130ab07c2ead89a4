import AgentProtocol
import StandardError

/// What a person is told to do once a login has begun, on stderr (stdout
/// stays for the result): the full authorization address always — never a
/// local redirector, so it works from another machine — or the device code.
enum LoginInstructions {
    static func show(_ started: LoginStarted, openBrowser: Bool, environment: [String: String]) {
        switch started.flow {
        case .device:
            StandardError.writeLine("To sign in to \(started.issuer), open")
            StandardError.writeLine("  \(started.verificationURI ?? "?")")
            StandardError.writeLine("on any device and enter the code  \(started.userCode ?? "?")")
            if let complete = started.verificationURIComplete {
                StandardError.writeLine("or open this address, which carries the code:")
                StandardError.writeLine("  \(complete)")
            }
            StandardError.writeLine("Check that the page names this tool before you approve. Waiting…")
        case .browser, .auto:
            // The URL is shown on the terminal (not a command line others can
            // read); the browser is handed only the launch page (BrowserLauncher).
            StandardError.writeLine("Sign in to \(started.issuer) at:")
            StandardError.writeLine("  \(started.authorizationURL ?? "?")")
            if openBrowser {
                if let page = started.launchPage {
                    if let opener = BrowserLauncher.open(launchPage: page, environment: environment) {
                        StandardError.writeLine("(opened with \(opener))")
                    } else {
                        StandardError.writeLine("No browser could be started ($BROWSER, xdg-open): open the address yourself.")
                    }
                } else {
                    StandardError.writeLine("No browser was started: \(started.launchPageProblem ?? "the agent made no launch page"), "
                                            + "and the address itself never goes on a command line. Open it yourself.")
                }
            }
            StandardError.writeLine("If the browser runs on another machine, paste here the address it ends on. Waiting…")
        case .paste:
            StandardError.writeLine("Open this address in a browser and sign in to \(started.issuer):")
            StandardError.writeLine("  \(started.authorizationURL ?? "?")")
            StandardError.writeLine("The browser ends on \(started.redirectURI ?? "a 127.0.0.1 address"), which may not load: "
                                    + "that is expected. Paste that whole address here:")
        case .oktaIDX:
            // Its forms are asked on the terminal (IDXConversation): nothing to open.
            break
        }
    }
}
