import Foundation
import LedgerCLI
import Testing

/// `ledger completions bash|zsh|fish`: scripts generated from the command definitions.
struct CompletionsCLITests {
    /// The script `ledger completions SHELL` prints (exit 0, nothing on standard error).
    static func script(_ shell: String) throws -> String {
        let result = try run(Paths.ledger, ["completions", shell])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        return result.stdout
    }

    /// The words bash offers for `line` (completing its last word; a final space starts a new one),
    /// in a folder holding the file `photo.png`, the file `docs.txt` and the folder `data`.
    static func bashCompletes(_ line: String) throws -> [String] {
        try withTempDirectory { dir in
            try writeBytes([], to: dir + "/photo.png")
            try writeBytes([], to: dir + "/docs.txt")
            try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: false)
            let path = dir + "/../\(URL(fileURLWithPath: dir).lastPathComponent).bash"
            defer { try? FileManager.default.removeItem(atPath: path) }
            try writeBytes(Array(try script("bash").utf8), to: path)
            let driver = """
            source "$1"
            line=${2//=/ = }  # bash splits words at `=` too
            read -ra COMP_WORDS <<< "$line"
            [[ $2 == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            _ledger
            printf '%s\\n' "${COMPREPLY[@]}"
            """
            let result = try run("/bin/bash", ["-c", driver, "bash", path, line], cwd: dir)
            #expect(result.status == 0, "\(result)")
            return result.stdoutLines.filter { !$0.isEmpty }
        }
    }

    @Test func theBashScriptParsesAndNamesEveryCommandAndEveryRegisterOption() throws {
        let bash = try Self.script("bash")
        try withTempDirectory { dir in
            try writeBytes(Array(bash.utf8), to: dir + "/ledger.bash")
            let check = try run("/bin/bash", ["-n", dir + "/ledger.bash"])
            #expect(check.status == 0, "bash -n: \(check)")
        }
        for spec in LedgerCLI.specs { #expect(bash.contains(spec.name), "\(spec.name)") }
        let register = try #require(LedgerCLI.specs.first { $0.name == "register" })
        for option in register.allOptions { #expect(bash.contains("--\(option.name)"), "--\(option.name)") }
        #expect(bash.contains("complete -F _ledger ledger"))
    }

    @Test func bashCompletesCommandsOptionsAndValues() throws {
        #expect(try Self.bashCompletes("ledger reg") == ["register"])
        #expect(try Self.bashCompletes("ledger comp") == ["completions"])
        #expect(try Self.bashCompletes("ledger --ver") == ["--version"])
        #expect(try Self.bashCompletes("ledger register --pa") == ["--password-stdin"])
        #expect(try Self.bashCompletes("ledger events --fo") == ["--follow"])
        #expect(try Self.bashCompletes("ledger events --type Session") == ["SessionStarted", "SessionEnded"])
        #expect(try Self.bashCompletes("ledger completions ") == ["bash", "zsh", "fish"])
        #expect(try Self.bashCompletes("ledger completions --") == ["--help"], "completions takes neither --data nor --store")
        #expect(try Self.bashCompletes("ledger help us") == ["users", "user"])
        #expect(try Self.bashCompletes("ledger register --email ").isEmpty, "free text: nothing offered")
        #expect(try Self.bashCompletes("ledger events --data d") == ["data"], "DIR completes directories")
        #expect(try Self.bashCompletes("ledger register --image p") == ["photo.png"], "FILE completes files")
        #expect(try Self.bashCompletes("ledger register --image=p") == ["photo.png"], "also after `=`")
        #expect(try Self.bashCompletes("ledger verify d").sorted() == ["data", "docs.txt"], "FILE positional")
    }

    @Test func theFishScriptListsEveryCommand() throws {
        let fish = try Self.script("fish")
        for spec in LedgerCLI.specs {
            #expect(fish.contains(" -a \(spec.name) -d "), "\(spec.name)")
            #expect(fish.contains("__fish_seen_subcommand_from \(spec.name)'"), "\(spec.name) has its options")
        }
        #expect(fish.contains("-l image -r -F"), "FILE completes files")
        #expect(fish.contains("-a 'bash zsh fish'"))
    }

    @Test func theZshScriptIsACompdefFile() throws {
        let zsh = try Self.script("zsh")
        #expect(zsh.hasPrefix("#compdef ledger\n"))
        for spec in LedgerCLI.specs { #expect(zsh.contains("'\(spec.name):"), "\(spec.name)") }
        #expect(zsh.contains("'--image=[a JPEG or PNG profile image (checked by its bytes; at most 2 MiB)]:FILE:_files'"))
        #expect(zsh.contains("compdef _ledger ledger"))
    }

    @Test func anUnknownShellIsAUsageError() throws {
        let result = try run(Paths.ledger, ["completions", "powershell"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("expected one of: bash, zsh, fish"))
    }
}
