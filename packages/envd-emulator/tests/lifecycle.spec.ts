import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startEnvdEmulator } from '../src/index.js'
import { connectSdk, isAlive } from './fixture.js'

let root: string | undefined

afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true })
})

describe('emulator lifecycle', () => {
  it('close() kills every process it started, their children included, and frees the port', async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'envd-emulator-')))
    const emulator = await startEnvdEmulator({ root })
    const sandbox = await connectSdk(emulator.url)
    const handles = await Promise.all([1, 2, 3].map((i) =>
      sandbox.commands.run(`sleep 60 & echo $! > child${i}.pid; sleep 60`, { background: true, timeoutMs: 0 })))
    const children = await Promise.all([1, 2, 3].map(async (i) => {
      let text = ''
      while (!/\d/.test(text)) text = await readFile(join(root!, `child${i}.pid`), 'utf8').catch(() => '')
      return Number(text)
    }))
    const pids = [...handles.map((h) => h.pid), ...children]
    expect(pids.every(isAlive)).toBe(true)
    await emulator.close()
    expect(pids.filter(isAlive)).toEqual([])
    await expect(fetch(`${emulator.url}/health`)).rejects.toThrow()
  })

  it('injects latency per request and counts every round trip', async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'envd-emulator-')))
    const emulator = await startEnvdEmulator({ root, latencyMs: 150 })
    try {
      const sandbox = await connectSdk(emulator.url)
      const started = Date.now()
      await sandbox.files.write('a.txt', 'a')
      await sandbox.files.read('a.txt')
      expect(Date.now() - started).toBeGreaterThanOrEqual(300)
      expect(emulator.stats()).toEqual({ 'POST /files': 1, 'GET /files': 1 })
      emulator.resetRequests()
      expect(emulator.requests).toEqual([])
    } finally {
      await emulator.close()
    }
  })
})
