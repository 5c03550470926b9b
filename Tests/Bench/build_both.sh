# Sourced by the benchmark scripts (old_vs_new.sh, erasure_cost.sh): `build_both ROOT OLD OLDTREE`
# builds the commit OLD in the git worktree OLDTREE (made there, or moved to OLD when it holds no
# change, keeping its .build for an incremental build) and the tree ROOT, both in release mode.
build_both() {
    local root=$1 old=$2 oldtree=$3
    if [ ! -d "$oldtree" ] || [ "$(git -C "$oldtree" rev-parse HEAD)" != "$(git -C "$root" rev-parse "$old")" ]; then
        if [ -d "$oldtree" ] && [ -z "$(git -C "$oldtree" status --porcelain 2>/dev/null)" ]; then
            git -C "$oldtree" checkout --detach "$old" >&2
        else
            git -C "$root" worktree remove --force "$oldtree" 2>/dev/null || rm -rf "$oldtree"
            git -C "$root" worktree add --detach "$oldtree" "$old" >&2
        fi
    fi
    printf 'building %s (release)\n' "$old" >&2
    (cd "$oldtree" && swift build -c release --product ledger >&2 && swift build -c release --product ledger-bench >&2)
    printf 'building this tree (release)\n' >&2
    (cd "$root" && swift build -c release --product ledger >&2 && swift build -c release --product ledger-bench >&2)
}
