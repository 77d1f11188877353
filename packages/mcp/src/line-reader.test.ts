import { describe, expect, it } from 'vitest'
import { IdScanner, LineReader } from './line-reader'

const scan = (text: string, pieces = 1) => {
  const scanner = new IdScanner()
  const bytes = Buffer.from(text)
  const size = Math.ceil(bytes.length / pieces)
  for (let at = 0; at < bytes.length; at += size) scanner.feed(bytes.subarray(at, at + size))
  return { id: scanner.id, method: scanner.method }
}

describe('LineReader', () => {
  it('splits messages on newlines across chunks and drops a trailing CR', () => {
    const reader = new LineReader(1024)
    expect(reader.push(Buffer.from('{"a":1}\r\n{"b"'))).toEqual([{ kind: 'message', text: '{"a":1}' }])
    expect(reader.push(Buffer.from(':2}\n'))).toEqual([{ kind: 'message', text: '{"b":2}' }])
  })

  it('reports a line over the limit with its size and id, then reads the next line normally', () => {
    const reader = new LineReader(64)
    const big = JSON.stringify({ method: 'tools/call', params: { arguments: { content: 'x'.repeat(500) } }, jsonrpc: '2.0', id: 7 })
    const lines = [...reader.push(Buffer.from(big.slice(0, 100))), ...reader.push(Buffer.from(`${big.slice(100)}\n{"ok":true}\n`))]
    expect(lines).toEqual([
      { kind: 'oversize', bytes: Buffer.byteLength(big), id: 7, request: true },
      { kind: 'message', text: '{"ok":true}' },
    ])
  })

  it('keeps no more than the limit while an oversize line streams past', () => {
    const reader = new LineReader(1024)
    const chunk = Buffer.alloc(64 * 1024, 0x61)
    for (let i = 0; i < 32; i++) expect(reader.push(chunk)).toEqual([])
    // Nothing of the 2 MiB is held: the state is the scanner's, not the bytes.
    expect(reader.push(Buffer.from('\n'))).toEqual([{ kind: 'oversize', bytes: 32 * 64 * 1024, id: undefined, request: false }])
  })
})

describe('IdScanner', () => {
  it('finds a top-level id written before or after the params, in any chunking', () => {
    for (const pieces of [1, 3, 17]) {
      expect(scan('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"id":99}}', pieces)).toEqual({ id: 12, method: true })
      expect(scan('{"method":"tools/call","params":{"id":"inner","x":[1,{"id":3}]},"jsonrpc":"2.0","id":"req-1"}', pieces)).toEqual({ id: 'req-1', method: true })
    }
  })

  it('is not fooled by "id" inside a string value', () => {
    expect(scan('{"method":"x","params":{"content":"\\"id\\":5, \\"id\\": 6"},"id" : 8 }')).toEqual({ id: 8, method: true })
    expect(scan('{"note":"{\\"id\\":5}","id":null}')).toEqual({ id: null, method: false })
  })

  it('tells a notification (method, no id) from a request', () => {
    expect(scan('{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":1}}')).toEqual({ id: undefined, method: true })
  })

  it('decodes escapes in a string id', () => {
    expect(scan('{"id":"a\\"b\\u0041","method":"m"}')).toEqual({ id: 'a"bA', method: true })
  })
})
