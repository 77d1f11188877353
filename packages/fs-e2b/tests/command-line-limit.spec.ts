import { Context } from 'cordis'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import E2BFileSystem from '../src'
import { COMMAND_LINE_MAX } from '../src/publish'
import { PUBLISH } from '../src/scripts'
import { controlCommand } from '../src/shell'
import { freshDir, startProvider, useEmulatedSandbox } from './support/sandbox'

// inlineCommandMax is bounded by what Linux lets one argument be: a larger value used to be
// accepted, and every write whose command went past 128 KiB then failed E2BIG as FS_IO_ERROR.
const sandbox = useEmulatedSandbox()

describe('inlineCommandMax', () => {
  it('is refused above the command-line limit, with a text naming the limit', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(E2BFileSystem, { sandboxId: 'emulated', debug: true, sandboxUrl: sandbox.emulator.url, inlineCommandMax: 1024 * 1024 }))
      .rejects.toThrow(`use at most ${COMMAND_LINE_MAX}`)
    expect(ctx.get('fs')).toBeUndefined()
  })

  it('at the limit, writes content whose command only just fits inline, and content just past it by upload', async () => {
    const provider = await startProvider(sandbox.relay.url, { inlineCommandMax: COMMAND_LINE_MAX })
    try {
      const dir = await freshDir(sandbox.root)
      // The largest content whose publishing command (script, paths, base64) is exactly at the
      // limit goes inline and must not fail E2BIG; 3 bytes more is uploaded first.
      const inlineTarget = await provider.fs.resolve(join(dir, 'inline.txt'))
      const overhead = Buffer.byteLength(controlCommand(PUBLISH, ['create', inlineTarget.targetKey, `${dir}/.dsh-stage.${'0'.repeat(32)}/inline.txt`, '', inlineTarget.targetKey, 'inline', '']))
      const fits = Math.floor((COMMAND_LINE_MAX - overhead) / 4) * 3
      for (const [name, size] of [['inline.txt', fits], ['uploaded.txt', fits + 3]] as const) {
        const text = 'x'.repeat(size - 1) + '\n'
        const target = await provider.fs.resolve(join(dir, name))
        await provider.fs.writeText(target, text, { expected: { kind: 'createIfAbsent' } })
        expect(await readFile(join(dir, name), 'utf8')).toBe(text)
      }
    } finally {
      await provider.dispose()
    }
  })
})
