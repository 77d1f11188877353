import { expect } from 'vitest'
import { type Harness, expectFsError, needs, type ClauseGroup } from './harness'

export const permissions: ClauseGroup = { title: 'permissions', clauses: permissionClauses }

export function permissionClauses(h: Harness): void {
  const readOnly = needs(h, 'readOnlyFiles')

  // A replacement only needs the directory to be writable: without this clause a provider may
  // publish over a file its owner made read-only, which an in-place writer would be refused.
  readOnly('refuses to write or edit a read-only file with FS_PERMISSION_DENIED, the fact `read-only`, and leaves it unchanged', async () => {
    await h.external.write('locked.txt', 'keep me\n')
    await h.external.makeReadOnly!('locked.txt')
    const target = await h.target('locked.txt')
    const version = await h.version('locked.txt')
    const refusals = [
      () => h.fs.writeText(target, 'overwritten\n'),
      () => h.fs.writeText(target, 'overwritten\n', { expected: { kind: 'replaceIfVersion', version } }),
      () => h.fs.editText(target, { oldString: 'keep', newString: 'lose', replaceAll: false }),
      () => h.fs.editText(target, { oldString: 'keep', newString: 'lose', replaceAll: false }, { expected: { version } }),
    ]
    // A fact for the tool layer to word, never a command in the provider's text.
    for (const refused of refusals) expect((await expectFsError(refused(), 'FS_PERMISSION_DENIED')).fact).toBe('read-only')
    expect(await h.disk('locked.txt')).toBe('keep me\n')
    expect(await h.version('locked.txt')).toBe(version)
    // The refusal is about that file only: its neighbours stay writable.
    await h.external.write('open.txt', 'a')
    await h.fs.writeText(await h.target('open.txt'), 'b')
    expect(await h.disk('open.txt')).toBe('b')
  })
}
