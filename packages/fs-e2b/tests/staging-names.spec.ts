import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STAGE_DIR_PATTERN } from '../src/staging'
import { freshDir, type Provider, startProvider, useEmulatedSandbox } from './support/sandbox'

// Staging names are the provider's alone: a user's entries that merely look like them are listed,
// walked, searched and kept, however old. Through the real e2b SDK against the envd emulator, with
// content both inline in the publishing command and uploaded first.
const sandbox = useEmulatedSandbox()
const providers: Record<'inline' | 'uploaded', Provider> = {} as never
beforeAll(async () => {
  providers.inline = await startProvider(sandbox.relay.url)
  providers.uploaded = await startProvider(sandbox.relay.url, { inlineCommandMax: 0 })
})
afterAll(async () => {
  await Promise.all(Object.values(providers).map((provider) => provider.dispose()))
})

const twoHoursAgo = new Date(Date.now() - 2 * 3600_000)
const ours = (hex: string) => `.dsh-stage.${hex.repeat(32)}`

/** A user's look-alikes of staging names, two hours old, each with a file inside when it is a directory. */
const LOOK_ALIKES = ['.dsh-stage-notes', '.dsh-stage.old', `.dsh-stage.${'a'.repeat(31)}`, `.dsh-stage.${'B'.repeat(32)}`]

async function plantUsers(dir: string): Promise<void> {
  for (const name of LOOK_ALIKES) {
    await mkdir(join(dir, name))
    await writeFile(join(dir, name, 'keep.md'), `mine: ${name}\n`)
    await utimes(join(dir, name), twoHoursAgo, twoHoursAgo)
  }
  // A file with our exact name, and one of our names holding a directory: not what staging leaves.
  await writeFile(join(dir, ours('c')), 'a file\n')
  await mkdir(join(dir, ours('d'), 'sub'), { recursive: true })
  await writeFile(join(dir, ours('d'), 'sub', 'keep.md'), 'deep\n')
  for (const name of [ours('c'), ours('d')]) await utimes(join(dir, name), twoHoursAgo, twoHoursAgo)
}

const USERS = [...LOOK_ALIKES, ours('c'), ours('d')]

describe('E2B staging names', () => {
  for (const mode of ['inline', 'uploaded'] as const) {
    it(`a ${mode} write keeps every look-alike of a user, however old, and reclaims only an abandoned staging directory`, async () => {
      const { fs } = providers[mode]
      const dir = await freshDir(sandbox.root)
      await plantUsers(dir)
      // One a writer killed between upload and publication left: empty, and one holding its upload.
      await mkdir(join(dir, ours('e')))
      await mkdir(join(dir, ours('f')))
      await writeFile(join(dir, ours('f'), 'new.txt'), 'half\n')
      for (const name of [ours('e'), ours('f')]) await utimes(join(dir, name), twoHoursAgo, twoHoursAgo)

      await fs.writeText(await fs.resolve(join(dir, 'new.txt')), 'x\n')
      await fs.editText(await fs.resolve(join(dir, 'new.txt')), { oldString: 'x', newString: 'y', replaceAll: false })

      expect((await readdir(dir)).sort()).toEqual([...USERS, 'new.txt'].sort())
      for (const name of LOOK_ALIKES) expect(await readFile(join(dir, name, 'keep.md'), 'utf8')).toBe(`mine: ${name}\n`)
      expect(await readFile(join(dir, ours('d'), 'sub', 'keep.md'), 'utf8')).toBe('deep\n')
      expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('y\n')
    })
  }

  // A directory with the exact name is taken for staging in flight (hidden), though never reclaimed
  // unless its shape is staging's too; every other name is shown.
  it('lists, walks and searches the look-alikes, and hides a staging directory of a write in flight', async () => {
    const { fs } = providers.inline
    const dir = await freshDir(sandbox.root)
    await plantUsers(dir)
    await mkdir(join(dir, ours('9')))
    await writeFile(join(dir, ours('9'), 'target.txt'), 'keep.md staged\n')
    const root = await fs.resolve(dir)

    const listed = await fs.listDir(root)
    expect(listed.map((entry) => entry.name).sort()).toEqual([...LOOK_ALIKES, ours('c')].sort())
    expect(listed.omitted ?? 0).toBe(0)

    const walked = await fs.walk(root, { limit: 100 })
    expect(walked.entries.map((entry) => entry.path).filter((path) => path.endsWith('keep.md')).sort())
      .toEqual(LOOK_ALIKES.map((name) => `${name}/keep.md`).sort())
    expect(walked.entries.some((entry) => entry.path === ours('c'))).toBe(true)
    expect(walked.entries.some((entry) => entry.path.startsWith(ours('9')))).toBe(false)

    const found = await fs.search(root, { pattern: 'mine|staged', mode: 'files', limit: 100, includeIgnored: true })
    expect(found.files.map((file) => file.path).sort()).toEqual(LOOK_ALIKES.map((name) => `${name}/keep.md`).sort())
  })

  it('names every staging directory it makes in the one strict format', async () => {
    const { fs } = providers.uploaded
    const dir = await freshDir(sandbox.root)
    const seen = new Set<string>()
    // The upload is answered only after the hook has looked at the directory.
    for (let i = 0; i < 3; i++) {
      sandbox.relay.beforeNextPublish(async () => {
        for (const name of await readdir(dir)) if (name.startsWith('.dsh-stage')) seen.add(name)
      })
      await fs.writeText(await fs.resolve(join(dir, `f${i}.txt`)), `${i}\n`)
    }
    expect(seen.size).toBe(3)
    for (const name of seen) expect(name).toMatch(STAGE_DIR_PATTERN)
    expect((await readdir(dir)).sort()).toEqual(['f0.txt', 'f1.txt', 'f2.txt'])
  })
})
