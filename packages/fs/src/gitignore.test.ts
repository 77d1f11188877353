import fc from 'fast-check'
import ignore from 'ignore'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadLinearEngine } from './linear'
import { FsError } from './errors'
import { compileRules, MAX_WILDCARD_RULES } from './gitignore'
import { IgnoreStack } from './patterns'

beforeAll(loadLinearEngine)

const PATTERNS = [
  'node_modules', 'node_modules/', '/build', 'build/', '*.log', '!keep.log', 'docs/*.md', '/docs/**', '**/gen', '**/gen/*.ts',
  'a/**/b', 'a?c', '[ab]x', '[!ab]y', 'x[0-9]', '\\#hash', '\\!bang', 'trail\\ ', 'spaces  ', '# comment', '', '*', 'src/*',
  'foo*bar', '*.min.*', '**/*.d.ts', 'lib/**', 'a*b*c', '/only-root.txt', 'dir/sub/', '*~', '.env*', '[a-c]*.js',
]
const PATHS = [
  'node_modules', 'src/node_modules', 'build', 'src/build', 'x.log', 'keep.log', 'sub/keep.log', 'docs/a.md', 'docs/sub/a.md',
  'docs', 'gen', 'src/gen', 'src/gen/x.ts', 'a/b', 'a/x/y/b', 'abc', 'aXc', 'ax', 'cx', 'ay', 'cy', 'x5', '#hash', '!bang',
  'trail ', 'spaces', 'src/a.ts', 'foobar', 'fooXbar', 'a.min.js', 'types/x.d.ts', 'lib/x', 'lib', 'aXbXc', 'only-root.txt',
  'sub/only-root.txt', 'dir/sub', 'file~', '.env.local', 'b1.js', 'd.js',
]

/** What a walk decides: it never enters an ignored directory, so a path under one is ignored too. */
function walked(stack: IgnoreStack, path: string, directory: boolean): boolean {
  const parts = path.split('/')
  for (let i = 1; i < parts.length; i++) if (stack.ignores(parts.slice(0, i).join('/'), true)) return true
  return stack.ignores(path, directory)
}

describe('gitignore rules', () => {
  it('decide every path as the ignore package does, for each rule alone and for all of them in order', () => {
    for (const pattern of PATTERNS) {
      const oracle = ignore({ allowRelativePaths: true }).add(pattern)
      const ours = IgnoreStack.empty().with('', pattern)
      for (const path of PATHS) {
        for (const directory of [false, true]) {
          const expected = oracle.test(directory ? `${path}/` : path).ignored
          expect(walked(ours, path, directory), `${JSON.stringify(pattern)} ${path}${directory ? '/' : ''}`).toBe(expected)
        }
      }
    }
    const oracle = ignore({ allowRelativePaths: true }).add(PATTERNS)
    const ours = IgnoreStack.empty().with('', PATTERNS)
    for (const path of PATHS) expect(walked(ours, path, false), path).toBe(oracle.test(path).ignored)
  })

  it('agree with the ignore package on generated rules and paths', () => {
    const part = fc.constantFrom('a', 'b', 'x', '*', '?', '**', '[ab]', '.log', '!', '/', '\\*')
    const rule = fc.array(part, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''))
    const path = fc.array(fc.constantFrom('a', 'b', 'x', 'ab', 'a.log', 'xb', '*'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'))
    fc.assert(fc.property(fc.array(rule, { minLength: 1, maxLength: 4 }), path, fc.boolean(), (rules, path, directory) => {
      let oracle
      try {
        oracle = ignore({ allowRelativePaths: true }).add(rules)
      } catch {
        return
      }
      const expected = oracle.test(directory ? `${path}/` : path)
      expect(walked(IgnoreStack.empty().with('', rules), path, directory)).toBe(expected.ignored)
    }), { numRuns: 3000 })
  })

  it('costs a map lookup for plain names, paths and name endings, whatever their number', () => {
    const names = Array.from({ length: 40_000 }, (_, i) => `generated-${i}.tmp`)
    const set = compileRules([...names, ...names.map((name) => `/out/${name}`), ...names.map((_, i) => `*.ext${i}`)], 0, '.gitignore')
    expect(set.tested).toEqual([])
    expect(set.names.size + set.paths.size).toBe(80_000)
    const stack = IgnoreStack.empty().with('', names)
    expect(stack.ignores('deep/generated-39999.tmp', false)).toBe(true)
    expect(stack.ignores('deep/generated-40000.tmp', false)).toBe(false)
  })

  it('refuses more wildcard rules than a listing applies, naming the file and the limit', () => {
    const rules = Array.from({ length: MAX_WILDCARD_RULES + 1 }, (_, i) => `a${i}*b*`)
    let error: unknown
    try {
      IgnoreStack.empty().with('src', rules.join('\n'))
    } catch (caught) {
      error = caught
    }
    expect(FsError.is(error, 'FS_TOO_LARGE')).toBe(true)
    expect((error as Error).message).toBe(`src/.gitignore holds more than ${MAX_WILDCARD_RULES} rules with wildcards (other than a name ending such as *.log), the most a listing applies`)
  })

  it('matches a rule of nested wildcards on a long name without backtracking', () => {
    const stack = IgnoreStack.empty().with('', '*a*a*a*a*a*a*a*a*a*a*a*a*b\n**/**/**/**/**/**/x*y*z')
    expect(stack.ignores('a'.repeat(4000), false)).toBe(false)
    expect(stack.ignores(`${'d/'.repeat(500)}${'x'.repeat(3000)}`, false)).toBe(false)
  })
})
