import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { DSH_BIN } from './dsh-process'

/** Where the MCP bridge puts a result's error code (`ERROR_META_KEY` of dsh-mcp). */
const ERROR_META_KEY = 'ai.deepseek.dsh/error'

/**
 * A literal follower: an agent that makes its own first call (the situation's plan) and after that
 * only the one call the last result text names, parsed from the text by the fixed rules below. It
 * knows three things of its own: the change it wants (`rewrite`, applied to whatever lines a text
 * tells it to copy), the content it wants a file to hold, and which file of a listing it means.
 * It never guesses a tool or an argument a text did not name. A text that names no step after a
 * failure is a dead end; a repeated call with the same answer is a loop; both fail the situation.
 */

export type Args = Record<string, unknown>
export interface Call { tool: string; args: Args }

/** What the model wants from one of its own calls, beyond the call itself. */
export interface Intent extends Call {
  /** The change it means, applied to the lines a text tells it to copy (edit, str_replace, multi_edit). */
  rewrite?: (region: string) => string
  /** For multi_edit: which of `edits` the rewrite belongs to. */
  editIndex?: number
  /** For an ambiguous old_string: which occurrence (1-based, in file order) it means. */
  occurrence?: number
  /** For insert: the text of the line it means to insert after. */
  after?: string
  /** The content a file should hold when a text says to create it. */
  content?: string
  /** The file name it picks when a text offers `<dir>/<name>`, or a listing. */
  name?: string
  /** For read and view: the whole file (or line) is wanted, so continuation hints are followed. */
  whole?: boolean
  /** A call a text named in place of the model's own (another tool, or renamed arguments): it becomes the intent. */
  adopt?: boolean
}

export interface Step { call: Call; ok: boolean; code?: string; text: string }

export type Outcome = { kind: 'done' } | { kind: 'stopped'; because: string } | { kind: 'dead-end'; text: string } | { kind: 'loop' } | { kind: 'budget' }

export interface Session {
  call(call: Call): Promise<Step>
  close(): Promise<void>
}

/** `dsh start` over stdio in `cwd`, with the official MCP client. */
export async function startSession(cwd: string, configFile?: string): Promise<Session> {
  const client = new Client({ name: 'literal-follower', version: '0.0.0' })
  const args = [DSH_BIN, 'start', ...(configFile === undefined ? [] : ['--config', configFile])]
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd, stderr: 'ignore' }))
  return {
    async call(call) {
      const result = await client.callTool({ name: call.tool, arguments: call.args })
      const content = result.content as { type: string; text?: string }[]
      const text = content.map((part) => part.text ?? '').join('')
      const code = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code
      return { call, ok: result.isError !== true, ...(code === undefined ? {} : { code }), text }
    },
    close: () => client.close(),
  }
}

const EDITOR = 'str_replace_editor'
const pathOf = (call: Call) => String(call.args.file_path ?? call.args.path)
const withPath = (call: Call, path: string): Call =>
  ({ tool: call.tool, args: { ...call.args, ...(call.tool === EDITOR ? { path } : { file_path: path }) } })
const show = (family: 'fs' | 'editor', path: string): Call =>
  family === 'fs' ? { tool: 'read', args: { file_path: path } } : { tool: EDITOR, args: { command: 'view', path } }
const familyOf = (call: Call) => (call.tool === EDITOR ? 'editor' : 'fs') as 'fs' | 'editor'

/** Numbered lines (`cat -n` style) in a text, by number. */
export function shownLines(text: string): Map<number, string> {
  const lines = new Map<number, string>()
  for (const match of text.matchAll(/^ *(\d+)\t(.*)$/gm)) lines.set(Number(match[1]), match[2]!)
  return lines
}

/**
 * How a reader finds "these lines": a pasted line number dropped, what looks the same made the same
 * (Unicode composition, no-break spaces, invisible characters), whitespace squashed, quotes unified.
 */
const loose = (line: string) => line.replace(/\r$/, '').replace(/^ *\d+\t/, '').normalize('NFC').replace(/[\u200b-\u200d\u2060\ufeff]/g, '')
  .replace(/[\s]+/g, ' ').trim().replace(/["'`‘’“”]/g, "'")

/** The consecutive shown lines whose loose form is the loose form of `old`'s lines. */
function copyFrom(lines: Map<number, string>, old: string): string | undefined {
  const want = old.split('\n').map(loose)
  const numbers = [...lines.keys()].sort((a, b) => a - b)
  for (const start of numbers) {
    const got = want.map((_, i) => lines.get(start + i))
    if (got.every((line, i) => line !== undefined && loose(line) === want[i])) return got.join('\n')
  }
  return undefined
}

interface Memory {
  /** The last numbered lines shown of each path (absolute or as called). */
  seen: Map<string, Map<number, string>>
}

/** The intent after a text said to copy from shown lines: old_string from them, new_string rewritten. */
function rebased(intent: Intent, lines: Map<number, string>): Intent | undefined {
  if (intent.rewrite === undefined) return undefined
  const key = intent.tool === EDITOR ? ['old_str', 'new_str'] : ['old_string', 'new_string']
  if (intent.tool === 'multi_edit') {
    const edits = (intent.args.edits as Args[]).map((edit) => ({ ...edit }))
    const edit = edits[intent.editIndex ?? 0]!
    const copied = copyFrom(lines, String(edit.old_string))
    if (copied === undefined) return undefined
    edit.old_string = copied
    edit.new_string = intent.rewrite(copied)
    return { ...intent, args: { ...intent.args, edits } }
  }
  const copied = copyFrom(lines, String(intent.args[key[0]!]))
  if (copied === undefined) return undefined
  return { ...intent, args: { ...intent.args, [key[0]!]: copied, [key[1]!]: intent.rewrite(copied) } }
}

/** old_string widened to the whole lines of the meant occurrence, then by a line while still ambiguous. */
function widened(intent: Intent, lines: Map<number, string>): Intent | undefined {
  if (intent.rewrite === undefined) return undefined
  const [oldKey, newKey] = intent.tool === EDITOR ? ['old_str', 'new_str'] : ['old_string', 'new_string']
  const old = String(intent.args[oldKey])
  const numbers = [...lines.keys()].sort((a, b) => a - b)
  const text = numbers.map((n) => lines.get(n)!).join('\n')
  let at = -1
  for (let i = 0; i < (intent.occurrence ?? 1); i++) at = text.indexOf(old, at + 1)
  if (at < 0) return undefined
  let start = text.lastIndexOf('\n', at - 1) + 1
  let end = text.indexOf('\n', at + old.length)
  if (end < 0) end = text.length
  const count = (needle: string) => text.split(needle).length - 1
  while (count(text.slice(start, end)) > 1) {
    if (start > 0) start = text.lastIndexOf('\n', start - 2) + 1
    else if (end < text.length) end = (text.indexOf('\n', end + 1) + 1 || text.length + 1) - 1
    else return undefined
  }
  const region = text.slice(start, end)
  const local = at - start
  const changed = region.slice(0, local) + intent.rewrite(old) + region.slice(local + old.length)
  return { ...intent, args: { ...intent.args, [oldKey]: region, [newKey]: changed } }
}

type Next = { calls: Intent[] } | { stop: string } | undefined

/** Phrases after which no call of these tools can do what the model wanted: it stops, told why. */
const FINAL = [
  /pass the path of a text file\.?$/,
  /pass another path\.?$/,
  /pass the path of one\.?$/,
  /pass the path of one of those\.?$/,
  /otherwise it is not text these tools can show\.?$/,
  /pass the path of an existing file\.?$/,
  /pass the path of a regular file\.?$/,
  /Pass the path of a file or directory\.$/,
  /use a path inside the workspace\.?$/,
  /only paths inside it can be used\.?$/,
  /so this change would do nothing\.$/,
  /so the file would not change\.$/,
  /^No edit history found for .*\.$/,
  /is past the end of the file\. Call the dsh `read` tool with an offset from 1 to \d+\.$/,
  /should be within the range of lines of the file: \[1, \d+\]$/,
  /a change to it must be made another way\.$/,
  /is read-only/,
]

/** The one next step a text names, by the follower's fixed rules; `undefined` when it names none. */
export function nextStep(step: Step, intent: Intent, memory: Memory): Next {
  const { text, call } = step
  const family = familyOf(call)
  const path = pathOf(call)
  const last = text.trim().split('\n').at(-1)!.trim()
  // A directory: list it, then show the file meant in it, then the call on that file.
  if (/pass the path of a file in it \((the dsh `read` tool|the `view` command) lists the directory\)/.test(text)) {
    return { calls: [{ ...show(family, path), name: intent.name }, { ...intent, name: `in:${path}` }] }
  }
  const such = /pass the path of a new file inside it, such as (\S+)\/<name>/.exec(text)
  if (such !== null && intent.name !== undefined) return { calls: [{ ...intent, ...withPath(intent, `${such[1]}/${intent.name}`) }] }
  for (const final of FINAL) if (final.test(last) || final.test(text.trim())) return { stop: last }
  // Create, when a text says so, with the content the model wants there.
  if (/create it with the dsh `write` tool|the dsh `write` tool creates it anew|create the file with the dsh `write` tool/.test(text)) {
    return { calls: [{ tool: 'write', args: { file_path: path, content: intent.content } }] }
  }
  if (/use the `create` command/.test(text)) return { calls: [{ tool: EDITOR, args: { command: 'create', path, file_text: intent.content } }] }
  // Shown lines that count as the read: copy from them and retry.
  if (/retry with old_string copied from these lines|retry `str_replace` with `old_str` copied from these lines|Copy (the )?old_str(ing)?( of edits\[\d+\])? exactly from these lines/.test(text)) {
    const next = rebased(intent, shownLines(text))
    return next === undefined ? undefined : { calls: [next] }
  }
  if (/retry `insert` with `insert_line` chosen from these lines/.test(text)) {
    const line = [...shownLines(text)].find(([, content]) => content === intent.after)
    return line === undefined ? undefined : { calls: [{ ...intent, args: { ...intent.args, insert_line: line[0] } }] }
  }
  if (/retry the call if its content still fits the file/.test(text)) return { calls: [intent] }
  // Read first, then the same call (its old text re-copied from what the read shows, if it moved).
  if (/re-read the file, then retry|read the file, then retry|View the file( again)?, then retry/.test(text)) {
    return { calls: [show(family, path), { ...intent, name: 'recopy' }] }
  }
  if (/View the file, then change it with `str_replace` or `insert`/.test(text)) {
    return { calls: [show(family, path), { tool: EDITOR, args: { command: 'str_replace', path, old_str: '<all>', new_str: intent.content }, name: 'whole' }] }
  }
  if (/include more surrounding lines in old_string so it matches once|Please ensure it is unique/.test(text)) {
    const lines = memory.seen.get(path)
    const next = lines === undefined ? undefined : widened(intent, lines)
    return next === undefined ? undefined : { calls: [next] }
  }
  const endPast = /Its second element `\d+` should be at most the number of lines in the file: `(\d+)`/.exec(text)
  if (endPast !== null) {
    const range = intent.args.view_range as number[]
    return { calls: [{ ...intent, args: { ...intent.args, view_range: [range[0]!, Number(endPast[1])] } }] }
  }
  const insertRange = /Invalid `insert_line` parameter: (-?\d+)\. It should be within the range of lines of the file: \[0, (\d+)\]/.exec(text)
  if (insertRange !== null) {
    const line = Math.min(Math.max(Number(insertRange[1]), 0), Number(insertRange[2]))
    return { calls: [{ ...intent, args: { ...intent.args, insert_line: line } }] }
  }
  // "escape ( ) [ ] … with a backslash to match them literally": the same pattern, escaped.
  const escape = /escape ((?:\S )+\S) with a backslash to match them literally/.exec(text)
  if (escape !== null && typeof call.args.pattern === 'string') {
    const special = new Set(escape[1]!.split(' '))
    const pattern = [...call.args.pattern].map((char) => (special.has(char) ? `\\${char}` : char)).join('')
    return { calls: [{ ...intent, args: { ...intent.args, pattern } }] }
  }
  // A path in a foreign form: the same call with the path the text names.
  const again = /call again with (\w+)=`([^`]*)`/.exec(text)
  if (again !== null) return { calls: [{ ...intent, args: { ...intent.args, [again[1]!]: again[2]! } }] }
  // A foreign tool name: the dsh tool and arguments the text gives, values elided as `<your NAME>` taken from the call sent.
  const foreign = /Call the dsh `(\w+)` tool with arguments (\{.*\})(?: \(|\.$)/m.exec(text)
  if (foreign !== null) {
    const args = JSON.parse(foreign[2]!) as Args
    for (const [key, value] of Object.entries(args)) {
      const elided = typeof value === 'string' ? /^<your (\w+)>$/.exec(value) : null
      if (elided !== null) args[key] = call.args[elided[1]!]
    }
    return { calls: [{ ...intent, tool: foreign[1]!, args, adopt: true }] }
  }
  // A misnamed argument: the corrected call, "…" standing for the value sent under the name it replaces.
  const retry = /^Retry with: (\{.*\})/m.exec(text)
  if (retry !== null) {
    const renames = new Map([...text.matchAll(/Unknown argument "(\w+)" for the dsh `\w+` tool; did you mean (\w+)\?/g)].map((m) => [m[2]!, m[1]!]))
    const args = JSON.parse(retry[1]!) as Args
    for (const [key, value] of Object.entries(args)) if (value === '…') args[key] = call.args[renames.get(key) ?? key]
    return { calls: [{ ...intent, args, adopt: true }] }
  }
  // What a tool printed, pasted back: the arguments the text names, each line cut after its first tab (or the named line dropped).
  const strip = /Retry with (`?\w+`?(?: and `?\w+`?)?) without them: remove from each line everything up to and including its first tab/.exec(text)
  if (strip !== null) {
    const args = { ...intent.args }
    for (const name of strip[1]!.replaceAll('`', '').split(' and ')) {
      if (typeof args[name] === 'string') args[name] = (args[name] as string).split('\n').map((line) => line.replace(/^[^\t]*\t/, '')).join('\n')
    }
    return { calls: [{ ...intent, args }] }
  }
  const dropLine = /line (\d+) of `?(\w+)`? is a note .* Retry with `?\w+`? without that line\./.exec(text)
  if (dropLine !== null && typeof intent.args[dropLine[2]!] === 'string') {
    const lines = (intent.args[dropLine[2]!] as string).split('\n')
    lines.splice(Number(dropLine[1]) - 1, 1)
    return { calls: [{ ...intent, args: { ...intent.args, [dropLine[2]!]: lines.join('\n') } }] }
  }
  // An empty file: its content is written whole (fs) or inserted at the top (editor).
  if (/write the file's content with the dsh `write` tool/.test(text)) return { calls: [{ tool: 'write', args: { file_path: path, content: intent.content } }] }
  if (/use the `insert` command with `insert_line` 0 and the content as `new_str`/.test(text)) {
    const insert: Intent = { tool: EDITOR, args: { command: 'insert', path, insert_line: 0, new_str: String(intent.content).replace(/\n$/, '') } }
    return { calls: /View the file, then use the `insert` command/.test(text) ? [show('editor', path), insert] : [insert] }
  }
  const named = namedCall(text, call)
  // "call the dsh `read` tool with offset=1 (…), then retry": that call, then the model's own again.
  if (named !== undefined && named.tool !== call.tool && /, then retry\.$/.test(last)) {
    // "…with the offset each answer ends with until one shows the end of the file": the read goes on to the end first.
    const onToTheEnd = /until one shows the end of the file/.test(text)
    return { calls: [onToTheEnd ? { ...named, whole: true } : named, { ...intent, name: 'recopy' }] }
  }
  if (named !== undefined) return { calls: [{ ...intent, ...named }] }
  return undefined
}

/**
 * "call the dsh `read` tool with offset=4, limit=1, column=41", "view again with view_range [4, -1]",
 * "call the dsh `grep` tool with pattern=…": the tool and arguments exactly as written.
 */
function namedCall(text: string, call: Call): Call | undefined {
  const fs = /call the dsh `(\w+)` tool with ((?:\w+=(?:`[^`]*`|[^\s,.\]]+)(?:, (?:and )?| and )?)+)(?: and no (\w+))?/.exec(text)
  if (fs !== null) {
    const args: Args = call.tool === fs[1] ? { ...call.args } : { file_path: pathOf(call) }
    for (const pair of fs[2]!.matchAll(/(\w+)=(`[^`]*`|[^\s,.\]]+)/g)) {
      const raw = pair[2]!
      args[pair[1]!] = raw.startsWith('`') ? raw.slice(1, -1) : /^-?\d+$/.test(raw) ? Number(raw) : raw === 'true' || raw === 'false' ? raw === 'true' : raw
    }
    if (fs[3] !== undefined) delete args[fs[3]]
    return { tool: fs[1]!, args }
  }
  const view = /view again with view_range \[(-?\d+), (-?\d+)\]/.exec(text)
  if (view !== null) return { tool: EDITOR, args: { command: 'view', path: pathOf(call), view_range: [Number(view[1]), Number(view[2])] } }
  return undefined
}

export interface Followed { steps: Step[]; outcome: Outcome }

/**
 * Runs the model's own calls in order; after each, follows the texts until the call's purpose is
 * met (a success that names no further step), a text ends it (stopped), or it fails.
 */
export async function follow(session: Session, plan: (Intent | (() => Promise<void>))[], budget = 12): Promise<Followed> {
  const steps: Step[] = []
  const memory: Memory = { seen: new Map() }
  const asked = new Map<string, string>()
  for (const item of plan) {
    if (typeof item === 'function') {
      await item()
      continue
    }
    let intent: Intent = item
    const queue: Intent[] = [item]
    while (queue.length > 0) {
      let next = queue.shift()!
      if (next.name === 'recopy' || next.name?.startsWith('in:') === true || next.name === 'whole') next = resolveQueued(next, intent, memory)
      if (steps.length >= budget) return { steps, outcome: { kind: 'budget' } }
      const step = await session.call(next)
      steps.push(step)
      const key = JSON.stringify(step.call)
      if (asked.get(key) === step.text) return { steps, outcome: { kind: 'loop' } }
      asked.set(key, step.text)
      const lines = shownLines(step.text)
      if (lines.size > 0 && (step.call.tool === 'read' || step.call.args.command === 'view')) remember(memory, pathOf(step.call), lines)
      if (next.adopt === true) intent = { ...intent, ...next, adopt: undefined, name: intent.name }
      else if (next.tool === intent.tool && (next.args.command === intent.args.command)) intent = { ...intent, ...next, name: intent.name }
      const derived = step.ok ? successStep(step, next, intent) : nextStep(step, intent, memory)
      if (derived === undefined) {
        if (!step.ok) return { steps, outcome: { kind: 'dead-end', text: step.text } }
        continue
      }
      if ('stop' in derived) return { steps, outcome: { kind: 'stopped', because: derived.stop } }
      // A read that goes on to the end of the file keeps what was queued after it (the retry).
      if (step.ok && next.whole === true && intent.whole !== true) queue.unshift(...derived.calls)
      else queue.splice(0, queue.length, ...derived.calls)
    }
  }
  return { steps, outcome: { kind: 'done' } }
}

/** After a success: a listing the model asked for names the file it means; a wanted whole read goes on. */
function successStep(step: Step, call: Intent, intent: Intent): Next {
  if (/\[To see a file, call the dsh `read` tool with its path\.\]|^Here's the files and directories/m.test(step.text) && call.name !== undefined) {
    const entry = step.text.split('\n').map((line) => line.trim()).find((line) => line === call.name || line.endsWith(`/${call.name}`))
    if (entry === undefined) return undefined
    const file = entry.startsWith('/') ? entry : `${pathOf(step.call).replace(/\/$/, '')}/${entry}`
    return { calls: [show(familyOf(step.call), file), { ...intent, name: `in:${file}` }] }
  }
  if ((intent.whole === true || call.whole === true) && (step.call.tool === 'read' || step.call.args.command === 'view')) {
    const named = namedCall(step.text, step.call)
    if (named !== undefined) return { calls: [{ ...named, whole: true }] }
  }
  return undefined
}

function remember(memory: Memory, path: string, lines: Map<number, string>) {
  const known = memory.seen.get(path) ?? new Map<number, string>()
  for (const [n, line] of lines) known.set(n, line)
  memory.seen.set(path, known)
}

/** A queued retry, made concrete from what the model has seen since it was queued. */
function resolveQueued(next: Intent, intent: Intent, memory: Memory): Intent {
  if (next.name?.startsWith('in:') === true) {
    const file = next.name.slice(3)
    return { ...intent, ...withPath(intent, file), name: undefined }
  }
  const lines = memory.seen.get(pathOf(next)) ?? [...memory.seen.entries()].find(([key]) => key.endsWith(`/${pathOf(next)}`))?.[1]
  if (next.name === 'whole') {
    const all = lines === undefined ? '' : [...lines.entries()].sort(([a], [b]) => a - b).map(([, line]) => line).join('\n')
    return { ...next, args: { ...next.args, old_str: all, new_str: String(next.args.new_str).replace(/\n$/, '') }, name: undefined }
  }
  // The retry after a (re-)read: old text copied again from what the read showed, when it moved.
  const key = intent.tool === EDITOR ? 'old_str' : 'old_string'
  const old = intent.args[key]
  if (typeof old !== 'string' || lines === undefined) return { ...intent, name: undefined }
  const shown = [...lines.entries()].sort(([a], [b]) => a - b).map(([, line]) => line).join('\n')
  if (shown.includes(old)) return { ...intent, name: undefined }
  return { ...(rebased(intent, lines) ?? intent), name: undefined }
}
