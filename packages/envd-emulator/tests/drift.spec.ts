import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SERVED_RPCS, type ServedRpc } from '../src/index.js'
import { sdkCalledMethodNames, sdkMethods } from './descriptors.js'
import { useEmulator } from './fixture.js'

/** Methods the SDK can reach that the emulator deliberately leaves out, with the reason. */
const NOT_EMULATED: Record<string, string> = {
  'process.Process/Update': 'PTY resize (sandbox.pty) — PTYs are not emulated and no provider uses them',
}

const SERVICES = ['filesystem.Filesystem/', 'process.Process/']

describe('static drift: the SDK descriptors against the served routes', () => {
  const methods = sdkMethods()
  const called = sdkCalledMethodNames()
  const reached = methods.filter((m) => SERVICES.some((s) => m.route.startsWith(s))
    && called.has(m.route.split('/')[1]!.replace(/^./, (c) => c.toLowerCase())))

  it('finds the filesystem and process services in the installed SDK', () => {
    expect(reached.length).toBeGreaterThanOrEqual(12)
    expect(reached.map((m) => m.route)).toContain('process.Process/Start')
  })

  it('serves every method the SDK code calls, unless listed as deliberately not emulated', () => {
    expect(reached.length).toBeGreaterThan(0)
    const missing = reached.map((m) => m.route).filter((r) => !(r in SERVED_RPCS) && !(r in NOT_EMULATED))
    expect(missing).toEqual([])
  })

  it('serves each method with the streaming kind its descriptor declares', () => {
    for (const [route, kind] of Object.entries(SERVED_RPCS) as [ServedRpc, string][]) {
      const method = methods.find((m) => m.route === route)
      expect(method, `${route} is gone from the SDK`).toBeDefined()
      expect(method!.clientStreaming).toBe(false)
      expect(method!.serverStreaming ? 'stream' : 'unary', route).toBe(kind)
    }
  })
})

describe('dynamic drift: every SDK call the provider could make reaches a served route', () => {
  const f = useEmulator()

  it('drives the files, commands and health APIs without a single unknown request', async () => {
    const dir = join(f.root, 'drift')
    const sb = f.sandbox
    await sb.files.makeDir(dir)
    await sb.files.makeDir(dir)
    await sb.files.write(join(dir, 'a.txt'), 'a')
    await sb.files.write(join(dir, 'b.txt'), 'b', { useOctetStream: true })
    await sb.files.write(join(dir, 'c.txt'), 'c', { gzip: true })
    await sb.files.write([{ path: join(dir, 'd.txt'), data: new Blob(['d']) }])
    await sb.files.read(join(dir, 'a.txt'))
    await sb.files.read(join(dir, 'a.txt'), { format: 'bytes' })
    await sb.files.read(join(dir, 'a.txt'), { format: 'blob' })
    const stream = await sb.files.read(join(dir, 'a.txt'), { format: 'stream' })
    await new Response(stream).text()
    await sb.files.list(dir, { depth: 2 })
    await sb.files.exists(join(dir, 'a.txt'))
    await sb.files.exists(join(dir, 'zzz'))
    await sb.files.getInfo(join(dir, 'a.txt'))
    await sb.files.rename(join(dir, 'a.txt'), join(dir, 'moved.txt'))
    await sb.files.remove(join(dir, 'moved.txt'))
    const watch = await sb.files.watchDir(dir, () => {})
    await writeFile(join(dir, 'touched'), '')
    await watch.stop()
    await sb.files.read(join(dir, 'missing')).catch(() => {})
    await sb.commands.run('echo out; echo err >&2')
    await sb.commands.run('exit 7').catch(() => {})
    await sb.commands.run('sleep 5', { timeoutMs: 100 }).catch(() => {})
    const bg = await sb.commands.run('cat', { background: true, stdin: true })
    await sb.commands.list()
    await bg.sendStdin('x')
    await bg.closeStdin()
    await bg.wait()
    const killed = await sb.commands.run('sleep 30', { background: true })
    const again = await sb.commands.connect(killed.pid)
    await sb.commands.kill(killed.pid)
    await again.wait().catch(() => {})
    await sb.isRunning()
    await mkdir(join(dir, 'end'), { recursive: true })
    expect(f.emulator.unknownRequests).toEqual([])
    expect(f.emulator.requests.length).toBeGreaterThan(25)
  })

  it('records a call it does not serve, so the check above can fail', async () => {
    const pty = await f.sandbox.pty.create({ cols: 80, rows: 24, onData: () => {} }).catch((e: unknown) => e)
    expect(pty).toBeInstanceOf(Error)
    await f.sandbox.pty.resize(1, { cols: 10, rows: 10 }).catch(() => {})
    expect(f.emulator.unknownRequests).toEqual([{ method: 'POST', path: '/process.Process/Update', unknown: true }])
  })
})
