import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// The export tables of docs/providers.md against what the entry points really export, types included.
// Every subpath of package.json `exports` has its table (see the last test).
const at = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const ENTRIES = {
  '@deepseek-ai/dsh-fs': at('../src/index.ts'),
  '@deepseek-ai/dsh-fs/kit': at('../src/kit.ts'),
  '@deepseek-ai/dsh-fs/memory': at('../src/memory.ts'),
  '@deepseek-ai/dsh-fs/conformance': at('../src/conformance/index.ts'),
}

function realExports(): Record<string, Record<string, string>> {
  const program = ts.createProgram(Object.values(ENTRIES), {
    module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, noEmit: true, types: [],
  })
  const checker = program.getTypeChecker()
  return Object.fromEntries(Object.entries(ENTRIES).map(([entry, file]) => {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!
    const kinds = checker.getExportsOfModule(module).map((symbol) => {
      const real = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
      return [symbol.name, kindOf(real.flags)]
    })
    return [entry, Object.fromEntries(kinds)]
  }))
}

function kindOf(flags: ts.SymbolFlags): string {
  if (flags & ts.SymbolFlags.Class) return 'class'
  if (flags & ts.SymbolFlags.Function) return 'function'
  if (flags & ts.SymbolFlags.Variable) return 'const'
  return 'type'
}

/** The `| \`name\` | kind | … |` rows under the heading that names `entry`. */
function documented(markdown: string, entry: string): Record<string, string> {
  const start = markdown.indexOf(`### \`${entry}\`\n`)
  expect(start, `docs/providers.md has no table for ${entry}`).toBeGreaterThan(-1)
  const rest = markdown.slice(start).split('\n').slice(1)
  const end = rest.findIndex((line) => line.startsWith('#'))
  const rows = (end < 0 ? rest : rest.slice(0, end)).map((line) => /^\| `([^`]+)` \| (\w+) \|/.exec(line)).filter((row) => row !== null)
  return Object.fromEntries(rows.map((row) => [row[1]!, row[2]!]))
}

describe('the export tables of docs/providers.md', () => {
  it('list every export of each entry point, and nothing else, with its kind', async () => {
    const markdown = await readFile(at('../../../docs/providers.md'), 'utf8')
    const real = realExports()
    for (const entry of Object.keys(ENTRIES)) {
      const sorted = (table: Record<string, string>) => Object.entries(table).sort(([a], [b]) => a.localeCompare(b))
      expect(sorted(documented(markdown, entry)), entry).toEqual(sorted(real[entry]!))
    }
  }, 120_000)
})

describe('the entry points', () => {
  it('are exactly the subpaths package.json exports', async () => {
    const manifest = JSON.parse(await readFile(at('../package.json'), 'utf8')) as { exports: Record<string, unknown> }
    const subpaths = Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json')
    expect(subpaths.map((subpath) => `@deepseek-ai/dsh-fs${subpath.slice(1)}`).sort()).toEqual(Object.keys(ENTRIES).sort())
  })
})
