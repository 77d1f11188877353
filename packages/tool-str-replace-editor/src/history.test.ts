import type { FsTargetKey, FsVersion } from '@deepseek-ai/dsh-fs'
import { describe, expect, it } from 'vitest'
import { EditHistories, EditHistory } from './history'

const key = (name: string) => name as FsTargetKey
const v = (name: string) => name as FsVersion

/** A history with these limits after these pushes, each `[file, previous text, version written]`. */
function pushed(limits: { depth: number; maxBytes: number }, pushes: Array<[string, string, string]>): EditHistory {
  const history = new EditHistory(limits)
  for (const [file, previous, written] of pushes) history.push(key(file), previous, v(written))
  return history
}

describe('EditHistory', () => {
  it('undoes newest first and re-bases the entry below on the version the undo produced', () => {
    const history = new EditHistory({ depth: 10, maxBytes: 1000 })
    history.push(key('a'), 'zero', v('v1'))
    history.push(key('a'), 'one', v('v2'))
    expect(history.peek(key('a'))).toMatchObject({ previous: 'one', written: 'v2' })
    history.popTo(key('a'), v('v3'))
    expect(history.peek(key('a'))).toMatchObject({ previous: 'zero', written: 'v3' })
    history.popTo(key('a'), v('v4'))
    expect(history.peek(key('a'))).toBeUndefined()
    expect(history.bytes).toBe(0)
  })

  it('keeps at most `depth` entries per file', () => {
    const history = pushed({ depth: 2, maxBytes: 1000 }, [['a', 't1', 'v1'], ['a', 't2', 'v2'], ['a', 't3', 'v3']])
    history.popTo(key('a'), v('x'))
    history.popTo(key('a'), v('y'))
    expect(history.peek(key('a'))).toBeUndefined()
  })

  it('evicts the oldest entries of the session when the byte budget is exceeded', () => {
    const history = pushed({ depth: 10, maxBytes: 10 }, [['a', 'aaaa', '1'], ['b', 'bbbb', '2'], ['a', 'cccc', '3']])
    expect(history.bytes).toBe(8)
    expect(history.peek(key('b'))).toMatchObject({ previous: 'bbbb' })
    history.popTo(key('a'), v('4'))
    expect(history.peek(key('a'))).toBeUndefined()
  })

  it('forgets a file whose previous text is larger than the whole budget, older entries included', () => {
    const history = pushed({ depth: 10, maxBytes: 4 }, [['a', 'ab', '1'], ['a', 'éééé', '2']])
    expect(history.peek(key('a'))).toBeUndefined()
    expect(history.bytes).toBe(0)
  })
})

describe('EditHistories', () => {
  it('keeps one history per session and one shared history for calls without a session', () => {
    const histories = new EditHistories({ depth: 10, maxBytes: 100 })
    const one = {}
    histories.of(one).push(key('a'), 'x', v('1'))
    expect(histories.of({}).peek(key('a'))).toBeUndefined()
    expect(histories.of(undefined).peek(key('a'))).toBeUndefined()
    expect(histories.of(one).peek(key('a'))).toMatchObject({ previous: 'x' })
    expect(histories.of(undefined)).toBe(histories.of(undefined))
  })
})
