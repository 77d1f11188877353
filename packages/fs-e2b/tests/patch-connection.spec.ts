import { stack } from '@deepseek-ai/dsh-test-kit'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { useEmulatedSandbox } from './support/sandbox'

const sandbox = useEmulatedSandbox()

// The case the all-or-nothing of apply_patch cannot cover: the connection is lost while a file's
// publishing command is on its way. The command may or may not have reached the sandbox; the
// provider cannot know. The result must say that this file may or may not have changed, and exactly which
// files changed before it.
it('reports a file whose publication was cut off as unknown, and the files before it as changed', async () => {
  await using s = await stack({ provider: 'e2b', sandboxUrl: sandbox.relay.url, requestTimeoutMs: 2_000, tools: ['tool-fs'], toolFs: { applyPatch: true } })
  try {
    for (const name of ['a.txt', 'b.txt', 'c.txt']) await writeFile(join(s.dir, name), `${name}\n`)
    for (const name of ['a.txt', 'b.txt', 'c.txt']) await s.ok('read', { file_path: name })
    // At a.txt's publishing command, arrange for the next one (b.txt's) to lose the connection as it is sent.
    sandbox.relay.beforeNextPublish(async () => sandbox.relay.beforeNextPublish(async () => sandbox.relay.drop()))
    const input = ['*** Begin Patch', '*** Update File: a.txt', '@@', '-a.txt', '+A', '*** Update File: b.txt', '@@', '-b.txt', '+B',
      '*** Update File: c.txt', '@@', '-c.txt', '+C', '*** End Patch'].join('\n')
    const result = await s.call('apply_patch', { input })
    expect(result.error?.code).toBe('FS_IO_ERROR')
    const text = result.content.map((part) => part.text).join('')
    expect(text).toMatch(/^apply_patch stopped partway: 1 file was changed before .*b\.txt failed\./)
    expect(text).toMatch(/- updated .*a\.txt: line 1 \(\+1 -1\)/)
    expect(text).toMatch(/Unknown: .*b\.txt may or may not have changed \(.*\); read it to see\./)
    expect(text).toMatch(/Not attempted, unchanged: .*c\.txt\./)
    expect(await readFile(join(s.dir, 'a.txt'), 'utf8')).toBe('A\n')
    // Whether the command reached the sandbox depends on where the cut fell: "unknown" is the honest answer.
    expect(['b.txt\n', 'B\n']).toContain(await readFile(join(s.dir, 'b.txt'), 'utf8'))
    expect(await readFile(join(s.dir, 'c.txt'), 'utf8')).toBe('c.txt\n')
  } finally {
    sandbox.relay.restore()
  }
}, 30_000)
