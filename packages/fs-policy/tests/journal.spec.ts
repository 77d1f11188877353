import type { FsObservation, FsVersion } from '@deepseek-ai/dsh-fs'
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodeJournal, encodeRecord, FileLedger, type LedgerLimits } from '../src/index'

// The file ledger's crash safety: a torn or damaged journal loses at most its last entries and
// never makes one up; the journal stays bounded; one process at a time.

const present = (version: string) => ({ kind: 'present', version: version as FsVersion }) as FsObservation
const limits: LedgerLimits = { entryTtlMs: 3_600_000, maxEntriesPerOwner: 10_000, maxOwners: 100, retryTtlMs: 60_000 }

let dir: string
let path: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-journal-'))
  path = join(dir, 'ledger.journal')
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function written(count: number): Promise<void> {
  const ledger = await FileLedger.open(path, limits)
  for (let index = 0; index < count; index++) await ledger.put('alice', `/f${index}`, present(`v${index}`))
  await ledger.close()
}

async function survivors(count: number): Promise<(string | undefined)[]> {
  const ledger = await FileLedger.open(path, limits)
  try {
    return Array.from({ length: count }, (_, index) => (ledger.get('alice', `/f${index}`) as { version?: string } | undefined)?.version)
  } finally {
    await ledger.close()
  }
}

describe('a torn journal', () => {
  it('loses only the entry whose line was cut, at every cut point of the last line', async () => {
    await written(3)
    const whole = await readFile(path)
    const lastStart = whole.lastIndexOf(0x0a, whole.length - 2) + 1
    for (let cut = lastStart; cut < whole.length; cut++) {
      await writeFile(path, whole.subarray(0, cut))
      expect(await survivors(3), `cut at byte ${cut}`).toEqual(['v0', 'v1', undefined])
      // The torn tail was cut off on open, so what is appended next starts a line of its own.
      expect((await stat(path)).size).toBe(lastStart)
    }
  })

  it('keeps what comes before a damaged line and drops everything from it on, inventing nothing', async () => {
    await written(4)
    const bytes = await readFile(path)
    const second = bytes.indexOf(0x0a) + 1
    // A flipped digit of v1's version: still valid JSON, but its checksum no longer matches.
    const at = bytes.indexOf('"v1"', second)
    bytes[at + 2] = '7'.charCodeAt(0)
    await writeFile(path, bytes)
    expect(await survivors(4)).toEqual(['v0', undefined, undefined, undefined])
  })

  it('ignores a tail of zeros, as a crash on some filesystems leaves', async () => {
    await written(2)
    await appendFile(path, Buffer.alloc(4096))
    expect(await survivors(2)).toEqual(['v0', 'v1'])
    const ledger = await FileLedger.open(path, limits)
    await ledger.put('alice', '/f2', present('v2'))
    await ledger.close()
    expect(await survivors(3)).toEqual(['v0', 'v1', 'v2'])
  })

  it('decodes no prefix of a valid line as a record', () => {
    const line = Buffer.from(encodeRecord({ t: 'o', w: 'alice', k: '/a', v: present('v1'), x: 1 }))
    for (let cut = 0; cut < line.length; cut++) expect(decodeJournal(line.subarray(0, cut)).records).toEqual([])
    expect(decodeJournal(line).records).toHaveLength(1)
  })

  it('survives a process killed in the middle of its writes with a prefix of them', async () => {
    // A child writes without end and says so after each durable write of /last; it is killed by SIGKILL after ten.
    const script = `
      const { FileLedger } = await import(${JSON.stringify(new URL('../src/index.ts', import.meta.url).pathname)})
      const ledger = await FileLedger.open(${JSON.stringify(path)}, ${JSON.stringify(limits)})
      for (let i = 0; ; i++) {
        ledger.put('alice', '/f' + (i % 50), { kind: 'present', version: 'n' + i })
        if (i % 20 === 19) { await ledger.put('alice', '/last', { kind: 'present', version: 'n' + i }); process.stdout.write('n' + i + '\\n') }
      }
    `
    // Run from source, as vitest does: tsx for TypeScript, the dsh-source condition for the sibling packages.
    const tsx = createRequire(import.meta.url).resolve('tsx/esm')
    const child = spawn(process.execPath, ['--conditions=dsh-source', '--import', tsx, '--input-type=module', '-e', script], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] })
    const durable = await new Promise<number>((resolve, reject) => {
      let lines: string[] = []
      child.stdout.on('data', (chunk: Buffer) => {
        lines = lines.concat(chunk.toString('utf8').split('\n').filter(Boolean))
        if (lines.length >= 10) {
          child.kill('SIGKILL')
          resolve(Number(lines.at(-1)!.slice(1)))
        }
      })
      child.once('exit', (code) => reject(new Error(`the writer exited (${code}) before it was killed`)))
    })
    await new Promise((resolve) => child.once('exit', resolve))
    const ledger = await FileLedger.open(path, limits)
    try {
      const last = Number((ledger.get('alice', '/last') as { version: string }).version.slice(1))
      // At least what the child was told is durable; never more than one entry it wrote.
      expect(last).toBeGreaterThanOrEqual(durable)
      expect(last % 20).toBe(19)
      for (let index = 0; index < 50; index++) {
        const version = Number((ledger.get('alice', `/f${index}`) as { version: string }).version.slice(1))
        expect(version % 50).toBe(index)
        expect(version).toBeLessThan(last + 20)
      }
    } finally {
      await ledger.close()
    }
  })
})

describe('the journal', () => {
  it('stays bounded: rewriting one entry many times compacts it, and the entry survives', async () => {
    const ledger = await FileLedger.open(path, limits)
    for (let round = 0; round < 30; round++) {
      await Promise.all(Array.from({ length: 1000 }, (_, index) => ledger.put('alice', `/f${index % 10}`, present(`r${round}-${index}`))))
    }
    await ledger.close()
    // 30,000 records of ~110 bytes were written; what is left is at most the compaction threshold.
    expect((await stat(path)).size).toBeLessThanOrEqual(1024 * 1024 + 200 * 1000)
    const reopened = await FileLedger.open(path, limits)
    try {
      expect(reopened.get('alice', '/f9')).toEqual(present('r29-999'))
    } finally {
      await reopened.close()
    }
  })

  it('is refused to a second ledger while one has it open, naming the process', async () => {
    const first = await FileLedger.open(path, limits)
    try {
      await expect(FileLedger.open(path, limits)).rejects.toThrow(`the ledger file:${path} is in use by process ${process.pid}`)
    } finally {
      await first.close()
    }
    const again = await FileLedger.open(path, limits)
    await again.close()
  })

  it('takes over the lock of a process that no longer runs', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
    await writeFile(`${path}.lock`, `${dead}\n`)
    const ledger = await FileLedger.open(path, limits)
    await ledger.put('alice', '/f0', present('v0'))
    await ledger.close()
    expect(await survivors(1)).toEqual(['v0'])
  })

  it('refuses writes once closed, naming the file', async () => {
    const ledger = await FileLedger.open(path, limits)
    await ledger.put('alice', '/f0', present('v0'))
    await ledger.close()
    await expect(ledger.put('alice', '/f1', present('v1'))).rejects.toThrow(`the ledger file:${path} is closed`)
  })
})
