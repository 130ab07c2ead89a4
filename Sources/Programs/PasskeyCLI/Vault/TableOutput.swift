/// Columns padded to their widest cell, as `passkey token list` prints them.
enum TableOutput {
    static func print(header: [String], rows: [[String]]) {
        guard !rows.isEmpty else { return }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[index] - cell.count))
            }
            Output.line(cells.joined(separator: "  "))
        }
    }
}
