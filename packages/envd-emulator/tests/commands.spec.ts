import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CommandExitError, InvalidArgumentError, TimeoutError } from 'e2b'
import { describe, expect, it } from 'vitest'
import { isAlive, useEmulator } from './fixture.js'

const f = useEmulator()

describe('commands API through the real SDK', () => {
  it('runs bash -l -c in the home with its stdout, stderr and exit code', async () => {
    const result = await f.sandbox.commands.run('printf out; printf err >&2; pwd; echo "$HOME"')
    expect(result).toMatchObject({ exitCode: 0, stdout: `out${f.root}\n${f.root}\n`, stderr: 'err' })
    const start = f.emulator.requests.findLast((r) => r.path === '/process.Process/Start')
    expect(start).toMatchObject({ method: 'POST', unknown: false })
  })

  it('throws CommandExitError carrying a non-zero exit code and both outputs', async () => {
    const error = await f.sandbox.commands.run('echo partial; echo oops >&2; exit 3').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CommandExitError)
    expect(error).toMatchObject({ exitCode: 3, stdout: 'partial\n', stderr: 'oops\n', error: 'exit status 3' })
  })

  it('passes envs and cwd, and rejects a missing cwd with InvalidArgumentError', async () => {
    await mkdir(join(f.root, 'work'), { recursive: true })
    const result = await f.sandbox.commands.run('echo "$GREETING" && pwd', { envs: { GREETING: 'hi there' }, cwd: join(f.root, 'work') })
    expect(result.stdout).toBe(`hi there\n${join(f.root, 'work')}\n`)
    await expect(f.sandbox.commands.run('true', { cwd: join(f.root, 'absent') })).rejects.toBeInstanceOf(InvalidArgumentError)
  })

  it('streams binary-safe output in order through the callbacks', async () => {
    const chunks: string[] = []
    await f.sandbox.commands.run('for i in 1 2 3; do echo line$i; sleep 0.05; done', { onStdout: (d) => { chunks.push(d) } })
    expect(chunks.join('')).toBe('line1\nline2\nline3\n')
  })

  it('gives commands /dev/null as stdin unless asked, and a pipe that sendStdin and closeStdin drive', async () => {
    expect((await f.sandbox.commands.run('cat; echo done')).stdout).toBe('done\n')
    const handle = await f.sandbox.commands.run('cat > piped.txt; echo closed', { background: true, stdin: true })
    await handle.sendStdin('through ')
    await f.sandbox.commands.sendStdin(handle.pid, new TextEncoder().encode('stdin'))
    await handle.closeStdin()
    expect((await handle.wait()).stdout).toBe('closed\n')
    expect(await readFile(join(f.root, 'piped.txt'), 'utf8')).toBe('through stdin')
  })

  it('kills a background command: wait reports exit code -1 and the whole group is gone', async () => {
    const handle = await f.sandbox.commands.run('sleep 30 & echo $! > child.pid; wait', { background: true })
    await expect.poll(() => readFile(join(f.root, 'child.pid'), 'utf8').catch(() => '')).toMatch(/\d+/)
    const child = Number(await readFile(join(f.root, 'child.pid'), 'utf8'))
    expect((await f.sandbox.commands.list()).map((p) => p.pid)).toContain(handle.pid)
    expect(await handle.kill()).toBe(true)
    const error = await handle.wait().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CommandExitError)
    expect(error).toMatchObject({ exitCode: -1, error: 'signal: killed' })
    await expect.poll(() => isAlive(child)).toBe(false)
    expect(await f.sandbox.commands.kill(handle.pid)).toBe(false)
  })

  it('reconnects to a running command and receives its later output', async () => {
    const handle = await f.sandbox.commands.run('read _; echo after', { background: true, stdin: true })
    await handle.disconnect()
    const again = await f.sandbox.commands.connect(handle.pid)
    await again.sendStdin('go\n')
    expect((await again.wait()).stdout).toBe('after\n')
  })

  it('kills a command at its deadline and raises TimeoutError', async () => {
    const started = Date.now()
    const error = await f.sandbox.commands.run('echo $$ > timed.pid; sleep 30', { timeoutMs: 400 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimeoutError)
    expect(Date.now() - started).toBeLessThan(5_000)
    const pid = Number(await readFile(join(f.root, 'timed.pid'), 'utf8'))
    await expect.poll(() => isAlive(pid)).toBe(false)
  })

  it('runs a command with no deadline when timeoutMs is 0', async () => {
    expect((await f.sandbox.commands.run('sleep 0.2; echo ok', { timeoutMs: 0 })).stdout).toBe('ok\n')
  })
})
