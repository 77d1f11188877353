import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'

// docs/configuration.md against the schemas: a documented field must exist, a schema field must be
// documented, and a documented default must be the one the schema applies.

const PLUGINS = [
  '@deepseek-ai/dsh-fs-local',
  '@deepseek-ai/dsh-fs-e2b',
  '@deepseek-ai/dsh-fs-policy',
  '@deepseek-ai/dsh-tools',
  '@deepseek-ai/dsh-tool-fs',
  '@deepseek-ai/dsh-tool-str-replace-editor',
  '@deepseek-ai/dsh-mcp',
]

interface Schema {
  shape?: Record<string, unknown>
  safeParse(input: unknown): { success: boolean; data?: Record<string, unknown> }
  _zod: { def: { innerType?: Schema; in?: Schema } }
}

/** The plugin's zod schema: a `Config` export, or the `Config` of its default export (a class or an object). */
async function schemaOf(name: string): Promise<Schema | undefined> {
  const module = await import(name) as { Config?: Schema; default?: { Config?: Schema } }
  return module.Config ?? module.default?.Config
}

/** The object schema under `.prefault()`, `.default()`, pipes. */
function objectOf(schema: Schema): Schema & { shape: Record<string, unknown> } {
  let current: Schema | undefined = schema
  while (current !== undefined && current.shape === undefined) current = current._zod.def.innerType ?? current._zod.def.in
  if (current === undefined) throw new Error('not an object schema')
  return current as Schema & { shape: Record<string, unknown> }
}

/** `### \`package\`` sections: the rows of their field table (field → default cell), or null when the section has no table. */
function documented(markdown: string): Map<string, Map<string, string> | null> {
  const sections = new Map<string, Map<string, string> | null>()
  for (const part of markdown.split(/^### /m).slice(1)) {
    const name = /^`([^`]+)`/.exec(part)?.[1]
    if (name === undefined) continue
    const rows = [...part.matchAll(/^\| `([A-Za-z]+)` \| ([^|]*) \|/gm)]
    sections.set(name, rows.length === 0 ? null : new Map(rows.map((row) => [row[1]!, row[2]!.trim()])))
  }
  return sections
}

describe('docs/configuration.md', () => {
  it('documents every field of every plugin schema, no other field, and the defaults the schemas apply', async () => {
    const doc = documented(await readFile(new URL('../../../docs/configuration.md', import.meta.url), 'utf8'))
    expect([...doc.keys()].sort()).toEqual([...PLUGINS].sort())
    for (const name of PLUGINS) {
      const schema = await schemaOf(name)
      const fields = doc.get(name)!
      // An empty strict schema (refuses every key) is "no config" too.
      if (schema === undefined || Object.keys(objectOf(schema).shape).length === 0) {
        expect(fields, `${name} has no config fields, yet fields are documented`).toBeNull()
        continue
      }
      expect(fields, `${name} has a config schema but no field table`).not.toBeNull()
      const object = objectOf(schema)
      expect([...fields!.keys()].sort(), name).toEqual(Object.keys(object.shape).sort())
      const parsed = schema.safeParse(undefined)
      if (!parsed.success) continue // e2b: needs one of sandboxId / template / sandbox, and has no defaults
      for (const [field, value] of Object.entries(parsed.data ?? {})) {
        if (value === process.cwd()) continue // computed at load time; documented in words
        expect(fields!.get(field), `${name} ${field}`).toMatch(new RegExp('^`' + String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '`'))
      }
    }
  })
})

describe('docs/configuration.md, the default config table', () => {
  it('sets exactly the fields the shipped cordis.yml sets, entry by entry, with its values', async () => {
    const doc = await readFile(new URL('../../../docs/configuration.md', import.meta.url), 'utf8')
    const shipped = await readFile(new URL('../cordis.yml', import.meta.url), 'utf8')
    const table = doc.split('The default config of `dsh start`')[1]!.split('\n\n')[1]!
    const rows = [...table.matchAll(/^\| `([\w-]+)` \| `([^`]+)` \| (.*) \|$/gm)]
    const entries = new Map(shipped.split(/^(?=- id: )/m).filter((part) => part.startsWith('- id: ')).map((part) => [/^- id: (\S+)/.exec(part)![1]!, part]))
    expect(rows.map((row) => row[1])).toEqual([...entries.keys()])
    for (const [, id, name, cell] of rows) {
      const entry = entries.get(id!)!
      expect(entry, id).toContain(`  name: '${name}'`)
      const fields = [...entry.matchAll(/^ {4}(\w+): (.*)$/gm)].map((line) => line[1]!)
      const named = [...cell!.matchAll(/`(\w+)(?:: ([^`]+))?`/g)]
      expect(named.map((field) => field[1]).sort(), `fields of ${id}`).toEqual(fields.sort())
      for (const [, field, value] of named) if (value !== undefined) expect(entry, `${id}.${field}`).toMatch(new RegExp(`^ {4}${field}: ${value}$`, 'm'))
    }
  })
})
