import { describe, expect, it } from 'vitest'
import { isStagingName, stagedNameOf, newStagingName, stagingKindOf } from './names'

describe('staging names', () => {
  it('recognises every name it makes, of each kind', () => {
    expect(stagingKindOf(newStagingName('f'))).toBe('f')
    expect(stagingKindOf(newStagingName('d'))).toBe('d')
    expect(stagingKindOf(stagedNameOf('notes.md'))).toBe('f')
  })

  it('stages one replacement per entry name, and different ones for different names', () => {
    expect(stagedNameOf('a.txt')).toBe(stagedNameOf('a.txt'))
    expect(stagedNameOf('a.txt')).not.toBe(stagedNameOf('b.txt'))
  })

  it('treats a look-alike whose check digits do not match as a user\'s name', () => {
    const ours = newStagingName('f')
    const forged = `${ours.slice(0, -8)}${ours.slice(-8) === '00000000' ? '11111111' : '00000000'}`
    for (const name of [forged, '.dsh-staging.f.cafe0123.1.42.7.backup', '.dsh-staging.notes', '.dsh-staging.l.0123456789abcdef.00000000', `${ours}.backup`, ours.toUpperCase()]) {
      expect(isStagingName(name), name).toBe(false)
    }
  })
})
