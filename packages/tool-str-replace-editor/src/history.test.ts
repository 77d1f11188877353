import type { FsTargetKey, FsVersion } from '@deepseek-ai/dsh-fs'
import { describe, expect, it } from 'vitest'
import { EditHistories, EditHistory } from './history'

const key = (name: string) => name as FsTargetKey
const v = (name: string) => name as FsVersion

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
    const history = new EditHistory({ depth: 2, maxBytes: 1000 })
    for (const n of [1, 2, 3]) history.push(key('a'), `t${n}`, v(`v${n}`))
    history.popTo(key('a'), v('x'))
    history.popTo(key('a'), v('y'))
    expect(history.peek(key('a'))).toBeUndefined()
  })

  it('evicts the oldest entries of the session when the byte budget is exceeded', () => {
    const history = new EditHistory({ depth: 10, maxBytes: 10 })
    history.push(key('a'), 'aaaa', v('1'))
    history.push(key('b'), 'bbbb', v('2'))
    history.push(key('a'), 'cccc', v('3'))
    expect(history.bytes).toBe(8)
    expect(history.peek(key('b'))).toMatchObject({ previous: 'bbbb' })
    history.popTo(key('a'), v('4'))
    expect(history.peek(key('a'))).toBeUndefined()
  })

  it('forgets a file whose previous text is larger than the whole budget, older entries included', () => {
    const history = new EditHistory({ depth: 10, maxBytes: 4 })
    history.push(key('a'), 'ab', v('1'))
    history.push(key('a'), 'éééé', v('2'))
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
