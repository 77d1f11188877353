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
    for (const doc of ['filesystem', 'providers', 'tools', 'situations', 'configuration', 'cli', 'benchmarks', 'reliability']) {
      expect(readme, doc).toContain(`(docs/${doc}.md)`)
    }
  })
})
