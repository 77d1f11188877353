import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { isDeadWriter, parseStagingName, parseStartTime, selfIdentity, STAGING_PREFIX } from './staging'

describe('staging names', () => {
  it('reads the start time even when the command name holds spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3))
    fields[19] = '987654'
    expect(parseStartTime(`123 (my (odd) name) ${fields.join(' ')}`)).toBe('987654')
    expect(parseStartTime('123 (truncated)')).toBeUndefined()
  })

  it('round-trips this process\'s identity through a staging name', () => {
    const me = selfIdentity()
    expect(me.start).toMatch(/^\d+$/)
    expect(parseStagingName(`${STAGING_PREFIX}${me.boot}.${me.pid}.${me.start}.a1B2c3`)).toEqual(me)
    expect(parseStagingName(`${STAGING_PREFIX}junk`)).toBeUndefined()
    expect(parseStagingName('.dsh-staging.12345678.1.2.toolongsuffix')).toBeUndefined()
  })

  it('judges a live process alive and an exited one, a reused pid or another boot dead', async () => {
    const me = selfIdentity()
    expect(await isDeadWriter(me)).toBe(false)
    const child = spawn('sleep', ['30'])
    await new Promise((resolve) => child.once('spawn', resolve))
    // The child is alive, but a writer with its pid and a different start time is not it.
    expect(await isDeadWriter({ boot: me.boot, pid: child.pid!, start: '1' })).toBe(true)
    const closed = new Promise((resolve) => child.once('close', resolve))
    child.kill('SIGKILL')
    await closed
    expect(await isDeadWriter({ boot: me.boot, pid: child.pid!, start: me.start })).toBe(true)
    expect(await isDeadWriter({ boot: '00000000', pid: me.pid, start: me.start })).toBe(true)
    expect(await isDeadWriter({ boot: me.boot, pid: me.pid, start: 'x' })).toBe(false)
  })
})
