import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, relative } from 'node:path'
import type { SetupOptions } from '../arguments'
import { CLIENT_CONFIGS } from './clients'
import { serverCommand } from './command'
import type { Edit } from './files'

/**
 * `dsh setup <client>`: writes the client's config so it starts (or reaches) dsh and runs its tools
 * without a prompt, headless and interactive alike. Each file is read, changed only where the dsh
 * entry goes, and written only when that changes something: a second run reports "unchanged".
 * With --dry-run nothing is written; the new text of every file that would change is printed.
 */
export async function setup(options: SetupOptions, out: (text: string) => void = (text) => process.stdout.write(text), cwd = process.cwd()): Promise<number> {
  const place = { cwd, home: homedir(), env: process.env, command: serverCommand(options.configFile) }
  const client = CLIENT_CONFIGS[options.client].setup(options, place)
  const shown = (file: string) => file.startsWith(`${cwd}/`) ? relative(cwd, file) : file
  const planned: Change[] = []
  for (const edit of client.edits) {
    const change = await plan(edit)
    if (change === 'refused') return 1
    if (change === undefined) out(`unchanged ${shown(edit.file)} (${edit.what})\n`)
    else planned.push(change)
  }
  for (const change of planned) {
    if (options.dryRun) {
      out(`would ${change.created ? 'create' : 'update'} ${shown(change.file)} (${change.what}):\n${change.text.replace(/\n$/, '').replace(/^/gm, '  ')}\n`)
      continue
    }
    await replaceFile(change)
    out(`${change.created ? 'created' : 'updated'} ${shown(change.file)} (${change.what})\n`)
  }
  if (options.transport === 'http') {
    out(`The token comes from DSH_MCP_TOKEN in the client's environment; start dsh with the same one: DSH_MCP_TOKEN=... dsh start --config cordis.http.yml\n`)
  }
  for (const note of client.notes) out(`${note}\n`)
  if (options.dryRun && planned.length > 0) out('dry run: nothing was written\n')
  return 0
}

interface Change {
  file: string
  text: string
  what: string
  created: boolean
}

/**
 * The change one edit makes to its file: undefined when it changes nothing, `refused` when the
 * edit cannot apply (said on stderr; nothing is written then, not even the other files).
 */
async function plan(edit: Edit): Promise<Change | undefined | 'refused'> {
  const before = await readFile(edit.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  let after: string
  try {
    after = edit.apply(before)
  } catch (error) {
    process.stderr.write(`dsh setup: ${(error as Error).message}\nNothing was written.\n`)
    return 'refused'
  }
  return after === before ? undefined : { file: edit.file, text: after, what: edit.what, created: before === undefined }
}

async function replaceFile(change: Change): Promise<void> {
  await mkdir(dirname(change.file), { recursive: true })
  // Replaced in one rename: a client reading the file never sees half of it.
  const staged = `${change.file}.dsh-${process.pid}.tmp`
  await writeFile(staged, change.text)
  // A config may hold secrets of its own: the replacement keeps the file's mode.
  const mode = change.created ? undefined : (await stat(change.file)).mode & 0o7777
  if (mode !== undefined) await chmod(staged, mode)
  await rename(staged, change.file)
}
