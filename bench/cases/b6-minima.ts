/**
 * The fewest HTTP requests each operation can take through the e2b SDK (files API + `commands.run`)
 * while keeping the contract's semantics, and why. A command is one `Process/Start` request.
 */
export const MINIMA: Record<string, { requests: number; why: string }> = {
  '`resolve`': { requests: 1, why: 'the real path (symlinks, hence the identity) is only known inside the sandbox' },
  '`stat`': { requests: 1, why: 'one remote stat; the `Stat` RPC lacks inode and ns ctime, so it is a command — still one request' },
  '`readText`': { requests: 1, why: 'one command checks the type and prints the bytes' },
  '`streamText`': {
    requests: 2,
    why: 'a type check, then `GET /files`: the download alone (1 request) would open whatever the path names, so a FIFO would hang it; a single command that checks and `cat`s would not stream — the SDK\'s command handle accumulates all stdout in one string (and decodes it lossily), breaking the bounded-memory promise of `streamText`',
  },
  '`writeText` createIfAbsent': { requests: 2, why: 'the bytes must travel (upload), then a no-replace publication (`ln -T`) runs after them: the files API cannot create-if-absent' },
  '`writeText` replaceIfVersion': { requests: 3, why: 'the new bytes depend on the old file\'s BOM and line endings (kept by contract), so a read comes first; then the upload; then one compare-and-swap publication' },
  '`editText` guarded': { requests: 3, why: 'read (the edit is computed from the current bytes), upload, one compare-and-swap publication' },
  '`read` tool': { requests: 3, why: 'the tool makes three contract calls (resolve, stat, read), one request each; fusing them would need a new contract method' },
  '`write` tool, create': { requests: 3, why: 'resolve (1) + guarded create (2); the tool makes no stat' },
  '`write` tool, replace': { requests: 4, why: 'resolve (1) + guarded replace (3)' },
  '`edit` tool': { requests: 4, why: 'resolve (1) + guarded edit (3)' },
}
