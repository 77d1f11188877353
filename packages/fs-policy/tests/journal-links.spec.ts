import type { FsObservation, FsVersion } from '@deepseek-ai/dsh-fs'
import { lstat, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileLedger, type LedgerLimits } from '../src/index'

// The journal's names are opened without following a link: a link planted at the ledger path (or
// at the name compaction stages under) must not make dsh truncate or overwrite the file it leads to.

const present = (version: string) => ({ kind: 'present', version: version as FsVersion }) as FsObservation
const limits: LedgerLimits = { entryTtlMs: 3_600_000, maxEntriesPerOwner: 10_000, maxOwners: 100, retryTtlMs: 60_000 }
const VICTIM = 'export PATH=$HOME/bin:$PATH\n# the user\'s own file, not a journal\n'

let dir: string
let path: string
let victim: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-journal-links-'))
  path = join(dir, 'ledger.journal')
  victim = join(dir, 'victim.rc')
  await writeFile(victim, VICTIM)
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the file ledger and symbolic links', () => {
  it('refuses a ledger path that is a symbolic link, naming it, and leaves the file it leads to as it was', async () => {
    await symlink(victim, path)
    await expect(FileLedger.open(path, limits)).rejects.toThrow(/is a symbolic link/)
    expect(await readFile(victim, 'utf8')).toBe(VICTIM)
    // Refused before the lock is kept: the next start is not told the ledger is in use.
    await rm(path)
    const ledger = await FileLedger.open(path, limits)
    await ledger.close()
  })

  it('compacts through a fresh file even when a link was planted at the staged name', async () => {
    await symlink(victim, `${path}.compact`)
    const ledger = await FileLedger.open(path, limits)
    // One key rewritten until the journal passes the 1 MiB compaction floor.
    for (let index = 0; index < 300; index++) await ledger.put('alice', '/same', present(`version-${index}`.padEnd(4000, '.')))
    await ledger.close()
    expect(await readFile(victim, 'utf8')).toBe(VICTIM)
    expect((await lstat(path)).isFile()).toBe(true)
    expect((await stat(path)).size).toBeLessThan(1024 * 1024)
    const again = await FileLedger.open(path, limits)
    expect((again.get('alice', '/same') as { version: string }).version).toMatch(/^version-299\./)
    await again.close()
  })
})
