import { describe, expect, it } from 'vitest'
import { useEmulator } from './fixture.js'

const f = useEmulator()

/** One Connect envelope: flag byte, 4-byte big-endian length, JSON. */
function envelope(message: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(message))
  const head = Buffer.alloc(5)
  head.writeUInt32BE(json.length, 1)
  return Buffer.concat([head, json])
}

/** Splits a whole streaming response body back into its frames. */
function frames(body: Buffer): { flags: number; message: unknown }[] {
  const out: { flags: number; message: unknown }[] = []
  for (let at = 0; at < body.length;) {
    const length = body.readUInt32BE(at + 1)
    out.push({ flags: body[at]!, message: JSON.parse(body.subarray(at + 5, at + 5 + length).toString()) })
    at += 5 + length
  }
  return out
}

const post = (path: string, body: Buffer | string, contentType: string) =>
  fetch(`${f.emulator.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body })

describe('wire protocol, byte for byte', () => {
  it('answers /health with 204 and an unknown route with 404, recording it as unknown', async () => {
    expect((await fetch(`${f.emulator.url}/health`)).status).toBe(204)
    f.emulator.resetRequests()
    const res = await fetch(`${f.emulator.url}/envs`)
    expect(res.status).toBe(404)
    expect(f.emulator.unknownRequests).toEqual([{ method: 'GET', path: '/envs', unknown: true }])
  })

  it('fails a unary call with the HTTP status and JSON code of the Connect error', async () => {
    const res = await post('/filesystem.Filesystem/Stat', JSON.stringify({ path: `${f.root}/none` }), 'application/json')
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ code: 'not_found' })
    const made = await post('/filesystem.Filesystem/MakeDir', JSON.stringify({ path: f.root }), 'application/json')
    expect(made.status).toBe(409)
    expect(await made.json()).toMatchObject({ code: 'already_exists' })
  })

  it('streams start, data and end events, then an end-of-stream frame', async () => {
    const res = await post('/process.Process/Start', envelope({
      process: { cmd: '/bin/bash', args: ['-c', 'printf hi; exit 2'], envs: {} }, stdin: false,
    }), 'application/connect+json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/connect+json')
    const all = frames(Buffer.from(await res.arrayBuffer()))
    expect(all[0]!.message).toMatchObject({ event: { start: { pid: expect.any(Number) } } })
    expect(all[1]!.message).toEqual({ event: { data: { stdout: Buffer.from('hi').toString('base64') } } })
    expect(all[2]!.message).toEqual({ event: { end: { exitCode: 2, exited: true, status: 'exit status 2', error: 'exit status 2' } } })
    expect(all.at(-1)).toEqual({ flags: 0x02, message: {} })
  })

  it('reports a streaming failure in the end frame of a 200 response', async () => {
    const res = await post('/process.Process/Connect', envelope({ process: { pid: 999_999 } }), 'application/connect+json')
    expect(res.status).toBe(200)
    const all = frames(Buffer.from(await res.arrayBuffer()))
    expect(all).toEqual([{ flags: 0x02, message: { error: { code: 'not_found', message: 'process with pid 999999 not found' } } }])
  })

  it('ends a stream with deadline_exceeded when Connect-Timeout-Ms passes', async () => {
    const res = await fetch(`${f.emulator.url}/process.Process/Start`, {
      method: 'POST',
      headers: { 'content-type': 'application/connect+json', 'connect-timeout-ms': '200' },
      body: envelope({ process: { cmd: '/bin/bash', args: ['-c', 'sleep 10'] }, stdin: false }),
    })
    const all = frames(Buffer.from(await res.arrayBuffer()))
    expect(all.at(-1)).toMatchObject({ flags: 0x02, message: { error: { code: 'deadline_exceeded' } } })
  })
})
