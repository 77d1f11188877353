import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// An AsyncLocalStorage that has ever run makes Node 20 install promise hooks for the whole process:
// every promise of every call pays for it. The contract and its kit carry what a call needs (its
// `decoding`, its `signal`) in the call's options instead.
const SRC = fileURLToPath(new URL('../src', import.meta.url))

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(entries.map((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : Promise.resolve(entry.name.endsWith('.ts') ? [path] : [])
  }))
  return nested.flat()
}

describe('packages/fs/src', () => {
  it('never imports node:async_hooks', async () => {
    const files = await sources(SRC)
    expect(files.length).toBeGreaterThan(20)
    const importing = []
    for (const file of files) {
      if (/from ['"](node:)?async_hooks['"]|require\(['"](node:)?async_hooks['"]\)/.test(await readFile(file, 'utf8'))) importing.push(file)
    }
    expect(importing).toEqual([])
  })
})
