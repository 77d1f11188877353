import { parse as parseToml } from 'smol-toml'

/** One file `dsh setup` edits: its new text from the current one (undefined when absent). */
export interface Edit {
  file: string
  /** What the edit sets, in words, for the report. */
  what: string
  apply(text: string | undefined): string
}

/**
 * An edit of a JSON file through `change`, which mutates the parsed value. The file keeps its
 * text when the value comes out the same, so a second run changes nothing; a file that is not a
 * JSON object is refused rather than replaced.
 */
export function jsonEdit(file: string, what: string, change: (value: Record<string, any>) => void): Edit {
  return {
    file,
    what,
    apply(text) {
      const before = text === undefined || text.trim() === '' ? {} : parseObject(file, text)
      const after = structuredClone(before)
      change(after)
      if (text !== undefined && JSON.stringify(after) === JSON.stringify(before)) return text
      return `${JSON.stringify(after, null, 2)}\n`
    },
  }
}

function parseObject(file: string, text: string): Record<string, any> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); fix it or move it away, then run dsh setup again`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${file} does not hold a JSON object; fix it or move it away`)
  return value as Record<string, any>
}

/** `object[key]`, made an object when missing. */
export function child(object: Record<string, any>, key: string): Record<string, any> {
  if (typeof object[key] !== 'object' || object[key] === null || Array.isArray(object[key])) object[key] = {}
  return object[key] as Record<string, any>
}

/** Adds `item` to the array at `object[key]` unless it is there. */
export function including(object: Record<string, any>, key: string, item: string): void {
  const list: unknown[] = Array.isArray(object[key]) ? object[key] : []
  object[key] = list.includes(item) ? list : [...list, item]
}

/**
 * An edit of one `[table]` of a TOML file, done on the text so the user's comments and the other
 * tables stay as they are: the table (with its `[table.sub]` tables) is replaced, or appended.
 */
export function tomlTableEdit(file: string, what: string, table: string, body: Record<string, string | boolean | string[]>): Edit {
  return {
    file,
    what,
    apply(text) {
      const current = text ?? ''
      const section = `[${table}]\n${Object.entries(body).map(([key, value]) => `${key} = ${tomlValue(value)}`).join('\n')}\n`
      const lines = current.split('\n')
      const header = (line: string) => /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line)?.[1]
      const start = lines.findIndex((line) => header(line) === table)
      let next: string
      if (start === -1) {
        if (parsed(file, current)?.[table.split('.')[0]!]?.[table.split('.')[1]!] !== undefined) {
          throw new Error(`${file} defines ${table} without a [${table}] header (inline or dotted keys); move it into a [${table}] table or remove it, then run dsh setup again`)
        }
        next = current === '' ? section : `${current.replace(/\n*$/, '\n')}\n${section}`
      } else {
        let end = lines.findIndex((line, index) => index > start && header(line) !== undefined && !header(line)!.startsWith(`${table}.`))
        if (end === -1) end = lines.length
        // Blank lines and comments just before the next table belong to it.
        while (end > start + 1 && /^\s*(#.*)?$/.test(lines[end - 1]!) && end < lines.length) end--
        const old = `${lines.slice(start, end).join('\n').replace(/\n*$/, '')}\n`
        if (sameTable(file, old, section)) return current
        const head = start === 0 ? '' : `${lines.slice(0, start).join('\n')}\n`
        next = `${head}${section}${lines.slice(end).join('\n')}`
      }
      parsed(file, next)
      return next
    },
  }
}

function parsed(file: string, text: string): Record<string, any> | undefined {
  try {
    return parseToml(text) as Record<string, any>
  } catch (error) {
    throw new Error(`${file} is not valid TOML (${(error as Error).message.split('\n')[0]}); fix it, then run dsh setup again`)
  }
}

function sameTable(file: string, a: string, b: string): boolean {
  return JSON.stringify(parsed(file, a)) === JSON.stringify(parsed(file, b))
}

/** A TOML value: JSON's strings are TOML basic strings, and arrays are written the usual way. */
function tomlValue(value: string | boolean | string[]): string {
  return Array.isArray(value) ? `[${value.map((item) => JSON.stringify(item)).join(', ')}]` : JSON.stringify(value)
}
