import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** A step of the scripted session: a tool call with the outcome it must have, or a change on disk. */
export type DemoStep =
  | { say: string; call: { name: string; arguments: Record<string, unknown> }; expect: 'ok' | string }
  | { say: string; disk: (dir: string) => Promise<string> }

const NOTES = '# Shopping\n- milk\n- eggs\n'

/** Files present before the session starts. */
export async function seed(dir: string): Promise<void> {
  await writeFile(join(dir, 'notes.md'), NOTES)
  await writeFile(join(dir, 'settings.json'), '{ "theme": "dark" }\n')
}

const read = (file: string) => ({ name: 'read', arguments: { file_path: file } })

/**
 * The seed notes' recovery chain told as one session, with the shipped config's
 * `staleRefusalObserves`: a stale edit is refused with the current text, which counts as a read,
 * so the same edit then applies; after an external delete the stale write is refused, the refusal
 * records the absence and a guarded create recovers; a file the model never read cannot be
 * overwritten.
 */
export const STEPS: DemoStep[] = [
  { say: 'The model reads notes.md.', call: read('notes.md'), expect: 'ok' },
  {
    say: 'A formatter rewrites notes.md behind the model\'s back.',
    disk: async (dir) => {
      await writeFile(join(dir, 'notes.md'), NOTES.replace('- milk', '- oat milk'))
      return 'notes.md on disk now says "- oat milk" where it said "- milk"'
    },
  },
  {
    say: 'The model edits from the copy it read: the file moved on, so the edit is refused, with the current text.',
    call: { name: 'edit', arguments: { file_path: 'notes.md', old_string: '- eggs', new_string: '- eggs\n- bread' } },
    expect: 'FS_STALE_VERSION',
  },
  {
    say: 'The refusal showed the formatter\'s change and counts as a read: the same edit now applies to the current text.',
    call: { name: 'edit', arguments: { file_path: 'notes.md', old_string: '- eggs', new_string: '- eggs\n- bread' } },
    expect: 'ok',
  },
  {
    say: 'Someone deletes notes.md.',
    disk: async (dir) => {
      await rm(join(dir, 'notes.md'))
      return 'rm notes.md'
    },
  },
  {
    say: 'The model rewrites the file it last saw: a version-guarded write never recreates a deleted file.',
    call: { name: 'write', arguments: { file_path: 'notes.md', content: '# Shopping\n- oat milk\n' } },
    expect: 'FS_STALE_VERSION',
  },
  {
    say: 'The refusal counts as finding the file absent: writing again is a guarded create, which would not clobber a file that reappeared.',
    call: { name: 'write', arguments: { file_path: 'notes.md', content: '# Shopping\n- oat milk\n' } },
    expect: 'ok',
  },
  {
    say: 'The model writes settings.json, which it never read.',
    call: { name: 'write', arguments: { file_path: 'settings.json', content: '{}\n' } },
    expect: 'FS_NOT_OBSERVED',
  },
  {
    say: 'Nothing was overwritten.',
    disk: async (dir) => `cat settings.json: ${(await readFile(join(dir, 'settings.json'), 'utf8')).trim()}`,
  },
]

/** The bytes the session must leave behind, checked after the last step. */
export async function finalState(dir: string): Promise<{ ok: boolean; detail: string }> {
  const notes = await readFile(join(dir, 'notes.md'), 'utf8')
  const settings = await readFile(join(dir, 'settings.json'), 'utf8')
  const ok = notes === '# Shopping\n- oat milk\n' && settings === '{ "theme": "dark" }\n'
  return { ok, detail: ok ? 'notes.md recreated, settings.json untouched' : `unexpected files: ${JSON.stringify({ notes, settings })}` }
}
