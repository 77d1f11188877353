import { execFile } from 'node:child_process'
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect } from 'vitest'

const run = promisify(execFile)

export interface CaseEnv {
  dir: string
  outside: string
  at(name: string): string
}

export interface Call {
  name: string
  arguments: unknown
}

/**
 * One hostile input. `prepare` calls run before the snapshot (a read that lets a later write or
 * edit pass the policy); `call` is the hostile one. A case expects a typed error code, or a
 * success whose text and bytes `ok` checks.
 */
export interface HostileCase {
  name: string
  group: 'path' | 'content' | 'argument'
  setup?(env: CaseEnv): Promise<void>
  prepare?: Call[]
  call: Call | ((env: CaseEnv) => Call)
  /** Runs the calls in a child process as uid 65534 (root ignores mode bits). */
  asNobody?: boolean
  code?: string | string[]
  ok?(text: string, env: CaseEnv): Promise<void> | void
}

const read = (file_path: unknown, extra: Record<string, unknown> = {}): Call => ({ name: 'read', arguments: { file_path, ...extra } })
const write = (file_path: unknown, content: unknown): Call => ({ name: 'write', arguments: { file_path, content } })
const edit = (file_path: unknown, old_string: unknown, new_string: unknown, extra: Record<string, unknown> = {}): Call =>
  ({ name: 'edit', arguments: { file_path, old_string, new_string, ...extra } })

const put = (name: string, data: string | Uint8Array) => async (env: CaseEnv) => {
  await writeFile(env.at(name), data)
}

const LATIN1_NAME = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]) // "café.txt" in Latin-1
const HUNDRED_MB = 100 * 1024 * 1024

async function bytes(path: string): Promise<string> {
  return readFile(path, 'latin1')
}

export const HOSTILE_CASES: HostileCase[] = [
  // ── paths ──────────────────────────────────────────────────────────────────────────────────
  { name: 'an empty path is refused by read', group: 'path', call: read(''), code: 'FS_INVALID_PATH' },
  { name: 'an empty path is refused by write', group: 'path', call: write('', 'x'), code: 'FS_INVALID_PATH' },
  { name: 'a NUL byte in a path is refused by read', group: 'path', setup: put('a.txt', 'a\n'), call: read('a.txt\0.png'), code: 'FS_INVALID_PATH' },
  { name: 'a NUL byte in a path is refused by write and creates nothing', group: 'path', call: write('new\0.txt', 'x'), code: 'FS_INVALID_PATH' },
  { name: 'a NUL byte in a path is refused by edit', group: 'path', call: edit('a\0', 'a', 'b'), code: ['FS_INVALID_PATH'] },
  { name: 'a 5 000-character name is refused by read', group: 'path', call: read('n'.repeat(5000)), code: 'FS_INVALID_PATH' },
  { name: 'a 5 000-character name is refused by write', group: 'path', call: write('n'.repeat(5000), 'x'), code: 'FS_INVALID_PATH' },
  { name: 'a 5 000-character path of short components is refused by write', group: 'path', call: write('d/'.repeat(2500) + 'f', 'x'), code: 'FS_INVALID_PATH' },
  {
    name: 'a name with non-UTF-8 bytes on disk is not reached by its replacement-character spelling', group: 'path',
    setup: async (env) => writeFile(Buffer.concat([Buffer.from(`${env.dir}/`), LATIN1_NAME]), 'latin-1 named\n'),
    call: read('caf\uFFFD.txt'), code: 'FS_NOT_FOUND',
  },
  {
    name: 'writing the replacement-character spelling never clobbers the non-UTF-8 name', group: 'path',
    setup: async (env) => writeFile(Buffer.concat([Buffer.from(`${env.dir}/`), LATIN1_NAME]), 'latin-1 named\n'),
    call: write('caf\uFFFD.txt', 'utf-8 named\n'),
    ok: async (_text, env) => {
      expect(await readFile(Buffer.concat([Buffer.from(`${env.dir}/`), LATIN1_NAME]), 'utf8')).toBe('latin-1 named\n')
      expect(await readFile(env.at('caf\uFFFD.txt'), 'utf8')).toBe('utf-8 named\n')
    },
  },
  { name: 'a `..` escape is refused by read', group: 'path', call: read('../outside/secret.txt'), code: 'FS_OUTSIDE_ROOT' },
  { name: 'a deep `..` escape is refused by write', group: 'path', call: write('a/b/../../../outside/new.txt', 'x'), code: 'FS_OUTSIDE_ROOT' },
  { name: 'an absolute path outside the root is refused by read', group: 'path', call: read('/etc/passwd'), code: 'FS_OUTSIDE_ROOT' },
  { name: 'an absolute path outside the root is refused by write', group: 'path', call: (env) => write(join(env.outside, 'secret.txt'), 'pwned'), code: 'FS_OUTSIDE_ROOT' },
  {
    name: 'a symlink loop is refused by read', group: 'path',
    setup: async (env) => { await symlink('loop-b', env.at('loop-a')); await symlink('loop-a', env.at('loop-b')) },
    call: read('loop-a'), code: 'FS_INVALID_PATH',
  },
  {
    name: 'a symlink loop is refused by write and stays a loop', group: 'path',
    setup: async (env) => { await symlink('loop-b', env.at('loop-a')); await symlink('loop-a', env.at('loop-b')) },
    call: write('loop-a', 'x'), code: 'FS_INVALID_PATH',
  },
  { name: 'a self-referencing link is refused by edit', group: 'path', setup: async (env) => symlink('self', env.at('self')), call: edit('self', 'a', 'b'), code: 'FS_INVALID_PATH' },
  { name: 'a dangling link is refused by read', group: 'path', setup: async (env) => symlink('nowhere.txt', env.at('dangling')), call: read('dangling'), code: 'FS_NOT_REGULAR_FILE' },
  {
    name: 'a write through a dangling link creates nothing at its target', group: 'path',
    setup: async (env) => symlink('nowhere.txt', env.at('dangling')), call: write('dangling', 'x'), code: 'FS_NOT_REGULAR_FILE',
  },
  { name: 'a link to /dev/zero is refused by read (outside the root)', group: 'path', setup: async (env) => symlink('/dev/zero', env.at('zero')), call: read('zero'), code: 'FS_OUTSIDE_ROOT' },
  {
    name: 'a character device inside the root is refused by read without blocking', group: 'path',
    setup: async (env) => void (await run('mknod', [env.at('zero-dev'), 'c', '1', '5'])), call: read('zero-dev'), code: 'FS_NOT_REGULAR_FILE',
  },
  {
    name: 'a character device inside the root is never replaced by write', group: 'path',
    setup: async (env) => void (await run('mknod', [env.at('null-dev'), 'c', '1', '3'])), call: write('null-dev', 'x'), code: 'FS_NOT_REGULAR_FILE',
  },
  { name: 'a FIFO is refused by read without blocking', group: 'path', setup: async (env) => void (await run('mkfifo', [env.at('fifo')])), call: read('fifo'), code: 'FS_NOT_REGULAR_FILE' },
  { name: 'a FIFO is refused by write without blocking', group: 'path', setup: async (env) => void (await run('mkfifo', [env.at('fifo')])), call: write('fifo', 'x'), code: 'FS_NOT_REGULAR_FILE' },
  {
    name: 'a socket is refused by read', group: 'path',
    setup: async (env) => void (await run('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', env.at('sock')])),
    call: read('sock'), code: 'FS_NOT_REGULAR_FILE',
  },
  {
    name: 'a socket is refused by write', group: 'path',
    setup: async (env) => void (await run('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', env.at('sock')])),
    call: write('sock', 'x'), code: 'FS_NOT_REGULAR_FILE',
  },
  {
    name: 'a directory is listed by read', group: 'path', setup: async (env) => { await mkdir(env.at('sub')); await writeFile(env.at('sub/in.txt'), 'x\n') },
    call: read('sub'), ok: (text) => expect(text).toContain('is a directory, not a file. It holds 1 entry:\nin.txt\n'),
  },
  { name: 'a directory is refused by write', group: 'path', setup: async (env) => void (await mkdir(env.at('sub'))), call: write('sub', 'x'), code: 'FS_NOT_REGULAR_FILE' },
  { name: 'a path through a regular file is refused by write', group: 'path', setup: put('plain.txt', 'p\n'), call: write('plain.txt/child.txt', 'x'), code: 'FS_NOT_DIRECTORY' },
  {
    name: 'an unreadable file is refused by read (as an unprivileged user)', group: 'path', asNobody: true,
    setup: async (env) => { await writeFile(env.at('private.txt'), 'root only\n'); await chmod(env.at('private.txt'), 0o600) },
    call: read('private.txt'), code: 'FS_PERMISSION_DENIED',
  },
  {
    name: 'an unwritable directory refuses a create (as an unprivileged user)', group: 'path', asNobody: true,
    setup: async (env) => { await mkdir(env.at('locked')); await chmod(env.at('locked'), 0o555) },
    call: write('locked/new.txt', 'x'), code: 'FS_PERMISSION_DENIED',
  },
  {
    name: 'an unwritable directory refuses an overwrite of a file it may read (as an unprivileged user)', group: 'path', asNobody: true,
    setup: async (env) => {
      await mkdir(env.at('locked'))
      await writeFile(env.at('locked/f.txt'), 'keep\n')
      await chmod(env.at('locked/f.txt'), 0o666)
      await chmod(env.at('locked'), 0o555)
    },
    prepare: [read('locked/f.txt')],
    call: write('locked/f.txt', 'changed\n'), code: 'FS_PERMISSION_DENIED',
  },

  // ── contents ───────────────────────────────────────────────────────────────────────────────
  { name: 'invalid UTF-8 is refused by read', group: 'content', setup: put('bad.txt', Uint8Array.of(0x61, 0xff, 0xfe, 0x0a)), call: read('bad.txt'), code: 'FS_NOT_TEXT' },
  {
    name: 'an unread invalid-UTF-8 file is not overwritten by write', group: 'content',
    setup: put('bad.txt', Uint8Array.of(0x61, 0xc3, 0x28)), prepare: [read('bad.txt')], call: write('bad.txt', 'x'), code: 'FS_NOT_TEXT',
  },
  {
    name: 'invalid UTF-8 past the sniff window is refused by read', group: 'content',
    setup: put('late-bad.txt', Buffer.concat([Buffer.from('ok\n'.repeat(10_000)), Buffer.of(0xc0, 0x80)])), call: read('late-bad.txt'), code: 'FS_NOT_TEXT',
  },
  {
    name: 'a NUL late in the file is read as text', group: 'content',
    setup: put('late-nul.txt', `${'x\n'.repeat(8_000)}tail\0end\n`), call: read('late-nul.txt', { offset: 8_001 }),
    ok: (text) => expect(text).toContain('8001\ttail\0end'),
  },
  { name: 'a NUL early in the file is refused as binary', group: 'content', setup: put('early-nul.txt', 'ab\0cd\n'), call: read('early-nul.txt'), code: 'FS_NOT_TEXT' },
  {
    name: 'UTF-16 with a BOM is refused by read', group: 'content',
    setup: put('utf16.txt', Buffer.concat([Buffer.of(0xff, 0xfe), Buffer.from('hello\n', 'utf16le')])), call: read('utf16.txt'), code: 'FS_NOT_TEXT',
  },
  {
    name: 'one 100 MB line without a newline is read as one cut line, promptly', group: 'content',
    setup: put('huge.txt', Buffer.alloc(HUNDRED_MB, 0x78)), call: read('huge.txt'),
    ok: (text) => {
      expect(text.startsWith(`     1\t${'x'.repeat(100)}`)).toBe(true)
      expect(text.length).toBeLessThan(10_000)
    },
  },
  {
    // The search decodes and scans all 100 MB; a successful edit would add a 100 MB fsync, which is
    // the disk's speed rather than the provider's, so the deadline case is the miss.
    name: 'an edit of a 100 MB line that quotes absent text fails promptly', group: 'content',
    setup: put('huge-edit.txt', Buffer.concat([Buffer.from('HEAD'), Buffer.alloc(HUNDRED_MB, 0x78)])),
    prepare: [read('huge-edit.txt')], call: edit('huge-edit.txt', 'TAIL', 'tail'), code: 'FS_EDIT_NOT_FOUND',
  },
  { name: 'an empty file reads as empty', group: 'content', setup: put('empty.txt', ''), call: read('empty.txt'), ok: (text) => expect(text).toMatch(/is empty \(0 lines\)/) },
  { name: 'an edit of an empty file finds nothing', group: 'content', setup: put('empty.txt', ''), prepare: [read('empty.txt')], call: edit('empty.txt', 'x', 'y'), code: 'FS_EDIT_NOT_FOUND' },
  {
    name: 'an empty old_string is not a match anywhere', group: 'content', setup: put('e.txt', 'abc\n'), prepare: [read('e.txt')],
    call: edit('e.txt', '', 'z'), code: ['FS_EDIT_NOT_FOUND', 'FS_AMBIGUOUS_EDIT', 'INVALID_ARGUMENTS'],
  },
  {
    name: 'a lone CR is kept byte for byte by an edit elsewhere', group: 'content', setup: put('cr.txt', 'one\rtwo\nthree\n'), prepare: [read('cr.txt')],
    call: edit('cr.txt', 'three', 'THREE'), ok: async (_text, env) => expect(await bytes(env.at('cr.txt'))).toBe('one\rtwo\nTHREE\n'),
  },
  {
    name: 'mixed line endings are kept outside the edited span', group: 'content', setup: put('mixed.txt', 'a\r\nb\nc\r\nd\n'), prepare: [read('mixed.txt')],
    call: edit('mixed.txt', 'b\nc', 'B\nC'), ok: async (_text, env) => expect(await bytes(env.at('mixed.txt'))).toBe('a\r\nB\nC\r\nd\n'),
  },
  {
    name: 'a CRLF file overwritten with bare LF content stays CRLF', group: 'content', setup: put('crlf.txt', 'x\r\ny\r\n'), prepare: [read('crlf.txt')],
    call: write('crlf.txt', 'p\nq\n'), ok: async (_text, env) => expect(await bytes(env.at('crlf.txt'))).toBe('p\r\nq\r\n'),
  },
  {
    name: 'a UTF-8 BOM survives an edit', group: 'content', setup: put('bom.txt', '\uFEFFkey = 1\n'), prepare: [read('bom.txt')],
    call: edit('bom.txt', 'key = 1', 'key = 2'), ok: async (_text, env) => expect(await readFile(env.at('bom.txt'), 'utf8')).toBe('\uFEFFkey = 2\n'),
  },
  {
    name: 'content with lone surrogates is written as replacement characters', group: 'content',
    call: write('surrogate.txt', 'a\uD800b\n'), ok: async (_text, env) => expect(await readFile(env.at('surrogate.txt'), 'utf8')).toBe('a\uFFFDb\n'),
  },

  // ── arguments ──────────────────────────────────────────────────────────────────────────────
  { name: 'a number as file_path is refused', group: 'argument', call: read(42), code: 'INVALID_ARGUMENTS' },
  { name: 'null as file_path is refused', group: 'argument', call: read(null), code: 'INVALID_ARGUMENTS' },
  { name: 'an array as arguments is refused', group: 'argument', call: { name: 'read', arguments: ['a.txt'] }, code: 'INVALID_ARGUMENTS' },
  { name: 'a string as arguments is refused', group: 'argument', call: { name: 'write', arguments: '{"file_path":"a"}' }, code: 'INVALID_ARGUMENTS' },
  { name: 'an extra key is refused', group: 'argument', setup: put('a.txt', 'a\n'), call: read('a.txt', { encoding: 'latin1' }), code: 'INVALID_ARGUMENTS' },
  {
    name: 'a __proto__ key is refused, not merged', group: 'argument', setup: put('a.txt', 'a\n'),
    call: { name: 'read', arguments: JSON.parse('{"file_path":"a.txt","__proto__":{"offset":2}}') }, code: 'INVALID_ARGUMENTS',
  },
  { name: 'a negative offset counts from the end', group: 'argument', setup: put('a.txt', 'a\n'), call: read('a.txt', { offset: -1 }),
    ok: (text) => expect(text).toContain('     1\ta\n\n[offset=-1 counts from the end') },
  { name: 'a NaN offset is refused', group: 'argument', setup: put('a.txt', 'a\n'), call: read('a.txt', { offset: Number.NaN }), code: 'INVALID_ARGUMENTS' },
  { name: 'an infinite limit is refused', group: 'argument', setup: put('a.txt', 'a\n'), call: read('a.txt', { limit: Number.POSITIVE_INFINITY }), code: 'INVALID_ARGUMENTS' },
  { name: 'a fractional offset is refused', group: 'argument', setup: put('a.txt', 'a\n'), call: read('a.txt', { offset: 1.5 }), code: 'INVALID_ARGUMENTS' },
  { name: 'a zero limit is refused', group: 'argument', setup: put('a.txt', 'a\n'), call: read('a.txt', { limit: 0 }), code: 'INVALID_ARGUMENTS' },
  { name: 'an offset given as a string is refused', group: 'argument', setup: put('a.txt', 'a\n'), call: read('a.txt', { offset: '2' }), code: 'INVALID_ARGUMENTS' },
  {
    name: 'a huge offset reports the end of the file', group: 'argument', setup: put('a.txt', 'a\nb\n'), call: read('a.txt', { offset: 1e15 }),
    ok: (text) => expect(text).toMatch(/has 2 lines; offset=1000000000000000 is past the end/),
  },
  {
    name: 'a huge limit is capped at the read limit', group: 'argument', setup: put('a.txt', 'a\nb\n'), call: read('a.txt', { limit: 1e15 }),
    ok: (text) => expect(text).toBe('     1\ta\n     2\tb\n\n[End of file: 2 lines.]'),
  },
  { name: 'a number as content is refused', group: 'argument', call: write('n.txt', 12345), code: 'INVALID_ARGUMENTS' },
  { name: 'a missing content is refused', group: 'argument', call: { name: 'write', arguments: { file_path: 'n.txt' } }, code: 'INVALID_ARGUMENTS' },
  { name: 'replace_all given as a string is refused', group: 'argument', setup: put('a.txt', 'a\n'), prepare: [read('a.txt')], call: edit('a.txt', 'a', 'b', { replace_all: 'yes' }), code: 'INVALID_ARGUMENTS' },
  { name: 'an edit whose old and new strings are identical is refused', group: 'argument', setup: put('a.txt', 'a\n'), prepare: [read('a.txt')], call: edit('a.txt', 'a', 'a'), code: 'INVALID_ARGUMENTS' },
  { name: 'an unknown tool is refused', group: 'argument', call: { name: 'rm', arguments: { file_path: 'a.txt' } }, code: 'UNKNOWN_TOOL' },
  {
    name: 'a 10 MB content is written exactly', group: 'argument', call: write('ten.txt', 'y'.repeat(10 * 1024 * 1024)),
    ok: async (_text, env) => expect((await readFile(env.at('ten.txt'))).length).toBe(10 * 1024 * 1024),
  },
]
