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
  '`inspect`': { requests: 1, why: 'resolve, stat and the bytes of a small file in one command: the read tool\'s single request' },
  '`resolveForMutation`, path seen before': {
    requests: 0,
    why: 'named from what earlier commands reported about the path or its directory; the publication checks it again in the sandbox',
  },
  '`writeText` createIfAbsent': { requests: 1, why: 'the bytes travel inside the command that publishes them without replacement (`ln -T`): the files API cannot create-if-absent' },
  '`writeText` createIfAbsent, above the inline bound': {
    requests: 2,
    why: 'content whose base64 would not fit one command line (Linux caps one argument at 128 KiB) is uploaded first, then published',
  },
  '`writeText` replaceIfVersion': { requests: 2, why: 'the new bytes depend on the old file\'s BOM and line endings (kept by contract), so a read comes first; then one compare-and-swap publication carrying the bytes' },
  '`editText` guarded': { requests: 2, why: 'read (the edit is computed from the current bytes), then one compare-and-swap publication carrying the bytes' },
  '`read` tool': { requests: 1, why: 'one `inspect`: the target, its stat and its text come from one command' },
  '`write` tool, create': { requests: 1, why: 'the target is named from memory (0) + guarded create (1); the tool makes no stat' },
  '`write` tool, replace': { requests: 2, why: 'the target is named from memory (0) + guarded replace (2)' },
  '`edit` tool': { requests: 2, why: 'the target is named from memory (0) + guarded edit (2)' },
}
