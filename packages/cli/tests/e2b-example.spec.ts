import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { requireBuild, runDsh, tempDir } from './dsh-process'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

const EXAMPLE = fileURLToPath(new URL('../../../docs/examples/cordis.e2b.yml', import.meta.url))

describe('docs/examples/cordis.e2b.yml', () => {
  it('loads every package it names and fails only on the missing E2B key, naming the fs entry', async () => {
    const before = await readFile(EXAMPLE, 'utf8')
    await using temp = await tempDir()
    // Without a key, so the test never creates a real sandbox even where E2B_API_KEY is set.
    const { E2B_API_KEY: _key, ...env } = process.env
    const run = await runDsh(['start', '--config', EXAMPLE], temp.dir, 30_000, env)
    expect(run.code).toBe(1)
    const problems = run.stderr.split('\n').filter((line) => line.startsWith('  entry '))
    expect(problems[0]).toMatch(/^ {2}entry "fs" \(@deepseek-ai\/dsh-fs-e2b\) failed to start: .*API key is required/)
    // Everything else in the file is a valid entry: only the consequences of the missing fs follow.
    expect(problems.slice(1)).toEqual([
      '  entry "tool-fs" (@deepseek-ai/dsh-tool-fs) waits for service fs, which no running entry provides',
      '  entry "str-replace-editor" (@deepseek-ai/dsh-tool-str-replace-editor) waits for service fs, which no running entry provides',
    ])
    expect(await readFile(EXAMPLE, 'utf8')).toBe(before)
  })
})
