@testable import LedgerDomain
import Testing

// MARK: - ViewRecordSizeTests

/// The views hold one record per user, registration and email with a refused sign-in: their sizes
/// are most of a read's memory (`Docs/Performance.md`, "Peak memory"), so a field that makes one
/// grow shows here.
struct ViewRecordSizeTests {
    @Test func aPackedRegistrationIsSmallerThanTheRowItSpellsOut() {
        #expect(MemoryLayout<PackedRegistration>.stride <= 96)
        #expect(MemoryLayout<PackedRegistration>.stride < MemoryLayout<RegistrationRow>.stride)
    }

    @Test func aUsersRecordKeepsItsOneByteFieldsTogether() {
        #expect(MemoryLayout<UserView.Record>.stride <= 96)
    }

    @Test func aSignInRecordKeepsItsEmailInTheArena() {
        #expect(MemoryLayout<SignInView.Record>.stride <= 24)
        #expect(MemoryLayout<SignInView.Record>.stride < MemoryLayout<SignInView.Row>.stride)
    }
}
