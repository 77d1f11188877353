import { FileSystem } from '@deepseek-ai/dsh-fs'
import LocalFileSystem from '@deepseek-ai/dsh-fs-local'
import { Context } from 'cordis'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// docs/providers.md says a backend with symbolic links must override `walk` and `search`, because
// the defaults see the tree through `listDir`, which follows links. This keeps that true: the
// default walk, run on a disk with a link, reports the link as what it points to, where the
// suite's symlink clause wants a `symlink` entry. (LocalFileSystem overrides both, and conforms.)

describe('the default walk on a backend with symbolic links', () => {
  it('reports a link as the directory it points to, so such a provider must override walk and search', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-default-walk-')))
    const ctx = new Context()
    try {
      await mkdir(join(dir, 'inside'))
      await writeFile(join(dir, 'inside/needle.txt'), 'needle\n')
      await symlink('.', join(dir, 'inside/loop'))
      const fiber = ctx.plugin(LocalFileSystem, { cwd: dir, root: dir })
      await fiber
      const root = await ctx.fs.resolve('.')
      const byDefault = await FileSystem.prototype.walk.call(ctx.fs, root, { limit: 100 })
      expect(byDefault.entries.find((entry) => entry.path === 'inside/loop')?.type).toBe('directory')
      const overridden = await ctx.fs.walk(root, { limit: 100 })
      expect(overridden.entries.find((entry) => entry.path === 'inside/loop')?.type).toBe('symlink')
      await fiber.dispose()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
