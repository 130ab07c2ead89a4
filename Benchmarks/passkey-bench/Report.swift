import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// One measured figure: a timing (with its percentiles), a rate, or a ratio.
struct Figure: Sendable, Codable {
    enum Kind: String, Sendable, Codable {
        /// `summary` holds the timings, in nanoseconds.
        case time
        /// `value` is operations per second.
        case rate
        /// `value` is a dimensionless ratio of two medians.
        case ratio
        /// `value` is CPU time in nanoseconds (an average: total over count).
        case cpu
        /// `value` is a size in bytes (memory, disk).
        case bytes
        /// `value` is a part of a whole, 0…1 (e.g. the time a ceremony spends in HTTP).
        case share
    }

    /// A stable key for scripts, e.g. `getAssertion.libfido2`.
    var name: String
    /// What a person reads in the table.
    var label: String
    var kind: Kind
    var summary: Summary?
    var value: Double?

    static func time(_ name: String, _ label: String, _ samples: Samples) -> Figure {
        Figure(name: name, label: label, kind: .time, summary: samples.summary, value: nil)
    }

    static func rate(_ name: String, _ label: String, perSecond: Double) -> Figure {
        Figure(name: name, label: label, kind: .rate, summary: nil, value: perSecond)
    }

    static func cpu(_ name: String, _ label: String, nanoseconds: Double) -> Figure {
        Figure(name: name, label: label, kind: .cpu, summary: nil, value: nanoseconds)
    }

    static func ratio(_ name: String, _ label: String, _ value: Double) -> Figure {
        Figure(name: name, label: label, kind: .ratio, summary: nil, value: value)
    }

    static func bytes(_ name: String, _ label: String, _ value: Double) -> Figure {
        Figure(name: name, label: label, kind: .bytes, summary: nil, value: value)
    }

    static func share(_ name: String, _ label: String, _ value: Double) -> Figure {
        Figure(name: name, label: label, kind: .share, summary: nil, value: value)
    }
}

/// A target the issues set, and whether this run met it.
struct Aim: Sendable, Codable {
    var name: String
    /// e.g. "≤ 4×".
    var target: String
    /// e.g. "2.7×".
    var measured: String
    var met: Bool
}

/// The results of one benchmark group.
struct GroupReport: Sendable, Codable {
    /// `authenticator`, `ceremony`, `agent`, `cli` or `vault`.
    var group: String
    var title: String
    var figures: [Figure] = []
    var aims: [Aim] = []
    /// Conditions a reader needs to interpret the figures (iterations, warm-up, set-up).
    var notes: [String] = []
    /// Parts of the group that could not be measured on this machine, each
    /// with the reason (e.g. no pcscd): the rest of the group still ran.
    var unavailable: [String] = []
}

/// Everything one run measured, with where and when.
struct Report: Sendable, Codable {
    struct Machine: Sendable, Codable {
        var processors: Int
        var cpu: String
        var kernel: String
    }

    var date: String
    var machine: Machine
    /// `release`, or `debug` — whose figures say little about the product.
    var build: String
    var groups: [GroupReport]

    init(groups: [GroupReport]) {
        date = Date.now.formatted(.iso8601)
        machine = Machine.current
        #if DEBUG
        build = "debug"
        #else
        build = "release"
        #endif
        self.groups = groups
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The readable form: one table per group, then its aims.
    func table() -> String {
        var out = "passkey-bench — \(date) — \(machine.processors) processors, \(machine.cpu), Linux \(machine.kernel)\n"
        if build != "release" { out += "WARNING: a \(build) build; build with -c release (scripts/bench) for figures that mean something\n" }
        for group in groups {
            out += "\n== \(group.title) ==\n"
            let width = max(44, (group.figures.map(\.label.count).max() ?? 0) + 2)
            out += Self.pad("", width) + Self.right("median", 11) + Self.right("p90", 11) + Self.right("p99", 11)
                + Self.right("min", 11) + Self.right("n", 8) + "\n"
            for figure in group.figures {
                out += Self.pad(figure.label, width)
                switch figure.kind {
                case .time:
                    guard let s = figure.summary else { out += "  (no samples)\n"; continue }
                    out += Self.right(Self.time(s.median), 11) + Self.right(Self.time(s.p90), 11)
                        + Self.right(Self.time(s.p99), 11) + Self.right(Self.time(s.minimum), 11)
                        + Self.right(String(s.count), 8) + "\n"
                case .rate:
                    out += Self.right(Self.grouped(Int((figure.value ?? 0).rounded())) + " /s", 11) + "\n"
                case .ratio:
                    out += Self.right(Self.ratio(figure.value ?? 0), 11) + "\n"
                case .cpu:
                    out += Self.right(Self.time(Int64((figure.value ?? 0).rounded())), 11) + "   (mean)\n"
                case .bytes:
                    out += Self.right(Self.bytes(figure.value ?? 0), 11) + "\n"
                case .share:
                    out += Self.right(Self.decimal((figure.value ?? 0) * 100) + " %", 11) + "\n"
                }
            }
            if !group.aims.isEmpty {
                out += "aims:\n"
                for aim in group.aims {
                    out += "  " + Self.pad(aim.name, width - 2) + Self.right(aim.measured, 11)
                        + "   (aim " + aim.target + ")   " + (aim.met ? "met" : "NOT MET") + "\n"
                }
            }
            for note in group.notes { out += "note: \(note)\n" }
            for missing in group.unavailable { out += "not available: \(missing)\n" }
        }
        return out
    }

    // MARK: Formatting

    static func time(_ nanoseconds: Int64) -> String {
        let value = Double(nanoseconds)
        switch nanoseconds {
        case ..<1_000: return "\(nanoseconds) ns"
        case ..<1_000_000: return decimal(value / 1e3) + " µs"
        case ..<1_000_000_000: return decimal(value / 1e6) + " ms"
        default: return decimal(value / 1e9) + " s"
        }
    }

    static func ratio(_ value: Double) -> String { decimal(value) + "×" }

    /// 512 → "512 B", 4096 → "4.00 KiB", 52428800 → "50.0 MiB".
    static func bytes(_ value: Double) -> String {
        switch value {
        case ..<1024: return String(Int(value.rounded())) + " B"
        case ..<(1024 * 1024): return decimal(value / 1024) + " KiB"
        default: return decimal(value / (1024 * 1024)) + " MiB"
        }
    }

    /// Three significant digits, at most two decimals: 3.14, 31.4, 314.
    static func decimal(_ value: Double) -> String {
        let decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        guard decimals > 0 else { return String(scaled) }
        let whole = scaled / Int(scale), fraction = scaled % Int(scale)
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    /// 23456 → "23,456".
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }
}

extension Report.Machine {
    /// This machine: online processors, the CPU model, the kernel release.
    static var current: Report.Machine {
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        var cpu = "unknown CPU"
        if let data = FileManager.default.contents(atPath: "/proc/cpuinfo") {
            let text = String(decoding: data, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
               let colon = line.firstIndex(of: ":") {
                cpu = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            }
        }
        return Report.Machine(processors: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), cpu: cpu, kernel: kernel)
    }
}
