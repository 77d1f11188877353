import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type Intent, shownLines, type Step } from './follower'

/**
 * The 41 situations of issue 13 and those added since, each in both tool families where it exists there. `fewest` is the
 * least number of calls the rules allow (docs/situations.md says why, row by row); `ends` is how
 * the follower must finish: `done` (the model's goal reached) or `stopped` (a text said, truly,
 * that no call of these tools does it, and named what the target is).
 */
export type Family = 'fs' | 'editor'

export interface World {
  /** The situation's own directory, relative to the workspace root (the session's cwd). */
  at(name: string): string
  /** The same, absolute: the outside world (formatters, other processes) works here. */
  abs(name: string): string
  put(name: string, data: string | Uint8Array): Promise<void>
  bytes(name: string): Promise<Buffer | undefined>
}

export interface Side {
  plan: (w: World) => (Intent | (() => Promise<void>))[]
  fewest: number
  ends: 'done' | 'stopped'
  /** What must hold on disk afterwards. */
  check?: (w: World) => Promise<void>
  /** For a read goal: whether the texts showed the model what it wanted. */
  saw?: (steps: Step[]) => boolean
  /** Why this family cannot recover here today: the test then holds that the goal is not reached. */
  cannot?: string
}

export interface Situation {
  id: string
  title: string
  /** Only the stale situations differ by `staleRefusalObserves`; the rest run with the shipped config. */
  observes?: boolean
  setup?: (w: World) => Promise<void>
  fs?: Side
  editor?: Side
}

const E = 'str_replace_editor'
const read = (file_path: string, more: Partial<Intent> & { offset?: number; limit?: number } = {}): Intent => {
  const { offset, limit, ...rest } = more
  return { tool: 'read', args: { file_path, ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }) }, ...rest }
}
const view = (path: string, range?: number[], more: Partial<Intent> = {}): Intent =>
  ({ tool: E, args: { command: 'view', path, ...(range === undefined ? {} : { view_range: range }) }, ...more })
const edit = (file_path: string, old: string, rewrite: (s: string) => string, more: Partial<Intent> = {}): Intent =>
  ({ tool: 'edit', args: { file_path, old_string: old, new_string: rewrite(old) }, rewrite, ...more })
const replace = (path: string, old: string, rewrite: (s: string) => string, more: Partial<Intent> = {}): Intent =>
  ({ tool: E, args: { command: 'str_replace', path, old_str: old, new_str: rewrite(old) }, rewrite, ...more })
const write = (file_path: string, content: string, more: Partial<Intent> = {}): Intent =>
  ({ tool: 'write', args: { file_path, content }, content, ...more })
const create = (path: string, file_text: string, more: Partial<Intent> = {}): Intent =>
  ({ tool: E, args: { command: 'create', path, file_text }, content: file_text, ...more })
const insert = (path: string, line: number, text: string, after?: string): Intent =>
  ({ tool: E, args: { command: 'insert', path, insert_line: line, new_str: text }, ...(after === undefined ? {} : { after }) })

const expectBytes = (name: string, want: string | undefined) => async (w: World) => {
  const got = (await w.bytes(name))?.toString('utf8')
  if (got !== want) throw new Error(`${name} holds ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`)
}
/** Long enough for the encoding detector to decide: Windows-1252, and the same bytes in Latin-1. */
const FRENCH = "Le château de la forêt était très ancien ; les élèves étudiaient près de la fenêtre.\n"
  + "À l'été, on mangeait des crêpes et des gâteaux à la crème : c'était naïf et délicieux.\n"
const expectLatin1 = (name: string, want: string) => async (w: World) => {
  if (!(await w.bytes(name))?.equals(Buffer.from(want, 'latin1'))) throw new Error(`${name} does not hold the expected Windows-1252 bytes`)
}
const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
const big = Array.from({ length: 30_010 }, (_, i) => `row ${String(i + 1).padStart(5, '0')} ${'x'.repeat(20)}`).join('\n') + '\n'
/** Line `number` was shown whole by one text, or its pieces shown one after another make it up. */
const sawLine = (number: number, text: string) => (steps: Step[]) => {
  const pieces = steps.map((step) => shownLines(step.text).get(number) ?? '')
  return pieces.includes(text) || pieces.join('') === text
}
/** The quoted string `from` becomes `to`, in whichever quotes the copied text has. */
const quoted = (from: string, to: string) => (text: string) => text.replace(new RegExp(`(["'])${from}\\1`), `$1${to}$1`)
const swap = (from: string, to: string) => (text: string) => text.replace(from, to)

export const SITUATIONS: Situation[] = [
  { id: 'dir-edit', title: 'edit / str_replace on a directory', setup: async (w) => { await mkdir(w.abs('src')); await w.put('src/app.py', 'x = 1\n') },
    fs: { plan: (w) => [edit(w.at('src'), 'x = 1', swap('1', '2'), { name: 'app.py' })], fewest: 4, ends: 'done', check: expectBytes('src/app.py', 'x = 2\n') },
    editor: { plan: (w) => [replace(w.at('src'), 'x = 1', swap('1', '2'), { name: 'app.py' })], fewest: 4, ends: 'done', check: expectBytes('src/app.py', 'x = 2\n') } },
  { id: 'dir-edit-2', title: 'multi_edit / insert on a directory', setup: async (w) => { await mkdir(w.abs('src')); await w.put('src/app.py', 'x = 1\n') },
    fs: { plan: (w) => [{ tool: 'multi_edit', args: { file_path: w.at('src'), edits: [{ old_string: 'x = 1', new_string: 'x = 2' }] }, rewrite: swap('1', '2'), name: 'app.py' }],
      fewest: 4, ends: 'done', check: expectBytes('src/app.py', 'x = 2\n') },
    editor: { plan: (w) => [{ ...insert(w.at('src'), 1, 'y = 2'), name: 'app.py' }], fewest: 4, ends: 'done', check: expectBytes('src/app.py', 'x = 1\ny = 2\n') } },
  { id: 'dir-write', title: 'write / create at a directory\'s path', setup: (w) => mkdir(w.abs('src')),
    fs: { plan: (w) => [write(w.at('src'), 'x\n', { name: 'notes.txt' })], fewest: 2, ends: 'done', check: expectBytes('src/notes.txt', 'x\n') },
    editor: { plan: (w) => [create(w.at('src'), 'x\n', { name: 'notes.txt' })], fewest: 2, ends: 'done', check: expectBytes('src/notes.txt', 'x\n') } },
  { id: 'dir-read', title: 'read / view of a directory', setup: async (w) => { await mkdir(w.abs('src')); await w.put('src/app.py', 'x\n') },
    fs: { plan: (w) => [read(w.at('src'))], fewest: 1, ends: 'done' },
    editor: { plan: (w) => [view(w.at('src'))], fewest: 1, ends: 'done' } },
  { id: 'root-write', title: 'write / create at the workspace root `.`',
    fs: { plan: () => [write('.', 'x\n', { name: 'notes-fs.txt' })], fewest: 2, ends: 'done' },
    editor: { plan: () => [create('.', 'x\n', { name: 'notes-editor.txt' })], fewest: 2, ends: 'done' } },
  { id: 'binary-edit', title: 'edit / str_replace of a binary file', setup: (w) => w.put('logo.png', Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0, 1)),
    fs: { plan: (w) => [edit(w.at('logo.png'), 'PNG', swap('PNG', 'GIF'))], fewest: 1, ends: 'stopped' },
    editor: { plan: (w) => [replace(w.at('logo.png'), 'PNG', swap('PNG', 'GIF'))], fewest: 1, ends: 'stopped' } },
  { id: 'binary-read', title: 'read / view of a binary file', setup: (w) => w.put('logo.png', Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0, 1)),
    fs: { plan: (w) => [read(w.at('logo.png'))], fewest: 1, ends: 'stopped' },
    editor: { plan: (w) => [view(w.at('logo.png'))], fewest: 1, ends: 'stopped' } },
  // Four bytes not UTF-8, too few for the detector (on in the shipped config): read first, as any unread file, and the read names the `encoding` argument.
  { id: 'latin1-edit', title: 'edit / str_replace of a file that is not UTF-8', setup: (w) => w.put('latin1.txt', Uint8Array.of(0x63, 0x61, 0x66, 0xe9, 0x0a)),
    fs: { plan: (w) => [edit(w.at('latin1.txt'), 'caf', swap('caf', 'CAF'))], fewest: 2, ends: 'stopped' },
    editor: { plan: (w) => [replace(w.at('latin1.txt'), 'caf', swap('caf', 'CAF'))], fewest: 2, ends: 'stopped' } },
  { id: 'latin1-write', title: 'write / create over a file that is not UTF-8', setup: (w) => w.put('latin1.txt', Uint8Array.of(0x63, 0x61, 0x66, 0xe9, 0x0a)),
    fs: { plan: (w) => [write(w.at('latin1.txt'), 'café\n')], fewest: 2, ends: 'stopped', check: async (w) => { if ((await w.bytes('latin1.txt'))?.at(3) !== 0xe9) throw new Error('replaced') } },
    editor: { plan: (w) => [create(w.at('latin1.txt'), 'café\n')], fewest: 2, ends: 'stopped' } },
  { id: 'legacy-edit', title: 'edit / str_replace of an unread file in Windows-1252', setup: (w) => w.put('notes.txt', Buffer.from(FRENCH, 'latin1')),
    fs: { plan: (w) => [edit(w.at('notes.txt'), 'très ancien', swap('très', 'fort'))], fewest: 3, ends: 'done', check: expectLatin1('notes.txt', FRENCH.replace('très', 'fort')) },
    editor: { plan: (w) => [replace(w.at('notes.txt'), 'très ancien', swap('très', 'fort'))], fewest: 3, ends: 'done', check: expectLatin1('notes.txt', FRENCH.replace('très', 'fort')) } },
  { id: 'fifo-read', title: 'read / view of a FIFO', setup: async (w) => { execFileSync('mkfifo', [w.abs('pipe')]) },
    fs: { plan: (w) => [read(w.at('pipe'))], fewest: 1, ends: 'stopped' },
    editor: { plan: (w) => [view(w.at('pipe'))], fewest: 1, ends: 'stopped' } },
  { id: 'fifo-edit', title: 'edit / str_replace of a FIFO', setup: async (w) => { execFileSync('mkfifo', [w.abs('pipe')]) },
    fs: { plan: (w) => [edit(w.at('pipe'), 'a', swap('a', 'b'))], fewest: 1, ends: 'stopped' },
    editor: { plan: (w) => [replace(w.at('pipe'), 'a', swap('a', 'b'))], fewest: 1, ends: 'stopped' } },
  { id: 'device-read', title: 'read / view of a device', setup: async (w) => { execFileSync('mknod', [w.abs('null'), 'c', '1', '3']) },
    fs: { plan: (w) => [read(w.at('null'))], fewest: 1, ends: 'stopped' },
    editor: { plan: (w) => [view(w.at('null'))], fewest: 1, ends: 'stopped' } },
  { id: 'dangling-read', title: 'read / view of a dangling symlink', setup: (w) => symlink('gone.txt', w.abs('link.txt')),
    fs: { plan: (w) => [read(w.at('link.txt'))], fewest: 1, ends: 'stopped' },
    editor: { plan: (w) => [view(w.at('link.txt'))], fewest: 1, ends: 'stopped' } },
  { id: 'dangling-write', title: 'write / create through a dangling symlink', setup: (w) => symlink('gone.txt', w.abs('link.txt')),
    fs: { plan: (w) => [write(w.at('link.txt'), 'a\n')], fewest: 1, ends: 'stopped', check: expectBytes('gone.txt', undefined) },
    editor: { plan: (w) => [create(w.at('link.txt'), 'a\n')], fewest: 1, ends: 'stopped', check: expectBytes('gone.txt', undefined) } },
  ...stale(true),
  ...stale(false),
  ...notFound('indent', 'indentation differs', 'def f():\n    if x:\n        return 1\n', '  if x:\n    return 1', swap('if x', 'if y'), 'def f():\n    if y:\n        return 1\n'),
  ...notFound('trailing', 'trailing whitespace differs', 'alpha\nbeta\n', 'alpha \nbeta', swap('alpha', 'ALPHA'), 'ALPHA\nbeta\n'),
  { id: 'line-endings', title: 'old_string with LF for a CRLF file (matching is in LF space, so it is no failure)', setup: (w) => w.put('a.txt', 'one\r\ntwo\r\n'),
    fs: { plan: (w) => [read(w.at('a.txt')), edit(w.at('a.txt'), 'one\ntwo', swap('two', 'TWO'))], fewest: 2, ends: 'done', check: expectBytes('a.txt', 'one\r\nTWO\r\n') },
    editor: { plan: (w) => [view(w.at('a.txt')), replace(w.at('a.txt'), 'one\ntwo', swap('two', 'TWO'))], fewest: 2, ends: 'done', check: expectBytes('a.txt', 'one\r\nTWO\r\n') } },
  ...notFound('quotes', 'quotes differ', "const a = 'x'\n", 'const a = "x"', quoted('x', 'y'), "const a = 'y'\n"),
  { id: 'same', title: 'old == new', setup: (w) => w.put('a.txt', 'same\n'),
    fs: { plan: (w) => [read(w.at('a.txt')), edit(w.at('a.txt'), 'same', (s) => s)], fewest: 2, ends: 'stopped', check: expectBytes('a.txt', 'same\n') },
    editor: { plan: (w) => [view(w.at('a.txt')), replace(w.at('a.txt'), 'same', (s) => s)], fewest: 2, ends: 'stopped', check: expectBytes('a.txt', 'same\n') } },
  { id: 'ambiguous-lines', title: 'ambiguous match on two lines', setup: (w) => w.put('a.py', 'a = 0\nprint(a)\nb = 0\nprint(a)\n'),
    fs: { plan: (w) => [read(w.at('a.py')), edit(w.at('a.py'), 'print(a)', swap('a', 'b'), { occurrence: 2 })], fewest: 3, ends: 'done', check: expectBytes('a.py', 'a = 0\nprint(a)\nb = 0\nprint(b)\n') },
    editor: { plan: (w) => [view(w.at('a.py')), replace(w.at('a.py'), 'print(a)', swap('a', 'b'), { occurrence: 2 })], fewest: 3, ends: 'done', check: expectBytes('a.py', 'a = 0\nprint(a)\nb = 0\nprint(b)\n') } },
  { id: 'ambiguous-one-line', title: 'two matches on one line', setup: (w) => w.put('a.txt', 'x = x + 1\n'),
    fs: { plan: (w) => [read(w.at('a.txt')), edit(w.at('a.txt'), 'x', swap('x', 'y'))], fewest: 3, ends: 'done', check: expectBytes('a.txt', 'y = x + 1\n') },
    editor: { plan: (w) => [view(w.at('a.txt')), replace(w.at('a.txt'), 'x', swap('x', 'y'))], fewest: 3, ends: 'done', check: expectBytes('a.txt', 'y = x + 1\n') } },
  { id: 'range-last-line', title: 'a window that ends past the last line', setup: (w) => w.put('a.txt', 'a\nb\nc\n'),
    fs: { plan: (w) => [read(w.at('a.txt'), { offset: 2, limit: 3, whole: true })], fewest: 1, ends: 'done' },
    editor: { plan: (w) => [view(w.at('a.txt'), [2, 4], { whole: true })], fewest: 2, ends: 'done' } },
  { id: 'range-past-end', title: 'a window that starts past the end', setup: (w) => w.put('a.txt', 'a\nb\nc\n'),
    fs: { plan: (w) => [read(w.at('a.txt'), { offset: 5 })], fewest: 1, ends: 'done' },
    editor: { plan: (w) => [view(w.at('a.txt'), [5, 6])], fewest: 1, ends: 'stopped' } },
  { id: 'window-eof', title: 'windows to the end of a file', setup: (w) => w.put('a.txt', lines(2500)),
    fs: { plan: (w) => [read(w.at('a.txt'), { whole: true })], fewest: 2, ends: 'done' },
    editor: { plan: (w) => [view(w.at('a.txt'), undefined, { whole: true })], fewest: 2, ends: 'done' } },
  { id: 'long-line', title: 'a 5,000-character line, and how to see the rest', setup: (w) => w.put('min.js', `${'ab'.repeat(2500)}\n`),
    fs: { plan: (w) => [read(w.at('min.js'), { whole: true })], fewest: 3, ends: 'done', saw: sawLine(1, 'ab'.repeat(2500)) },
    editor: { plan: (w) => [view(w.at('min.js'), undefined, { whole: true })], fewest: 2, ends: 'done', saw: sawLine(1, 'ab'.repeat(2500)) } },
  { id: 'overwrite', title: 'write over an existing file (read first) / create over an existing file', setup: (w) => w.put('a.txt', 'one\ntwo\nthree\n'),
    fs: { plan: (w) => [read(w.at('a.txt')), write(w.at('a.txt'), 'one\n2\nthree\n')], fewest: 2, ends: 'done', check: expectBytes('a.txt', 'one\n2\nthree\n') },
    editor: { plan: (w) => [create(w.at('a.txt'), 'one\n2\nthree\n')], fewest: 3, ends: 'done', check: expectBytes('a.txt', 'one\n2\nthree\n') } },
  { id: 'partial-write', title: 'write over a file of which only lines 10-14 were read', setup: (w) => w.put('a.txt', lines(50)),
    fs: { plan: (w) => [read(w.at('a.txt'), { offset: 10, limit: 5 }), write(w.at('a.txt'), 'short\n')], fewest: 4, ends: 'done', check: expectBytes('a.txt', 'short\n') } },
  { id: 'large', title: 'an edit at line 30,002 of a file above diffMaxBytes', setup: (w) => w.put('big.txt', big),
    fs: { plan: (w) => [read(w.at('big.txt'), { offset: 30_001, limit: 3 }), edit(w.at('big.txt'), 'row 30002 ', swap('row 30002 ', 'ROW 30002 '))], fewest: 2, ends: 'done',
      check: async (w) => { if (!(await w.bytes('big.txt'))!.toString().includes('\nROW 30002 x')) throw new Error('not edited') } },
    editor: { plan: (w) => [view(w.at('big.txt'), [30_001, 30_003]), replace(w.at('big.txt'), 'row 30002 ', swap('row 30002 ', 'ROW 30002 '))], fewest: 2, ends: 'done',
      check: async (w) => { if (!(await w.bytes('big.txt'))!.toString().includes('\nROW 30002 x')) throw new Error('not edited') } } },
  { id: 'outside', title: 'a path outside the root',
    fs: { plan: () => [write('../outside-fs.txt', 'x\n')], fewest: 1, ends: 'stopped' },
    editor: { plan: () => [create('../outside-editor.txt', 'x\n')], fewest: 1, ends: 'stopped' } },
  { id: 'read-only', title: 'an edit of a read-only (0444) file', setup: async (w) => { await w.put('ro.txt', 'keep\n'); await chmod(w.abs('ro.txt'), 0o444) },
    fs: { plan: (w) => [read(w.at('ro.txt')), edit(w.at('ro.txt'), 'keep', swap('keep', 'gone'))], fewest: 2, ends: 'stopped', check: expectBytes('ro.txt', 'keep\n') },
    editor: { plan: (w) => [view(w.at('ro.txt')), replace(w.at('ro.txt'), 'keep', swap('keep', 'gone'))], fewest: 2, ends: 'stopped', check: expectBytes('ro.txt', 'keep\n') } },
  { id: 'missing', title: 'an edit of a file that does not exist',
    fs: { plan: (w) => [edit(w.at('new.txt'), 'a', swap('a', 'b'), { content: 'b\n' })], fewest: 2, ends: 'done', check: expectBytes('new.txt', 'b\n') },
    editor: { plan: (w) => [replace(w.at('new.txt'), 'a', swap('a', 'b'), { content: 'b\n' })], fewest: 2, ends: 'done', check: expectBytes('new.txt', 'b\n') } },
  { id: 'undo-nothing', title: 'undo_edit with nothing to undo', setup: (w) => w.put('a.txt', 'one\n'),
    editor: { plan: (w) => [{ tool: E, args: { command: 'undo_edit', path: w.at('a.txt') } }], fewest: 1, ends: 'stopped', check: expectBytes('a.txt', 'one\n') } },
  { id: 'insert-past-end', title: 'insert at a line past the end', setup: (w) => w.put('a.txt', 'one\ntwo\n'),
    editor: { plan: (w) => [view(w.at('a.txt')), insert(w.at('a.txt'), 9, 'three')], fewest: 3, ends: 'done', check: expectBytes('a.txt', 'one\ntwo\nthree\n') } },
  { id: 'multi-edit-fails', title: 'multi_edit with one failing edit', setup: (w) => w.put('a.py', 'a = 1\nb = 2\n'),
    fs: { plan: (w) => [read(w.at('a.py')), { tool: 'multi_edit', args: { file_path: w.at('a.py'), edits: [{ old_string: 'a = 1', new_string: 'a = 10' }, { old_string: 'b = 2 ', new_string: 'b = 20 ' }] },
      rewrite: swap('2', '20'), editIndex: 1 }], fewest: 3, ends: 'done', check: expectBytes('a.py', 'a = 10\nb = 20\n') } },
  { id: 'grep-invalid', title: 'grep with an invalid pattern', setup: (w) => w.put('a.js', 'call(x)\n'),
    fs: { plan: (w) => [{ tool: 'grep', args: { pattern: 'call(', path: w.at('.') } }], fewest: 2, ends: 'done', saw: (steps) => /a\.js/.test(steps.at(-1)!.text) } },
  { id: 'glob-invalid', title: 'glob with an invalid pattern', setup: (w) => w.put('notes[draft.md', 'x\n'),
    fs: { plan: (w) => [{ tool: 'glob', args: { pattern: 'notes[draft.md', path: w.at('.') } }], fewest: 2, ends: 'done', saw: (steps) => /notes\[draft\.md/.test(steps.at(-1)!.text) } },
]

/** The stale situations, once with `staleRefusalObserves` on (shipped) and once off (library default). */
function stale(observes: boolean): Situation[] {
  const mode = observes ? 'on' : 'off'
  const after = observes ? 3 : 4
  return [
    { id: `stale-formatter-${mode}`, title: `a formatter changed the file since the read (option ${mode})`, observes, setup: (w) => w.put('a.py', "x = 'a'\n"),
      fs: { plan: (w) => [read(w.at('a.py')), () => w.put('a.py', 'x = "a"\n'), edit(w.at('a.py'), "x = 'a'", quoted('a', 'b'))],
        fewest: after, ends: 'done', check: expectBytes('a.py', 'x = "b"\n') },
      editor: { plan: (w) => [view(w.at('a.py')), () => w.put('a.py', 'x = "a"\n'), replace(w.at('a.py'), "x = 'a'", quoted('a', 'b'))],
        fewest: after, ends: 'done', check: expectBytes('a.py', 'x = "b"\n') } },
    { id: `stale-deleted-${mode}`, title: `the file was deleted since the read (option ${mode})`, observes, setup: (w) => w.put('a.txt', 'one\n'),
      fs: { plan: (w) => [read(w.at('a.txt')), () => rm(w.abs('a.txt')), edit(w.at('a.txt'), 'one', swap('one', 'uno'), { content: 'uno\n' })],
        fewest: after, ends: 'done', check: expectBytes('a.txt', 'uno\n') },
      editor: { plan: (w) => [view(w.at('a.txt')), () => rm(w.abs('a.txt')), replace(w.at('a.txt'), 'one', swap('one', 'uno'), { content: 'uno\n' })],
        fewest: after, ends: 'done', check: expectBytes('a.txt', 'uno\n') } },
    { id: `stale-appended-${mode}`, title: `another process appended to the file since the read (option ${mode})`, observes, setup: (w) => w.put('a.txt', 'one\n'),
      fs: { plan: (w) => [read(w.at('a.txt')), () => w.put('a.txt', 'one\ntwo\n'), write(w.at('a.txt'), 'one\ntwo\nthree\n')],
        fewest: after, ends: 'done', check: expectBytes('a.txt', 'one\ntwo\nthree\n') },
      editor: { plan: (w) => [view(w.at('a.txt')), () => w.put('a.txt', 'one\ntwo\n'), insert(w.at('a.txt'), 1, 'one and a half', 'one')],
        fewest: after, ends: 'done', check: expectBytes('a.txt', 'one\none and a half\ntwo\n') } },
  ]
}

/** A failed match after a read: the closest text leads to the exact old text in one more call. */
function notFound(id: string, what: string, file: string, wrong: string, rewrite: (s: string) => string, result: string): Situation[] {
  return [{
    id: `not-found-${id}`, title: `a failed match: ${what}`, setup: (w) => w.put('a.txt', file),
    fs: { plan: (w) => [read(w.at('a.txt')), edit(w.at('a.txt'), wrong, rewrite)], fewest: 3, ends: 'done', check: expectBytes('a.txt', result) },
    editor: { plan: (w) => [view(w.at('a.txt')), replace(w.at('a.txt'), wrong, rewrite)], fewest: 3, ends: 'done', check: expectBytes('a.txt', result) },
  }]
}

export function world(root: string, dir: string): World {
  return {
    at: (name) => (name === '.' ? dir : `${dir}/${name}`),
    abs: (name) => join(root, dir, name),
    put: (name, data) => writeFile(join(root, dir, name), data),
    bytes: async (name) => {
      try {
        return await readFile(join(root, dir, name))
      } catch {
        return undefined
      }
    },
  }
}
