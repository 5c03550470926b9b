import CLibpq
import Glibc

// MARK: - LibPQ

/// libpq's functions, loaded (`dlopen`) the first time a PostgreSQL store is opened, not when a
/// process starts: the library and the twenty it pulls in (GnuTLS, Kerberos, LDAP, SASL…) cost every
/// `ledger` command about 4 ms of loading and 4 MiB of memory, and only the PostgreSQL store uses
/// them. `CLibpq` gives the declarations (types and constants); nothing links the library itself.
/// A host without libpq runs every file-store command and refuses a PostgreSQL store with one line.
struct LibPQ: @unchecked Sendable {  // immutable C function pointers, the same for every thread
    typealias Conn = OpaquePointer
    typealias Result = OpaquePointer
    typealias CStrings = UnsafePointer<UnsafePointer<CChar>?>?

    let connectStartParams: @convention(c) (CStrings, CStrings, Int32) -> Conn?
    let connectdbParams: @convention(c) (CStrings, CStrings, Int32) -> Conn?
    let connectPoll: @convention(c) (Conn?) -> PostgresPollingStatusType
    let finish: @convention(c) (Conn?) -> Void
    let status: @convention(c) (Conn?) -> ConnStatusType
    let errorMessage: @convention(c) (Conn?) -> UnsafeMutablePointer<CChar>?
    let socket: @convention(c) (Conn?) -> Int32
    let backendPID: @convention(c) (Conn?) -> Int32
    let host: @convention(c) (Conn?) -> UnsafeMutablePointer<CChar>?
    let port: @convention(c) (Conn?) -> UnsafeMutablePointer<CChar>?
    let conninfo: @convention(c) (Conn?) -> UnsafeMutablePointer<PQconninfoOption>?
    let conninfoFree: @convention(c) (UnsafeMutablePointer<PQconninfoOption>?) -> Void
    let setNoticeProcessor: @convention(c) (Conn?, PQnoticeProcessor?, UnsafeMutableRawPointer?) -> PQnoticeProcessor?
    let exec: @convention(c) (Conn?, UnsafePointer<CChar>?) -> Result?
    let execParams: @convention(c) (Conn?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, CStrings,
                                    UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Result?
    let sendQueryParams: @convention(c) (Conn?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, CStrings,
                                         UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Int32
    let getResult: @convention(c) (Conn?) -> Result?
    let resultStatus: @convention(c) (Result?) -> ExecStatusType
    let resultErrorMessage: @convention(c) (Result?) -> UnsafeMutablePointer<CChar>?
    let resultErrorField: @convention(c) (Result?, Int32) -> UnsafeMutablePointer<CChar>?
    let clear: @convention(c) (Result?) -> Void
    let ntuples: @convention(c) (Result?) -> Int32
    let cmdTuples: @convention(c) (Result?) -> UnsafeMutablePointer<CChar>?
    let getisnull: @convention(c) (Result?, Int32, Int32) -> Int32
    let getlength: @convention(c) (Result?, Int32, Int32) -> Int32
    let getvalue: @convention(c) (Result?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    let getCopyData: @convention(c) (Conn?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32) -> Int32
    let freemem: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let consumeInput: @convention(c) (Conn?) -> Int32
    let notifies: @convention(c) (Conn?) -> UnsafeMutablePointer<PGnotify>?
    let enterPipelineMode: @convention(c) (Conn?) -> Int32
    let exitPipelineMode: @convention(c) (Conn?) -> Int32
    let pipelineSync: @convention(c) (Conn?) -> Int32

    /// A text libpq returns (its messages are never NULL, but a NULL reads as empty here, not a trap).
    static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

    /// The library's file name: libpq's soname, the same ABI since PostgreSQL 8.2.
    static let fileName = "libpq.so.5"

    /// The functions, loaded once per process; or why they could not be.
    private static let loaded: Swift.Result<LibPQ, StoreError> = load(fileName)

    /// The functions; throws a one-line `StoreError` (`unavailable`, `clientLibraryMissing`) when
    /// libpq is not installed or lacks some of them (a libpq before 14 has no pipeline mode): no
    /// server was asked, so it is not a connection's failure.
    static func functions() throws -> LibPQ { try loaded.get() }

    private static func unloadable(_ message: String) -> StoreError {
        StoreError(.unavailable, message, reason: StoreError.clientLibraryMissing)
    }

    /// Loads the functions from the library `file` (`fileName`; another name in tests).
    static func load(_ file: String) -> Swift.Result<LibPQ, StoreError> {
        guard let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(unloadable("a PostgreSQL store needs libpq (\(file), from the libpq5 package), which cannot be loaded: \(PostgresError.oneLine(reason))"))
        }
        // Kept loaded for the process's life: its functions are held in this value. Every name is
        // looked up before any is found missing, so the message names all that are.
        var missing: [String] = []
        func symbol<F>(_ name: String, as _: F.Type) -> F? {
            guard let address = dlsym(handle, name) else { missing.append(name); return nil }
            return unsafeBitCast(address, to: F.self)
        }
        let connectStartParams = symbol("PQconnectStartParams", as: (@convention(c) (CStrings, CStrings, Int32) -> Conn?).self)
        let connectdbParams = symbol("PQconnectdbParams", as: (@convention(c) (CStrings, CStrings, Int32) -> Conn?).self)
        let connectPoll = symbol("PQconnectPoll", as: (@convention(c) (Conn?) -> PostgresPollingStatusType).self)
        let finish = symbol("PQfinish", as: (@convention(c) (Conn?) -> Void).self)
        let status = symbol("PQstatus", as: (@convention(c) (Conn?) -> ConnStatusType).self)
        let errorMessage = symbol("PQerrorMessage", as: (@convention(c) (Conn?) -> UnsafeMutablePointer<CChar>?).self)
        let socket = symbol("PQsocket", as: (@convention(c) (Conn?) -> Int32).self)
        let backendPID = symbol("PQbackendPID", as: (@convention(c) (Conn?) -> Int32).self)
        let host = symbol("PQhost", as: (@convention(c) (Conn?) -> UnsafeMutablePointer<CChar>?).self)
        let port = symbol("PQport", as: (@convention(c) (Conn?) -> UnsafeMutablePointer<CChar>?).self)
        let conninfo = symbol("PQconninfo", as: (@convention(c) (Conn?) -> UnsafeMutablePointer<PQconninfoOption>?).self)
        let conninfoFree = symbol("PQconninfoFree", as: (@convention(c) (UnsafeMutablePointer<PQconninfoOption>?) -> Void).self)
        let setNoticeProcessor = symbol("PQsetNoticeProcessor",
                                        as: (@convention(c) (Conn?, PQnoticeProcessor?, UnsafeMutableRawPointer?) -> PQnoticeProcessor?).self)
        let exec = symbol("PQexec", as: (@convention(c) (Conn?, UnsafePointer<CChar>?) -> Result?).self)
        let execParams = symbol("PQexecParams", as: (@convention(c) (Conn?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, CStrings,
                                                                     UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Result?).self)
        let sendQueryParams = symbol("PQsendQueryParams", as: (@convention(c) (Conn?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, CStrings,
                                                                               UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Int32).self)
        let getResult = symbol("PQgetResult", as: (@convention(c) (Conn?) -> Result?).self)
        let resultStatus = symbol("PQresultStatus", as: (@convention(c) (Result?) -> ExecStatusType).self)
        let resultErrorMessage = symbol("PQresultErrorMessage", as: (@convention(c) (Result?) -> UnsafeMutablePointer<CChar>?).self)
        let resultErrorField = symbol("PQresultErrorField", as: (@convention(c) (Result?, Int32) -> UnsafeMutablePointer<CChar>?).self)
        let clear = symbol("PQclear", as: (@convention(c) (Result?) -> Void).self)
        let ntuples = symbol("PQntuples", as: (@convention(c) (Result?) -> Int32).self)
        let cmdTuples = symbol("PQcmdTuples", as: (@convention(c) (Result?) -> UnsafeMutablePointer<CChar>?).self)
        let getisnull = symbol("PQgetisnull", as: (@convention(c) (Result?, Int32, Int32) -> Int32).self)
        let getlength = symbol("PQgetlength", as: (@convention(c) (Result?, Int32, Int32) -> Int32).self)
        let getvalue = symbol("PQgetvalue", as: (@convention(c) (Result?, Int32, Int32) -> UnsafeMutablePointer<CChar>?).self)
        let getCopyData = symbol("PQgetCopyData", as: (@convention(c) (Conn?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32) -> Int32).self)
        let freemem = symbol("PQfreemem", as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        let consumeInput = symbol("PQconsumeInput", as: (@convention(c) (Conn?) -> Int32).self)
        let notifies = symbol("PQnotifies", as: (@convention(c) (Conn?) -> UnsafeMutablePointer<PGnotify>?).self)
        let enterPipelineMode = symbol("PQenterPipelineMode", as: (@convention(c) (Conn?) -> Int32).self)
        let exitPipelineMode = symbol("PQexitPipelineMode", as: (@convention(c) (Conn?) -> Int32).self)
        let pipelineSync = symbol("PQpipelineSync", as: (@convention(c) (Conn?) -> Int32).self)
        guard missing.isEmpty, let connectStartParams, let connectdbParams, let connectPoll, let finish, let status, let errorMessage,
              let socket, let backendPID, let host, let port, let conninfo, let conninfoFree, let setNoticeProcessor, let exec,
              let execParams, let sendQueryParams, let getResult, let resultStatus, let resultErrorMessage, let resultErrorField,
              let clear, let ntuples, let cmdTuples, let getisnull, let getlength, let getvalue, let getCopyData, let freemem,
              let consumeInput, let notifies, let enterPipelineMode, let exitPipelineMode, let pipelineSync
        else {
            dlclose(handle)
            return .failure(unloadable("the libpq found (\(file)) lacks \(missing.joined(separator: ", ")): a PostgreSQL store needs libpq 14 or later"))
        }
        return .success(LibPQ(
            connectStartParams: connectStartParams, connectdbParams: connectdbParams, connectPoll: connectPoll, finish: finish,
            status: status, errorMessage: errorMessage, socket: socket, backendPID: backendPID, host: host, port: port,
            conninfo: conninfo, conninfoFree: conninfoFree, setNoticeProcessor: setNoticeProcessor, exec: exec,
            execParams: execParams, sendQueryParams: sendQueryParams, getResult: getResult, resultStatus: resultStatus,
            resultErrorMessage: resultErrorMessage, resultErrorField: resultErrorField, clear: clear, ntuples: ntuples,
            cmdTuples: cmdTuples, getisnull: getisnull, getlength: getlength, getvalue: getvalue, getCopyData: getCopyData,
            freemem: freemem, consumeInput: consumeInput, notifies: notifies, enterPipelineMode: enterPipelineMode,
            exitPipelineMode: exitPipelineMode, pipelineSync: pipelineSync))
    }
}
