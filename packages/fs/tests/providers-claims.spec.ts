import { FileSystem } from '@deepseek-ai/dsh-fs'
import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { MemoryFileSystem } from '@deepseek-ai/dsh-fs/memory'
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { memoryFixture } from './support/memory-fixture'

// What docs/providers.md promises a provider author ("What the provider owes"), held against the
// conformance suite. The symlink half of the walk/search claim is in
// packages/fs-local/tests/default-discovery-symlinks.spec.ts (it needs a disk with links).

/** A provider as one written before 0.2 would be: its edit outcomes say nothing of where the edit landed. */
class WithoutEditLines extends MemoryFileSystem {
  override async editText(...args: Parameters<MemoryFileSystem['editText']>) {
    const { changes: _changes, lineTotals: _totals, ...outcome } = await super.editText(...args)
    return outcome
  }
}

describeConformance('a provider whose edit outcomes carry no changes nor lineTotals (editLines not declared)', {
  capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, readOnlyFiles: true, remove: true, rename: true },
  groups: ['edits'],
  setup: () => memoryFixture(WithoutEditLines),
})

describe('docs/providers.md, what the provider owes', () => {
  it('the reference provider keeps the default walk and search, so its conformance run (no symlinks) proves they work out of the box', () => {
    expect(MemoryFileSystem.prototype.walk).toBe(FileSystem.prototype.walk)
    expect(MemoryFileSystem.prototype.search).toBe(FileSystem.prototype.search)
  })

  it('says which providers must override walk and search, and that changes are optional behind the editLines capability', async () => {
    const doc = (await readFile(new URL('../../../docs/providers.md', import.meta.url), 'utf8')).replace(/\s+/g, ' ')
    expect(doc).toContain('work out of the box on a backend without symbolic links')
    expect(doc).toContain('A backend **with** symbolic links must override `walk` and `search`')
    expect(doc).toContain('They are optional, and the tools render without them; once your provider reports them, declare the capability `editLines: true`')
    const filesystem = (await readFile(new URL('../../../docs/filesystem.md', import.meta.url), 'utf8')).replace(/\s+/g, ' ')
    expect(filesystem).toContain('Optional: a provider that predates them still conforms (the conformance suite checks them only for a provider that declares the capability `editLines`)')
  })
})
