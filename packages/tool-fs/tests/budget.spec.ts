import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

// The whole conversation with the provider is pinned, so a second stat (or any I/O the policy
// might add) shows up. resolve maps a path to a target; it is not a stat of the target. The tools
// call the fused steps `inspect` and `resolveForMutation`; this provider keeps their defaults, so
// the calls below are what those defaults are made of (a provider's own `inspect` is the one stat).
for (const policy of [true, false]) {
  describe(policy ? 'with the policy' : 'without the policy', () => {
    it('read makes one stat', async () => {
      s = await stack({ policy })
      await s.put('a.txt', 'a\n')
      await s.call('read', { file_path: 'a.txt' })
      expect(s.log.calls).toEqual(['resolve', 'stat', 'readText'])
    })

    it('read of a missing file makes one stat', async () => {
      s = await stack({ policy })
      await s.call('read', { file_path: 'missing.txt' })
      expect(s.log.calls).toEqual(['resolve', 'stat'])
    })

    it('write makes no stat, for a create and for an overwrite', async () => {
      s = await stack({ policy })
      await s.call('write', { file_path: 'a.txt', content: 'a\n' })
      await s.call('write', { file_path: 'a.txt', content: 'b\n' })
      expect(s.log.calls).toEqual(['resolve', 'writeText', 'resolve', 'writeText'])
    })

    it('edit makes no stat', async () => {
      s = await stack({ policy })
      await s.put('a.txt', 'a\n')
      await s.call('read', { file_path: 'a.txt' })
      s.log.calls.length = 0
      const result = await s.call('edit', { file_path: 'a.txt', old_string: 'a', new_string: 'b' })
      expect(result.isError).toBe(false)
      expect(s.log.calls).toEqual(['resolve', 'editText'])
    })
  })
}
