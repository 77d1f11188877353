import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const read = (path: string) => readFile(join(ROOT, path), 'utf8')

describe('docs/tools.md', () => {
  it('quotes only texts that the pinned transcripts still show', async () => {
    const doc = await read('docs/tools.md')
    const transcripts = [
      await read('packages/tool-fs/tests/__transcripts__/main-flows.txt'),
      await read('packages/tool-fs/tests/__transcripts__/discovery-flows.txt'),
      await read('packages/tool-str-replace-editor/tests/transcript.txt'),
      await read('packages/tool-fs/tests/__transcripts__/situations.txt'),
      await read('packages/tool-str-replace-editor/tests/situations.txt'),
      await read('packages/tool-fs/tests/__transcripts__/patch-flows.txt'),
      await read('packages/tool-fs/tests/__transcripts__/encoding-flows.txt'),
    ]
    const quotes = [...doc.matchAll(/^```text\n([\s\S]*?)^```$/gm)].map((match) => match[1]!.trimEnd())
    expect(quotes.length).toBeGreaterThan(15)
    for (const quote of quotes) {
      expect(transcripts.some((transcript) => transcript.includes(quote)), `not in a transcript:\n${quote}`).toBe(true)
    }
  })
})

describe('the docs and READMEs', () => {
  it('link only to files that exist', async () => {
    const pages = ['README.md', 'docs/filesystem.md', 'docs/providers.md', 'docs/tools.md', 'docs/situations.md', 'docs/configuration.md', 'docs/cli.md',
      'docs/scaling.md', 'docs/security.md', 'docs/benchmarks.md', 'docs/reliability.md',
      ...['fs', 'fs-local', 'fs-e2b', 'fs-policy', 'tools', 'tool-fs', 'tool-str-replace-editor', 'tool-text', 'mcp', 'cli'].map((dir) => `packages/${dir}/README.md`)]
    for (const page of pages) {
      for (const [, target] of (await read(page)).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        expect(existsSync(join(ROOT, dirname(page), target!)), `${page} links to ${target}`).toBe(true)
      }
    }
  })

  it('are all reachable from the README', async () => {
    const readme = await read('README.md')
    for (const doc of ['filesystem', 'providers', 'tools', 'situations', 'configuration', 'cli', 'benchmarks', 'reliability', 'scaling', 'security']) {
      expect(readme, doc).toContain(`(docs/${doc}.md)`)
    }
  })
})

/** A synopsis with `[a | b]` as one line per alternative (`\|` is a `|` escaped in a table). */
function alternatives(snippet: string): string[] {
  const text = snippet.replaceAll('\\|', '|')
  const choice = /\[((?:[^[\]|]|\[[^\]]*\])*) \| ([^\]]*)\]/.exec(text)
  if (!choice) return [text]
  return [choice[1]!, choice[2]!].flatMap((pick) => alternatives(text.replace(choice[0], pick)))
}

/** Every `dsh …` command line the pages show, in code spans and shell blocks, placeholders filled in. */
async function dshCommands(pages: readonly string[]): Promise<{ page: string; line: string; argv: string[] }[]> {
  const fill: Record<string, string> = { '<client>': 'codex', '<file>': 'x.yml', '<url>': 'http://127.0.0.1:3000/mcp', '<seconds>': '5' }
  const found: { page: string; line: string; argv: string[] }[] = []
  for (const page of pages) {
    const text = await read(page)
    const code = [...text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)].flatMap((match) => match[1]!.split('\n')).concat([...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!))
    for (const snippet of code.flatMap(alternatives)) {
      for (const match of snippet.matchAll(/(?<![\w/.-])dsh ((?:start|setup|doctor|demo|--?[a-z])[^&;|#]*)/g)) {
        const line = `dsh ${match[1]!.trim()}`
        const argv = match[1]!.replace(/[[\]]/g, ' ').trim().split(/\s+/).map((word) => fill[word] ?? word)
        // A bare `dsh setup` in prose names the command, not a line to run.
        if (argv.length === 1 && argv[0] === 'setup') continue
        found.push({ page, line, argv })
      }
    }
  }
  return found
}

describe('the dsh command lines the docs show', () => {
  it('all parse: every command, flag and client they name exists', async () => {
    const { parseArguments } = await import('../src/arguments')
    const pages = ['README.md', 'docs/cli.md', 'docs/configuration.md', 'docs/scaling.md', 'docs/security.md', 'docs/providers.md', 'docs/tools.md', 'packages/cli/README.md', 'packages/mcp/README.md']
    const commands = await dshCommands(pages)
    expect(commands.length).toBeGreaterThan(15)
    for (const { page, line, argv } of commands) {
      const parsed = parseArguments(argv)
      expect(parsed.command, `${page}: ${line}`).not.toBe('usage')
    }
  })
})

describe('docs/providers.md, the package of an outside provider', () => {
  it('pins the versions this repository builds and tests with, and names every package its steps import', async () => {
    const doc = await read('docs/providers.md')
    const block = /^## 1\. The package\n+```json\n([\s\S]*?)^```$/m.exec(doc)![1]!
    const manifest = JSON.parse(block) as Record<'dependencies' | 'devDependencies' | 'peerDependencies', Record<string, string>>
    const root = JSON.parse(await read('package.json')) as { devDependencies: Record<string, string> }
    const fs = JSON.parse(await read('packages/fs/package.json')) as { version: string }
    const pins: Record<string, string> = { ...root.devDependencies, '@deepseek-ai/dsh-fs': fs.version }
    const named = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies }
    for (const [name, version] of Object.entries(named)) expect(version, name).toBe(pins[name])
    // What the steps use: zod for `static Config`, the tsconfig's `types: ["node"]` and its compiler, vitest for the suite.
    for (const needed of ['@deepseek-ai/dsh-fs', 'cordis', 'zod', 'vitest', 'typescript', '@types/node']) expect(named, needed).toHaveProperty([needed])
    expect(doc).toContain(`npm i /path/to/dsh/packed/deepseek-ai-dsh-fs-${fs.version}.tgz`)
  })
})

describe('docs/tools.md, the argument tables', () => {
  it('name every argument each tool of the shipped config takes, and none it lacks', async () => {
    const { requireBuild } = await import('./dsh-process')
    requireBuild()
    // The tools/list answer the build recorded from the real server on the shipped cordis.yml.
    const manifest = JSON.parse(await read('packages/cli/lib/manifest.json')) as { tools: { name: string; inputSchema: { properties?: Record<string, unknown> } }[] }
    const doc = await read('docs/tools.md')
    const tables = [...doc.matchAll(/^\| tool \| arguments \|[^\n]*\n\|[-|]+\|\n((?:\|[^\n]*\n)+)/gm)].map((match) => match[1]!)
    const rows = new Map(tables.flatMap((table) => [...table.matchAll(/^\| `(\w+)` \| (.*?) \| /gm)].map((row) => [row[1]!, row[2]!] as const)))
    expect(rows.size).toBeGreaterThan(5)
    for (const [tool, cell] of rows) {
      const schema = manifest.tools.find((entry) => entry.name === tool)
      expect(schema, tool).toBeDefined()
      // An argument is a code span that opens the cell or follows a comma: `file_path`, `offset?`, `edits: [...]`.
      // Parenthesised remarks (values, links) are not arguments.
      let bare = cell
      while (/\([^()]*\)/.test(bare)) bare = bare.replace(/\s*\([^()]*\)/g, '')
      const named = [...bare.matchAll(/(?:^|, )`(\w+)\??(?::[^`]*)?`/g)].map((match) => match[1]!)
      expect(named.sort(), tool).toEqual(Object.keys(schema!.inputSchema.properties ?? {}).sort())
    }
  })
})
