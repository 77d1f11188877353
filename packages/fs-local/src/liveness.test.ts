import { spawn } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listenLiveness, parseStartTime, pidVerdict, probeLiveness, selfIdentity } from './liveness'

describe('writer identity', () => {
  it('reads the start time even when the command name holds spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3))
    fields[19] = '987654'
    expect(parseStartTime(`123 (my (odd) name) ${fields.join(' ')}`)).toBe('987654')
    expect(parseStartTime('123 (truncated)')).toBeUndefined()
  })

  it('names this process by boot, PID namespace, pid and start time', () => {
    const me = selfIdentity()
    expect(me.ns).toMatch(/^\d+$/)
    expect(me.start).toMatch(/^\d+$/)
    expect(me.pid).toBe(process.pid)
  })

  it('judges by pid a live process alive and an exited one, a reused pid or another boot dead', async () => {
    const me = selfIdentity()
    expect(await pidVerdict(me)).toBe('alive')
    const child = spawn('sleep', ['30'])
    await new Promise((resolve) => child.once('spawn', resolve))
    // The child is alive, but a writer with its pid and a different start time is not it.
    expect(await pidVerdict({ ...me, pid: child.pid!, start: '1' })).toBe('dead')
    const closed = new Promise((resolve) => child.once('close', resolve))
    child.kill('SIGKILL')
    await closed
    expect(await pidVerdict({ ...me, pid: child.pid! })).toBe('dead')
    expect(await pidVerdict({ ...me, boot: '00000000' })).toBe('dead')
    expect(await pidVerdict({ ...me, start: 'x' })).toBe('alive')
  })

  it('never takes a pid from another PID namespace as evidence, dead or alive', async () => {
    const me = selfIdentity()
    // A pid that is free here, and one that is in use here (ours): both mean nothing over there.
    expect(await pidVerdict({ ...me, ns: '1', pid: 2 ** 22 + 1 })).toBe('unknown')
    expect(await pidVerdict({ ...me, ns: '1' })).toBe('unknown')
  })
})

describe('liveness socket', () => {
  it('answers while its process listens and refuses once that process is killed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-fs-local-live-'))
    const mine = listenLiveness(join(dir, 'mine'))!
    expect(await probeLiveness(join(dir, 'mine'))).toBe('alive')
    mine.close()
    expect(await probeLiveness(join(dir, 'mine')), 'closing unlinks the socket').toBe('gone')

    const path = join(dir, 'theirs')
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`])
    await new Promise((resolve) => child.stdout.once('data', resolve))
    expect(await probeLiveness(path)).toBe('alive')
    const closed = new Promise((resolve) => child.once('close', resolve))
    child.kill('SIGKILL')
    await closed
    expect(await probeLiveness(path)).toBe('dead')
  })

  it('is not bound where its path would not fit sun_path', () => {
    expect(listenLiveness(join(tmpdir(), 'x'.repeat(120)))).toBeUndefined()
  })
})
