// MARK: - ImageInspector

/// Recognizes JPEG and PNG by their bytes, never by file name.
public enum ImageInspector {
    /// The default size limit: 2 MiB.
    public static let defaultMaxBytes = 2 * 1024 * 1024

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format of `bytes`, or nil when it is not a complete-looking JPEG or PNG:
    /// JPEG needs `FF D8 FF` and, after it, a final `FF D9` (at least 5 bytes: `FF D8 FF D9` alone shares its
    /// `FF`); PNG needs its signature, an `IHDR` first chunk and a final `IEND`.
    public static func contentType(of bytes: [UInt8]) -> ImageContentType? {
        if bytes.count >= 5, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF,
           bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9 {
            return .jpeg
        }
        let iend: [UInt8] = Array("IEND".utf8)
        if bytes.count >= 8 + 25 + 12, Array(bytes[0..<8]) == pngSignature,
           Array(bytes[12..<16]) == Array("IHDR".utf8), Array(bytes[(bytes.count - 8)..<(bytes.count - 4)]) == iend {
            return .png
        }
        return nil
    }
}
