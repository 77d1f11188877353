import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { call, requireBuild, stdioClient, tempDir } from './dsh-process'
import { localFs, stackConfig } from './stack-config'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

// Over stdio the one client is the owner `stdio` on every start: with a persistent ledger, what
// it read before dsh restarted still counts after, and the provider's version check still decides.

/** The shipped config's plugins, with the policy's ledger set (or not). */
function stdioConfig(dir: string, policy: string): string {
  return stackConfig({ fs: localFs(dir), policy: policy === '' ? undefined : policy, mcp: '{ transport: stdio }' })
}

/** Reads a.txt in one dsh process, lets `between` act while none runs, then edits it in a new one. */
async function readRestartEdit(policy: string, between: (dir: string) => Promise<void> = async () => {}) {
  await using temp = await tempDir()
  const config = join(temp.dir, 'cordis.yml')
  await writeFile(config, stdioConfig(temp.dir, policy.replaceAll('<dir>', temp.dir)))
  await writeFile(join(temp.dir, 'a.txt'), 'alpha\nbeta\n')
  const first = await stdioClient(temp.dir, ['--config', config])
  expect(await call(first.client, 'read', { file_path: 'a.txt' })).toMatchObject({ ok: true })
  await first.client.close()
  await between(temp.dir)
  const second = await stdioClient(temp.dir, ['--config', config])
  try {
    const edited = await call(second.client, 'edit', { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' })
    return { edited, text: await readFile(join(temp.dir, 'a.txt'), 'utf8') }
  } finally {
    await second.client.close()
  }
}

describe('dsh start over stdio, restarted between a read and an edit', () => {
  it('with a file ledger, edits the unchanged file without a re-read', async () => {
    const { edited, text } = await readRestartEdit('{ ledger: "file:<dir>/.ledger/journal" }')
    expect(edited).toMatchObject({ ok: true })
    expect(text).toBe('alpha\nBETA\n')
  })

  it('with a file ledger, refuses as stale a file changed while dsh was down', async () => {
    const { edited, text } = await readRestartEdit('{ ledger: "file:<dir>/.ledger/journal" }', (dir) => writeFile(join(dir, 'a.txt'), 'alpha\nbeta\ngamma\n'))
    expect(edited).toMatchObject({ ok: false, code: 'FS_STALE_VERSION' })
    expect(text).toBe('alpha\nbeta\ngamma\n')
  })

  it('with the default memory ledger, refuses the edit as not read, as before', async () => {
    const { edited, text } = await readRestartEdit('')
    expect(edited).toMatchObject({ ok: false, code: 'FS_NOT_OBSERVED' })
    expect(text).toBe('alpha\nbeta\n')
  })
})
