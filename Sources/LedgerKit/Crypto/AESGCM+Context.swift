import CLibcrypto

// MARK: - AESGCM.Context

extension AESGCM {
    /// One message's `EVP_CIPHER_CTX`, set up for AES-256-GCM with a 96-bit nonce; freed on deinit.
    /// Lengths of zero are never passed to `EVP_*Update` (a null input there means "finish").
    final class Context {
        /// The libcrypto context.
        let pointer: OpaquePointer
        /// True to encrypt, false to decrypt.
        private let encrypting: Bool

        /// A context keyed with `key` (32 bytes) and `nonce` (12 bytes), checked by the caller.
        init(key: [UInt8], nonce: [UInt8], encrypting: Bool) throws(AESGCMError) {
            guard let pointer = EVP_CIPHER_CTX_new() else { throw AESGCMError(.cryptoFailure, "EVP_CIPHER_CTX_new failed") }
            self.pointer = pointer
            self.encrypting = encrypting
            let initialise = encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
            guard initialise(pointer, AESGCM.cipher, nil, nil, nil) == 1,
                  EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_GCM_SET_IVLEN, Int32(AESGCM.nonceSize), nil) == 1,
                  initialise(pointer, nil, nil, key, nonce) == 1
            else { throw AESGCMError(.cryptoFailure, "AES-256-GCM could not be initialised") }
        }

        deinit { EVP_CIPHER_CTX_free(pointer) }

        /// Feeds `bytes` as associated data (authenticated, not encrypted).
        func addAssociatedData(_ bytes: [UInt8]) throws(AESGCMError) {
            guard !bytes.isEmpty else { return }
            var length: Int32 = 0
            guard update(nil, &length, bytes, Int32(bytes.count)) == 1 else {
                throw AESGCMError(.cryptoFailure, "EVP update of the associated data failed")
            }
        }

        /// Encrypts or decrypts `bytes` into `out` (room for `bytes.count`); the bytes written.
        func update(_ bytes: [UInt8], into out: UnsafeMutablePointer<UInt8>) throws(AESGCMError) -> Int {
            guard !bytes.isEmpty else { return 0 }
            var length: Int32 = 0
            guard update(out, &length, bytes, Int32(bytes.count)) == 1 else {
                throw AESGCMError(.cryptoFailure, "EVP update of the message failed")
            }
            return Int(length)
        }

        /// Finishes the message (GCM writes nothing more at `out`); decrypting, checks the tag set
        /// before: a mismatch is `authenticationFailed`.
        func finish(into out: UnsafeMutablePointer<UInt8>) throws(AESGCMError) {
            var length: Int32 = 0
            if encrypting {
                guard EVP_EncryptFinal_ex(pointer, out, &length) == 1 else { throw AESGCMError(.cryptoFailure, "EVP_EncryptFinal_ex failed") }
            } else {
                guard EVP_DecryptFinal_ex(pointer, out, &length) > 0 else {
                    throw AESGCMError(.authenticationFailed,
                                      "the message does not open: wrong key, nonce or associated data, or changed bytes")
                }
            }
        }

        /// `EVP_EncryptUpdate` or `EVP_DecryptUpdate`.
        private func update(_ out: UnsafeMutablePointer<UInt8>?, _ length: inout Int32, _ bytes: [UInt8], _ count: Int32) -> Int32 {
            encrypting ? EVP_EncryptUpdate(pointer, out, &length, bytes, count) : EVP_DecryptUpdate(pointer, out, &length, bytes, count)
        }
    }
}
