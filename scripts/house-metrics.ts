// Issue 23's measures of the codebase, printed as one table so that every change can report them
// before and after: fs-local source lines, module-level mutable variables, functions over 40 lines.
// `duplicates` is a workplace tool, not a dependency, so its pair count is read by hand.
//
//   node --import tsx scripts/house-metrics.ts [--list]

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const root = new URL('..', import.meta.url).pathname
const list = process.argv.includes('--list')

function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sources(path))
    else if (/\.tsx?$/.test(name) && !/\.(test|spec)\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

const packages = readdirSync(join(root, 'packages')).filter((p) => {
  try { return statSync(join(root, 'packages', p, 'src')).isDirectory() } catch { return false }
})

const lines = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
const codeLines = (text: string) =>
  text.split('\n').filter((l) => l.trim() !== '' && !/^\s*(\/\/|\*|\/\*)/.test(l)).length

let fsLocalLines = 0, fsLocalCode = 0, fsLocalFiles = 0
const longFunctions: string[] = []
const mutableModuleVars: string[] = []

for (const pkg of packages) {
  for (const file of sources(join(root, 'packages', pkg, 'src'))) {
    const text = readFileSync(file, 'utf8')
    const rel = relative(root, file)
    if (pkg === 'fs-local') { fsLocalLines += lines(text); fsLocalCode += codeLines(text); fsLocalFiles++ }
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    for (const statement of sf.statements) {
      if (ts.isVariableStatement(statement) && !(statement.declarationList.flags & ts.NodeFlags.Const)) {
        for (const d of statement.declarationList.declarations) mutableModuleVars.push(`${rel}: ${d.name.getText()}`)
      }
    }
    // The conformance suite is a test suite shipped as source (each clause is an `it`), so its
    // registering functions are not counted. A long function is counted once, not again for the
    // long closure inside it.
    if (rel.includes('/src/conformance/')) continue
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart()).line
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line
        const n = end - start + 1
        if (n > 40) {
          const name = (node as ts.FunctionDeclaration).name?.getText() ?? `<anonymous>`
          longFunctions.push(`${rel}:${start + 1} ${name} (${n} lines)`)
          return
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(sf)
  }
}

console.log(`fs-local src (no tests): ${fsLocalFiles} files, ${fsLocalLines} lines, ${fsLocalCode} without blanks and comments`)
console.log(`module-level mutable variables: ${mutableModuleVars.length}`)
console.log(`functions over 40 lines (packages/*/src, no tests, no conformance clauses): ${longFunctions.length}`)
if (list) {
  for (const v of mutableModuleVars) console.log(`  var ${v}`)
  for (const f of longFunctions) console.log(`  fn  ${f}`)
}
