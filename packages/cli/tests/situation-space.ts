import fc from 'fast-check'
import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import type { Intent } from './follower'

/**
 * The space of situations issue 22 names, as data: what the target is, what the session saw of it,
 * the model's one mistake, and the tool family. A draw is turned into files on disk, the calls the
 * session made before (what it saw), the outside world's change, and the model's own call with its
 * mistake in it. `fewest` is derived from the draw by the rules below, one cost per dimension, so
 * the follower is held to the sum (a text that fixes two things at once may do better, never worse).
 */
/** `long`: a file one read cannot show whole (more lines than a read's limits), replaced whole by the fs family. */
export const NATURES = ['file', 'directory', 'symlink', 'swapped', 'binary', 'huge', 'long', 'empty', 'missing', 'read-only'] as const
export const SAW = ['nothing', 'part', 'all', 'stale', 'absent'] as const
export const MISTAKES = [
  'none', 'quotes', 'decorations', 'whitespace', 'nfd', 'no-break-space', 'bom', 'home-path', 'backslash-path', 'file-url', 'foreign-tool', 'foreign-argument', 'window',
] as const
export const FAMILIES = ['fs', 'editor'] as const
/** What the model means to do: change one line it quotes, or replace the whole file with its own text. */
export const GOALS = ['edit', 'write'] as const

export type Nature = (typeof NATURES)[number]
export type Saw = (typeof SAW)[number]
export type Mistake = (typeof MISTAKES)[number]
export type Family = (typeof FAMILIES)[number]
export type Goal = (typeof GOALS)[number]

export interface Draw {
  nature: Nature
  saw: Saw
  mistake: Mistake
  family: Family
  goal: Goal
  /** Lines of the file (a huge file has many more), and the one the model means to change. */
  lines: number
  target: number
}

export const drawArbitrary: fc.Arbitrary<Draw> = fc.record({
  nature: fc.constantFrom(...NATURES),
  saw: fc.constantFrom(...SAW),
  mistake: fc.constantFrom(...MISTAKES),
  family: fc.constantFrom(...FAMILIES),
  goal: fc.constantFrom(...GOALS),
  lines: fc.integer({ min: 3, max: 12 }),
  target: fc.integer({ min: 2, max: 12 }),
})

const TEXT_MISTAKES: readonly Mistake[] = ['quotes', 'decorations', 'whitespace', 'nfd', 'no-break-space', 'bom']
const PATH_MISTAKES: readonly Mistake[] = ['home-path', 'backslash-path', 'file-url']
const HUGE_LINES = 30_000
/** More lines than one `read` shows (its 2,000-line and 50 KiB limits): reading it takes two calls. */
const LONG_LINES = 2_500

/** The draw as a situation can have it: a missing file was seen as nothing or absent, a swapped one was read, … */
export function settle(draw: Draw): Draw {
  const d = { ...draw, target: Math.min(draw.target, draw.lines) }
  // A whole replacement of a file longer than one read, in the family whose write needs every line seen first.
  if (d.nature === 'long') Object.assign(d, { family: 'fs', goal: 'write', lines: LONG_LINES, saw: d.saw === 'nothing' || d.saw === 'absent' ? 'nothing' : 'part' })
  if (d.nature === 'long' && d.mistake === 'window') d.mistake = 'none'
  // A whole-file write quotes nothing, so text drift has no place in it; it is drawn on files a write can replace in one go.
  if (d.goal === 'write' && (['directory', 'huge', 'binary', 'swapped'].includes(d.nature) || d.mistake === 'window')) d.goal = 'edit'
  if (d.goal === 'write' && TEXT_MISTAKES.includes(d.mistake)) d.mistake = 'none'
  if (d.nature === 'huge') d.lines = HUGE_LINES
  if (d.nature === 'huge') d.target = HUGE_LINES - 10_000 + d.target
  if (d.nature === 'missing') d.saw = d.saw === 'absent' ? 'absent' : 'nothing'
  if (d.nature === 'directory' || d.nature === 'binary') d.saw = 'nothing'
  if (d.nature === 'swapped') d.saw = 'all'
  if (d.nature === 'empty' && d.saw !== 'nothing') d.saw = 'all'
  if (d.nature === 'huge' && d.saw === 'all') d.saw = 'part'
  // Text drift needs a line to drift from; the window mistake is a read of a file that exists.
  if (!hasLines(d) && TEXT_MISTAKES.includes(d.mistake)) d.mistake = 'none'
  if (d.mistake === 'window' && !hasLines(d)) d.mistake = 'none'
  if (d.nature === 'directory' && (PATH_MISTAKES.includes(d.mistake) || d.mistake === 'foreign-argument')) d.mistake = 'none'
  return d
}

/**
 * What a whole-file replacement costs beyond the call. A new file: nothing. In the editor, `create`
 * never replaces: view, then `str_replace` of every line (2). In the fs family every line must have
 * been seen: nothing seen costs the refusal, the read, the retry (2); part, the refusal, the read
 * from the first unseen line and the retry, twice at most when unseen lines lie on both sides (4);
 * a stale basis, the refusal that shows the current text and the retry, and a read if what it showed
 * leaves lines unseen (2); absent, the refusal, the read and the retry (2). A read-only file is found
 * read-only by the last of these calls: its mode is not known to the tools before the provider's check.
 */
function writeBasis(d: Draw): number {
  if (d.nature === 'missing') return 0
  if (d.family === 'editor') return d.saw === 'absent' && d.nature !== 'empty' ? 3 : 2
  // Longer than one read: the refusal names the first unseen line and says to read on to the end (two reads), then the retry.
  // Seen nothing: "read the file" shows its start only, so the seen rule refuses once more before that.
  if (d.nature === 'long') return d.saw === 'part' ? 3 : 4
  switch (d.saw) {
    case 'nothing': return 2
    case 'part': return 4
    case 'all': return 0
    case 'stale':
    case 'absent': return 2
  }
}

const hasLines = (d: Draw) => d.nature !== 'empty' && d.nature !== 'missing' && d.nature !== 'binary' && d.nature !== 'directory'

/** Line `i` of a drawn file: indented, with an accented name, a quoted value and a space before `=`. */
export const lineText = (i: number) => `  café_${i} = "value ${i}"`
export const changed = (i: number) => `  café_${i} = "VALUE ${i}"`
const fileText = (count: number) => Array.from({ length: count }, (_, i) => lineText(i + 1)).join('\n') + '\n'
/** What the model wants done to the line it means, whatever form of it a text makes it copy. */
const rewrite = (i: number) => (text: string) => text.replace(`value ${i}`, `VALUE ${i}`)

/** The model's copy of line `i`, with its mistake in it. */
function copied(draw: Draw): string {
  const line = lineText(draw.target)
  switch (draw.mistake) {
    case 'quotes': return line.replaceAll('"', "'")
    case 'decorations': return `${String(draw.target).padStart(6)}\t${line}`
    case 'whitespace': return `    ${line.trim()}`
    case 'nfd': return line.normalize('NFD')
    case 'no-break-space': return line.replace(' = ', '\u00a0= ')
    case 'bom': return `\ufeff${line}`
    default: return line
  }
}

export interface Planned {
  /** Where the model's file is, relative to the session's working directory, and where its bytes land. */
  file: string
  real: string
  setup: (abs: (name: string) => string) => Promise<void>
  /** The session's calls before the mistake (what it saw), then the outside world's change. Not counted. */
  before: (at: (name: string) => string, abs: (name: string) => string) => (Intent | (() => Promise<void>))[]
  goal: (at: (name: string) => string, abs: (name: string) => string) => Intent
  /** The bytes the real file must hold afterwards (null: no file), for each way the follower may end. */
  expected: { done?: string | Buffer | null; stopped: string | Buffer | null }
  ends: readonly ('done' | 'stopped')[]
  fewest: number
}

/** A draw, planned: files, the calls that make up what was seen, the model's call, and what must hold. */
export function plan(draw: Draw): Planned {
  const d = settle(draw)
  const editor = d.family === 'editor'
  const file = d.nature === 'directory' ? 'dir/a.txt' : 'a.txt'
  const real = d.nature === 'symlink' || d.nature === 'swapped' ? 'real.txt' : file
  const original = d.nature === 'empty' || d.nature === 'missing' ? (d.nature === 'empty' ? '' : null) : fileText(d.lines)
  const outsideLine = '# edited by another process'
  // The stale world: another process rewrote line 1 after the session saw the file.
  const afterOutside = original !== null && d.saw === 'stale' ? original.replace(lineText(1), outsideLine) : original
  const content = `${changed(d.target)}\n`
  const setup = async (abs: (name: string) => string) => {
    await mkdir(abs('dir'), { recursive: true })
    if (d.nature === 'binary') return writeFile(abs(file), BINARY)
    if (d.nature === 'directory') return writeFile(abs(file), original!)
    if (original === null) return
    // Absent at first: the session sees nothing there, then another process creates it.
    if (d.saw === 'absent') return
    await writeFile(abs(real), original)
    if (d.nature === 'read-only') await chmod(abs(real), 0o444)
    if (d.nature === 'symlink') await symlink(abs(real), abs(file))
    if (d.nature === 'swapped') await writeFile(abs(file), original)
  }
  const view = (at: (name: string) => string, range?: number[]): Intent => editor
    ? { tool: 'str_replace_editor', args: { command: 'view', path: at(file), ...(range === undefined ? {} : { view_range: range }) } }
    : { tool: 'read', args: { file_path: at(file), ...(range === undefined ? {} : { offset: range[0], limit: range[1]! - range[0]! + 1 }) } }
  const before = (at: (name: string) => string): (Intent | (() => Promise<void>))[] => {
    const around = [Math.max(1, d.target - 2), Math.min(d.lines, d.target + 2)]
    switch (d.saw) {
      case 'nothing': return []
      case 'part': return [view(at, around)]
      case 'all': return [view(at)]
      case 'stale': return [view(at, d.nature === 'huge' ? around : undefined)]
      case 'absent': return [view(at)]
    }
  }
  const goal = (at: (name: string) => string, abs: (name: string) => string): Intent => {
    const path = pathAsWritten(d, at(d.nature === 'directory' ? 'dir' : file), abs(d.nature === 'directory' ? 'dir' : file))
    if (d.mistake === 'window') return windowGoal(d, path)
    if (d.goal === 'write') return writeGoal(d, path, wholeContent(d))
    const old = copied(d)
    const intent = editor
      ? { tool: 'str_replace_editor', args: { command: 'str_replace', path, old_str: old, new_str: rewrite(d.target)(old) } }
      : { tool: 'edit', args: { file_path: path, old_string: old, new_string: rewrite(d.target)(old) } }
    const extra = { rewrite: rewrite(d.target), content, ...(d.nature === 'directory' ? { name: 'a.txt' } : {}) }
    if (d.mistake === 'foreign-tool') {
      return editor
        ? { tool: 'str_replace', args: { path, old_str: old, new_str: rewrite(d.target)(old) }, ...extra }
        : { tool: 'edit_file', args: { path, old_str: old, new_str: rewrite(d.target)(old) }, ...extra }
    }
    if (d.mistake === 'foreign-argument') {
      return editor
        ? { tool: intent.tool, args: { command: 'str_replace', file_path: path, old_string: old, new_string: rewrite(d.target)(old) }, ...extra }
        : { tool: intent.tool, args: { path, old_string: old, new_string: rewrite(d.target)(old) }, ...extra }
    }
    return { ...intent, ...extra }
  }
  return {
    file, real, setup, goal, fewest: fewest(d), ...outcome(d, original, afterOutside, content),
    before: (at, abs) => [...before(at), () => outside(d, real, afterOutside, abs)],
  }
}

/** The outside world between what the session saw and the model's call. */
async function outside(d: Draw, real: string, after: string | null, abs: (name: string) => string): Promise<void> {
  if (d.saw === 'absent' && after !== null && d.nature !== 'missing') {
    await writeFile(abs(real), after)
    if (d.nature === 'symlink') await symlink(abs(real), abs('a.txt'))
  }
  if (d.saw === 'stale' && after !== null) await writeFile(abs(real), after)
  if (d.nature === 'swapped') {
    await rm(abs('a.txt'))
    await symlink(abs(real), abs('a.txt'))
  }
  // Made read-only where it is made: a mode change after the read would rightly make that read stale.
  if (d.nature === 'read-only' && d.saw === 'absent') await chmod(abs(real), 0o444)
  if (d.nature === 'read-only' && d.saw === 'stale') await chmod(abs(real), 0o444)
}

function pathAsWritten(d: Draw, relative: string, absolute: string): string {
  switch (d.mistake) {
    case 'home-path': return `~/${relative}`
    case 'backslash-path': return relative.includes('/') ? relative.replaceAll('/', '\\') : `.\\${relative}`
    case 'file-url': return `file://${absolute}`
    default: return relative
  }
}

/** The whole text the model means the file to hold: the file as it saw it, its line changed (or that line alone, for a file it never had). */
function wholeContent(d: Draw): string {
  if (d.nature === 'missing' || d.nature === 'empty') return `${changed(d.target)}\n`
  return fileText(d.lines).replace(lineText(d.target), changed(d.target))
}

function writeGoal(d: Draw, path: string, content: string): Intent {
  const extra = { content }
  if (d.family === 'editor') {
    if (d.mistake === 'foreign-tool') return { tool: 'create_file', args: { path, content }, ...extra }
    if (d.mistake === 'foreign-argument') return { tool: 'str_replace_editor', args: { command: 'create', file_path: path, content }, ...extra }
    return { tool: 'str_replace_editor', args: { command: 'create', path, file_text: content }, ...extra }
  }
  if (d.mistake === 'foreign-tool') return { tool: 'write_file', args: { path, content }, ...extra }
  if (d.mistake === 'foreign-argument') return { tool: 'write', args: { path, content }, ...extra }
  return { tool: 'write', args: { file_path: path, content }, ...extra }
}

/** A read with an out-of-range window: negative (from the end), zero, or past the end. */
function windowGoal(d: Draw, path: string): Intent {
  const kind = d.target % 3
  if (d.family === 'editor') {
    const range = kind === 0 ? [-2, -1] : kind === 1 ? [0, 2] : [2, d.lines + 5]
    return { tool: 'str_replace_editor', args: { command: 'view', path, view_range: range } }
  }
  const offset = kind === 0 ? -2 : kind === 1 ? 0 : d.lines + 5
  return { tool: 'read', args: { file_path: path, offset } }
}

/** How the follower may end, and the bytes each way leaves. */
function outcome(d: Draw, original: string | null, after: string | null, content: string): Pick<Planned, 'expected' | 'ends'> {
  if (d.mistake === 'window') return { ends: ['done', 'stopped'], expected: { done: after, stopped: after } }
  if (d.goal === 'write') {
    const whole = wholeContent(d)
    if (d.nature === 'read-only') return { ends: ['stopped'], expected: { stopped: after } }
    // A stale write is retried once its refusal showed the current text: the model's text then replaces what it saw.
    return { ends: ['done'], expected: { done: whole, stopped: after } }
  }
  switch (d.nature) {
    case 'binary': return { ends: ['stopped'], expected: { stopped: BINARY } }
    case 'read-only': return { ends: ['stopped'], expected: { stopped: after } }
    case 'missing':
    case 'empty': return { ends: ['done'], expected: { done: content, stopped: original } }
    default: return { ends: ['done'], expected: { done: after!.replace(lineText(d.target), changed(d.target)), stopped: after } }
  }
}

const BINARY = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0])

/**
 * The fewest calls the rules allow, one cost per dimension: the call itself; a read first when the
 * session has no basis (a refusal that names the read, the read, the retry); one retry after a
 * refusal that shows the current text or the closest lines (stale, drift); one retry after a text
 * that names the right path, tool or argument.
 */
export function fewest(draw: Draw): number {
  const d = settle(draw)
  if (d.mistake === 'window') return d.family === 'editor' && d.target % 3 === 2 ? 2 : 1
  const named = PATH_MISTAKES.includes(d.mistake) || d.mistake === 'foreign-tool' || d.mistake === 'foreign-argument' ? 1 : 0
  if (d.goal === 'write') return 1 + named + writeBasis(d)
  switch (d.nature) {
    case 'binary': return 1 + named
    case 'directory': return 4 + named + (TEXT_MISTAKES.includes(d.mistake) ? 1 : 0)
    case 'missing': return 2 + named
    case 'empty': return (d.saw === 'nothing' ? 2 : 0) + 2 + named
    default: {
      // No basis (nothing seen, or a link now leads to a file never read): the refusal, the read, the retry.
      // A stale basis: the refusal shows the current text and counts as the read, so only the retry.
      const unseen = d.saw === 'nothing' || d.nature === 'swapped' || (d.nature === 'symlink' && d.saw === 'absent')
      const basis = unseen ? 2 : d.saw === 'stale' || d.saw === 'absent' ? 1 : 0
      return 1 + basis + named + (TEXT_MISTAKES.includes(d.mistake) ? 1 : 0)
    }
  }
}

