import BoundedJSON

extension JSONLimits {
    /// An IDX answer: outside input, and ION nests forms in options in forms.
    /// Real answers are tens of kilobytes and nest about 12 levels deep.
    public static let idxAnswer = JSONLimits(maximumBytes: 1 << 20, maximumDepth: 32, maximumValues: 50_000)
}
