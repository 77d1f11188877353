import picomatch from 'picomatch'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadLinearEngine } from './linear'
import { FsError } from './errors'
import { compileRegex } from './regex'
import { compileGlobs, globBase, IgnoreStack, plainLiteral, requiredLiteral } from './patterns'
import { collectWalk, type TreeSource } from './walk'

beforeAll(loadLinearEngine)

describe('requiredLiteral', () => {
  it('finds the longest run every match must contain, and gives up where none can be proved', () => {
    expect(requiredLiteral('needle')).toBe('needle')
    expect(requiredLiteral('function\\s+greet\\(')).toBe('function')
    expect(requiredLiteral('colou?r_name')).toBe('r_name')
    expect(requiredLiteral('a\\.b\\.c')).toBe('a.b.c')
    expect(requiredLiteral('[abc]+xyz')).toBe('xyz')
    expect(requiredLiteral('foo|bar')).toBeUndefined()
    expect(requiredLiteral('(foo)?bar')).toBeUndefined()
    expect(requiredLiteral('\\w+')).toBeUndefined()
    expect(requiredLiteral('Grüße', true)).toBeUndefined()
    expect(plainLiteral('a.b')).toBeUndefined()
    expect(plainLiteral('ab')).toBe('ab')
  })
})

describe('patterns', () => {
  it('refuses globs that are empty, absolute, climb out, or unbalanced, quoting them', () => {
    for (const glob of ['', '/etc/*', '../x', 'a/../b', 'src/[a-', 'a{b']) {
      const error = (() => { try { compileGlobs([glob]); return undefined } catch (e) { return e } })()
      expect(FsError.is(error, 'FS_INVALID_PATTERN'), glob).toBe(true)
    }
    expect(compileGlobs(['**/*.ts'])('a/b/c.ts')).toBe(true)
    expect(compileGlobs(['*.ts'])('a/c.ts')).toBe(false)
    expect(compileGlobs(['*.ts'], true)('a/c.ts')).toBe(true)
    expect(compileGlobs(['**/*'])('.github/x.yml')).toBe(true)
  })

  it('decides every path as picomatch does, with and without matchBase', () => {
    const globs = [
      '**/*.ts', '*.ts', 'src/*.ts', 'src/**/*.d.ts', '**/*.{js,jsx}', '!**/*.ts', '+(a|b/*.ts)', '{src/*.ts,lib}',
      '**/*', '**', 'src/**', 'a.ts', 'src/a.ts', '**/.env*', '**/*.test.ts', '[ab]/*.md', '\\*.ts', 'src/*-x.ts',
      // Run on RE2 (more than one star in a segment, two globstars, an extglob):
      '*a*.ts', '**/**/*.ts', 'src/**/x/**/*.md', '*.*s', '**/*t*s', '+(a|b)*', '*.{ts,*x*}', '**/?-*.*',
    ]
    const paths = [
      'a.ts', 'b.tsx', 'src/a.ts', 'src/a.d.ts', 'src/x/y/a.d.ts', 'src/x/y.ts', 'src/x/y.ts/', 'lib', 'lib/a.ts', 'a.js',
      'x/a.jsx', '.env', 'x/.env.local', 'a/c.md', 'b/c.md', 'c/c.md', 'a/b.test.ts', '*.ts', 'src/q-x.ts', 'a', 'b/a.ts',
      '.ts', 'x/.ts', 'src', 'src/', 'a/b/c',
    ]
    for (const matchBase of [false, true]) {
      for (const glob of globs) {
        const expected = picomatch(glob, { dot: true, strictBrackets: true, basename: matchBase })
        const actual = compileGlobs([glob], matchBase)
        for (const path of paths) expect(actual(path), `${glob} ${path} ${matchBase}`).toBe(expected(path))
      }
      const expected = picomatch(globs, { dot: true, strictBrackets: true, basename: matchBase })
      const actual = compileGlobs(globs, matchBase)
      for (const path of paths) expect(actual(path), `all ${path} ${matchBase}`).toBe(expected(path))
    }
  })

  it('refuses an invalid regular expression with FS_INVALID_PATTERN', () => {
    expect(() => compileRegex('a(')).toThrow(/"a\("/)
    expect(compileRegex('A', true).test('a')).toBe(true)
  })

  it('matches a glob of many stars on a long name without backtracking, and refuses a negated extglob it cannot run', () => {
    // A backtracking engine needs about 250^10 steps here.
    expect(compileGlobs(['*a*a*a*a*a*a*a*a*a*a*b'])('a'.repeat(250))).toBe(false)
    expect(compileGlobs(['**/**/**/**/x*y*z'])(`${'d/'.repeat(300)}${'x'.repeat(200)}`)).toBe(false)
    const error = (() => { try { compileGlobs(['!(a)*b*c']); return undefined } catch (e) { return e } })()
    expect(FsError.is(error, 'FS_INVALID_PATTERN')).toBe(true)
    const long = (() => { try { compileGlobs(['a'.repeat(1025)]); return undefined } catch (e) { return e } })()
    expect((long as Error).message).toContain('longer than 1024 characters')
  })

  it('splits a glob into its plain base and the rest', () => {
    expect(globBase('../lib/**/*.ts')).toEqual({ base: '../lib', glob: '**/*.ts' })
    expect(globBase('/abs/src/*.ts')).toEqual({ base: '/abs/src', glob: '*.ts' })
    expect(globBase('src/a.ts')).toEqual({ base: 'src', glob: 'a.ts' })
  })

  it('applies .gitignore layers with git precedence: a deeper negation re-includes', () => {
    const rules = IgnoreStack.empty().with('', '*.log\nbuild/\n').with('sub', '!keep.log\n')
    expect(rules.ignores('a.log', false)).toBe(true)
    expect(rules.ignores('sub/keep.log', false)).toBe(false)
    expect(rules.ignores('sub/other.log', false)).toBe(true)
    expect(rules.ignores('build', true)).toBe(true)
    expect(rules.ignores('build', false)).toBe(false)
  })
})

describe('walk bounds', () => {
  // A tree with a million entries per directory, made up on demand: the walk must stop by its bounds.
  const huge: TreeSource = {
    list: async (dir) => (dir.split('/').length > 3 ? [] : Array.from({ length: 1000 }, (_, i) => ({ name: `n${String(i).padStart(4, '0')}`, type: 'directory' as const }))),
    readText: async () => undefined,
  }

  it('stops after maxVisited entries and says the result is incomplete', async () => {
    const result = await collectWalk(huge, { limit: 10, maxVisited: 5000 })
    expect(result).toMatchObject({ complete: false, total: 5000 })
    expect(result.entries.map((entry) => entry.path).slice(0, 3)).toEqual(['n0000', 'n0000/n0000', 'n0000/n0000/n0000'])
    expect(result.entries).toHaveLength(10)
  })

  it('never goes deeper than maxDepth', async () => {
    const result = await collectWalk(huge, { limit: 5, maxDepth: 1 })
    expect(result).toMatchObject({ complete: true, total: 1000 })
  })
})
