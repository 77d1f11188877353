import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'

// docs/providers.md walks through the reference provider: its code must be the real code.
const read = (path: string) => readFile(new URL(path, import.meta.url), 'utf8')

function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm'))].map((match) => match[1]!)
}

describe('docs/providers.md', () => {
  it('quotes MemoryFileSystem verbatim, and its test file is the conformance spec that runs', async () => {
    const doc = await read('../../../docs/providers.md')
    const memory = await read('../src/memory.ts')
    const spec = await read('./conformance.spec.ts')
    const blocks = codeBlocks(doc, 'ts')
    expect(blocks.length).toBeGreaterThan(4)
    const testFile = blocks.filter((block) => block.includes('describeConformance('))
    expect(testFile).toEqual([spec])
    for (const block of blocks.filter((block) => !block.includes('describeConformance('))) {
      expect(memory, `not in packages/fs/src/memory.ts:\n${block}`).toContain(block.trimEnd())
    }
  })
})
