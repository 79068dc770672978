import WireFormats

/// An MS-DOS date and time as zip headers store it (local time-less, 2-second resolution, 1980–2107).
public struct ZipTimestamp: Sendable, Hashable {
    /// Time of day: hour << 11 | minute << 5 | second / 2.
    public var dosTime: UInt16
    /// Date: (year - 1980) << 9 | month << 5 | day.
    public var dosDate: UInt16

    /// A timestamp from its two packed fields.
    public init(dosTime: UInt16, dosDate: UInt16) {
        self.dosTime = dosTime
        self.dosDate = dosDate
    }

    /// 1980-01-01 00:00:00, the earliest DOS time: byte-identical archives for identical input.
    public static let fixed = ZipTimestamp(dosTime: 0, dosDate: (1 << 5) | 1)

    /// The UTC calendar time of `secondsSince1970`, clamped to the DOS range.
    public init(secondsSince1970: Int64) {
        let minimum: Int64 = 315_532_800 // 1980-01-01T00:00:00Z
        let maximum: Int64 = 4_354_819_198 // 2107-12-31T23:59:58Z
        let seconds = min(max(secondsSince1970, minimum), maximum)
        let days = seconds / 86_400
        let secondOfDay = Int(seconds % 86_400)
        let (year, month, day) = CivilDate.date(daysSince1970: Int(days))
        dosTime = UInt16((secondOfDay / 3600) << 11 | ((secondOfDay % 3600) / 60) << 5 | (secondOfDay % 60) / 2)
        dosDate = UInt16((year - 1980) << 9 | month << 5 | day)
    }
}
