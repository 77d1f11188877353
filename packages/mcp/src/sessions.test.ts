import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type CloseReason, SessionTable } from './sessions'

beforeEach(() => { vi.useFakeTimers() })
afterEach(() => { vi.useRealTimers() })

function table(max = 3, idleMs = 1000) {
  const closed: [string, CloseReason][] = []
  const sessions = new SessionTable<string>({ idleMs, max })
  const open = (id: string, opener?: string) => {
    expect(sessions.claim()).toBe(true)
    sessions.add(id, `value ${id}`, (reason) => closed.push([id, reason]), opener)
    sessions.end(id)
  }
  return { sessions, closed, open }
}

describe('SessionTable', () => {
  it('closes a session idle for idleMs after its last request ended, and forgets it', () => {
    const { sessions, closed, open } = table()
    open('a')
    vi.advanceTimersByTime(999)
    expect(closed).toEqual([])
    vi.advanceTimersByTime(1)
    expect(closed).toEqual([['a', 'idle']])
    expect(sessions.begin('a')).toBeUndefined()
    expect(sessions.size).toBe(0)
  })

  it('never expires a session while one of its requests (an open event stream) is open', () => {
    const { sessions, closed, open } = table()
    open('a')
    const stream = sessions.begin('a')!
    expect(stream.value).toBe('value a')
    vi.advanceTimersByTime(10_000)
    expect(closed).toEqual([])
    stream.end()
    vi.advanceTimersByTime(1000)
    expect(closed).toEqual([['a', 'idle']])
  })

  it('restarts the idle clock on every request', () => {
    const { sessions, closed, open } = table()
    open('a')
    vi.advanceTimersByTime(900)
    sessions.begin('a')!.end()
    vi.advanceTimersByTime(900)
    expect(closed).toEqual([])
    vi.advanceTimersByTime(100)
    expect(closed).toEqual([['a', 'idle']])
  })

  it('evicts the least recently used idle session when full', () => {
    const { sessions, closed, open } = table(3)
    open('a')
    open('b')
    open('c')
    sessions.begin('a')!.end()
    open('d')
    expect(closed).toEqual([['b', 'evicted']])
    expect(sessions.size).toBe(3)
  })

  it("evicts the opener's own idle sessions before another opener's, least recently used first", () => {
    const { sessions, closed, open } = table(3)
    open('b1', 'agent B')
    open('a1', 'agent A')
    open('a2', 'agent A')
    open('a3', 'agent A')
    open('a4', 'agent A')
    expect(closed).toEqual([['a1', 'evicted'], ['a2', 'evicted']])
    expect(sessions.begin('b1')?.value).toBe('value b1')
  })

  it("evicts another opener's idle session when the opener has none idle", () => {
    const { sessions, closed, open } = table(2)
    open('b1', 'agent B')
    open('a1', 'agent A')
    sessions.begin('a1')
    open('a2', 'agent A')
    expect(closed).toEqual([['b1', 'evicted']])
  })

  it('refuses a new session when every session has a request open, and counts pending ones', () => {
    const { sessions, closed, open } = table(2)
    open('a')
    sessions.begin('a')
    expect(sessions.claim()).toBe(true)
    expect(sessions.claim()).toBe(false)
    sessions.release()
    expect(sessions.claim()).toBe(true)
    expect(closed).toEqual([])
  })

  it('evicts nobody for a claim that is released (a request that was not a valid initialize)', () => {
    const { sessions, closed, open } = table(2)
    open('a')
    open('b')
    expect(sessions.claim()).toBe(true)
    sessions.release()
    expect(closed).toEqual([])
    expect(sessions.size).toBe(2)
  })

  it('grants concurrent claims only as far as idle sessions can make room', () => {
    const { sessions, closed, open } = table(2)
    open('a')
    open('b')
    sessions.begin('b')
    expect(sessions.claim()).toBe(true)
    expect(sessions.claim()).toBe(false)
    sessions.add('c', 'value c', () => {})
    expect(closed).toEqual([['a', 'evicted']])
    expect(sessions.size).toBe(2)
  })

  it('stops the idle clock of a session deleted by its client', () => {
    const { sessions, closed, open } = table()
    open('a')
    expect(sessions.delete('a')).toBe(true)
    vi.advanceTimersByTime(5000)
    expect(closed).toEqual([])
    expect(sessions.delete('a')).toBe(false)
  })
})
