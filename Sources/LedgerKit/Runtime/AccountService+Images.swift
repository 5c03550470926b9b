import LedgerDomain

// MARK: - AccountService: a deleted account's image file

extension AccountService {
    /// What became of the image file of a command's `ImageDeleted` (an account deletion's).
    public enum ImageRemoval: Equatable, Sendable {
        /// The command deleted no image.
        case none
        /// The file named so was removed (or was already gone).
        case removed(String)
        /// The file named so could not be removed, for the reason given. The log says the image is
        /// deleted, so `audit` lists the file as an orphan and `recover` removes it.
        case left(String, problem: String)
    }

    /// Removes the file of the image `outcome` deleted, once the append that says so is durable (the
    /// outcome is only returned then): a file never goes while the log still calls it stored. A
    /// failed removal is reported, not thrown: the account is deleted all the same.
    public static func removeImage(deletedBy outcome: Outcome, from blobs: any BlobStore) -> ImageRemoval {
        let names = outcome.appended.compactMap { recorded -> String? in
            if case .imageDeleted(let deleted) = recorded.event { deleted.imageName } else { nil }
        }
        guard let name = names.first else { return .none }
        do {
            try blobs.remove(name)
            return .removed(name)
        } catch {
            return .left(name, problem: "\(error)")
        }
    }
}
