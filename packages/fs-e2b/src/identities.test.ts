import { expect, it } from 'vitest'
import { Identities } from './identities'

const at = (key: string) => ({ key, parent: key.slice(0, key.lastIndexOf('/')) || '/' })

it('remembers at most its cap of paths and forgets the least recently learned first', () => {
  const identities = new Identities(4)
  // Each learn remembers the path and its directory: two entries.
  identities.learn('/a/one', at('/real/a/one'))
  identities.learn('/b/two', at('/real/b/two'))
  identities.learn('/c/three', at('/real/c/three'))
  expect(identities.recall('/c/three')).toBe('/real/c/three')
  expect(identities.recall('/b/two')).toBe('/real/b/two')
  // `/a` and `/a/one` went first; nothing is guessed for them.
  expect(identities.recall('/a/one')).toBeUndefined()
})
