import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// `/kit` is what providers and tools outside this package build on, and nothing more: each name
// is imported by some package outside `dsh-fs` (or is named below, for outside authors), and each
// is documented where it is declared.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const KIT = fileURLToPath(new URL('../src/kit.ts', import.meta.url))

/** Offered to provider authors outside the repository, though no package here imports it by name. */
const FOR_OUTSIDE_AUTHORS: Record<string, string> = {
  composedRename: 'a rename for a provider that has remove and no move of its own (docs/providers.md)',
  FsBackend: 'the type of ForwardingFileSystem.backend, for typing a backend class',
}

function kitExports(): Array<{ name: string, doc: string }> {
  const program = ts.createProgram([KIT], {
    module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, noEmit: true, types: [],
  })
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(KIT)!)!
  return checker.getExportsOfModule(module).map((symbol) => {
    const real = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    return { name: symbol.name, doc: ts.displayPartsToString(real.getDocumentationComment(checker)) }
  })
}

/** The names imported from `@deepseek-ai/dsh-fs/kit` by the repository's TypeScript outside `packages/fs`. */
function importedOutside(): Set<string> {
  const files = execFileSync('git', ['ls-files', 'packages/*.ts', 'bench/*.ts', 'scripts/*.ts'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n').filter((file) => file !== '' && !file.startsWith('packages/fs/'))
  const names = new Set<string>()
  for (const file of files) {
    const text = readFileSync(ROOT + file, 'utf8')
    if (!text.includes('@deepseek-ai/dsh-fs/kit')) continue
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022)
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || (statement.moduleSpecifier as ts.StringLiteral).text !== '@deepseek-ai/dsh-fs/kit') continue
      const bindings = statement.importClause?.namedBindings
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add((element.propertyName ?? element.name).text)
    }
  }
  return names
}

describe('@deepseek-ai/dsh-fs/kit', () => {
  it('exports only what a package outside dsh-fs imports, or what is named for outside authors', () => {
    const used = importedOutside()
    const unused = kitExports().map(({ name }) => name).filter((name) => !used.has(name) && !(name in FOR_OUTSIDE_AUTHORS))
    expect(unused).toEqual([])
  })

  it('documents every export where it is declared', () => {
    expect(kitExports().filter(({ doc }) => doc.trim() === '').map(({ name }) => name)).toEqual([])
  })
})
