import { describe, expect, it } from 'vitest'
import { RpcError } from './connect.js'
import { rfc3339 } from './entry.js'
import { resolveSandboxPath } from './paths.js'

describe('sandbox paths', () => {
  it('resolves relative paths and ~ against the home and cleans absolute ones', () => {
    expect(resolveSandboxPath('', '/h')).toBe('/h')
    expect(resolveSandboxPath('~', '/h')).toBe('/h')
    expect(resolveSandboxPath('~/a/../b', '/h')).toBe('/h/b')
    expect(resolveSandboxPath('x/y', '/h')).toBe('/h/x/y')
    expect(resolveSandboxPath('/etc//hosts/', '/h')).toBe('/etc/hosts')
  })

  it('refuses another user\'s home with invalid_argument', () => {
    expect(() => resolveSandboxPath('~other/x', '/h')).toThrow(expect.objectContaining({ code: 'invalid_argument' }) as RpcError)
  })
})

describe('timestamps', () => {
  it('renders nanoseconds as RFC 3339 with nine fraction digits', () => {
    expect(rfc3339(1_700_000_000_123_456_789n)).toBe('2023-11-14T22:13:20.123456789Z')
    expect(rfc3339(5n)).toBe('1970-01-01T00:00:00.000000005Z')
  })
})
