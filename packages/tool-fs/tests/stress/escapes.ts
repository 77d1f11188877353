import { link, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export interface EscapeEnv {
  dir: string
  outside: string
}

export interface EscapeCall {
  name: 'read' | 'write' | 'edit'
  arguments: Record<string, unknown>
  /** The session's working directory, when the attempt plays with it. */
  cwd?: string
}

/**
 * One attempt to read or change bytes outside the containment root. `prepare` calls run first
 * (a read, so that the policy lets the write or edit reach the provider). `allowed` marks
 * attempts that are legitimately inside the root (a hard link is a name in the root): they may
 * succeed, but must still leave every byte outside untouched.
 */
export interface Escape {
  name: string
  setup?(env: EscapeEnv): Promise<void>
  prepare?: EscapeCall[]
  /** Runs after `prepare`: the outside world changing the tree between a read and the attempt. */
  between?(env: EscapeEnv): Promise<void>
  attempt(env: EscapeEnv): EscapeCall
  allowed?: boolean
}

const read = (file_path: string, cwd?: string): EscapeCall => ({ name: 'read', arguments: { file_path }, ...(cwd ? { cwd } : {}) })
const write = (file_path: string, content = 'escaped\n'): EscapeCall => ({ name: 'write', arguments: { file_path, content } })
const edit = (file_path: string): EscapeCall => ({ name: 'edit', arguments: { file_path, old_string: 'outside secret', new_string: 'pwned' } })

const fileLink = async (env: EscapeEnv) => symlink(join(env.outside, 'secret.txt'), join(env.dir, 'file-link'))
const dirLink = async (env: EscapeEnv) => symlink(env.outside, join(env.dir, 'dir-link'))
const hardLink = async (env: EscapeEnv) => link(join(env.outside, 'shared.txt'), join(env.dir, 'hard-link.txt'))

export const ESCAPES: Escape[] = [
  { name: 'a relative `..` read', attempt: () => read('../outside/secret.txt') },
  { name: 'a relative `..` overwrite', attempt: () => write('../outside/secret.txt') },
  { name: 'a relative `..` create', attempt: () => write('../outside/created.txt') },
  { name: 'a `..` hidden behind an inside directory, edited', setup: async (env) => void (await mkdir(join(env.dir, 'sub'))), attempt: () => edit('sub/../../outside/secret.txt') },
  { name: 'an absolute read', attempt: (env) => read(join(env.outside, 'secret.txt')) },
  { name: 'an absolute overwrite', attempt: (env) => write(join(env.outside, 'secret.txt')) },
  { name: 'an absolute path that climbs out of the root', attempt: (env) => read(`${env.dir}/../outside/secret.txt`) },
  { name: 'an absolute path with doubled slashes', attempt: (env) => write(`${env.outside}//./secret.txt`) },
  { name: 'a /proc/self/root spelling of an outside file', attempt: (env) => read(`/proc/self/root${env.outside}/secret.txt`) },
  { name: 'a symlinked file read', setup: fileLink, attempt: () => read('file-link') },
  { name: 'a symlinked file overwrite', setup: fileLink, attempt: () => write('file-link') },
  { name: 'a symlinked file edit', setup: fileLink, attempt: () => edit('file-link') },
  { name: 'a read through a symlinked directory', setup: dirLink, attempt: () => read('dir-link/secret.txt') },
  { name: 'a create through a symlinked directory', setup: dirLink, attempt: () => write('dir-link/created.txt') },
  { name: 'a create of new directories below a symlinked directory', setup: dirLink, attempt: () => write('dir-link/deep/er/created.txt') },
  {
    name: 'a chain of relative links that ends outside',
    setup: async (env) => {
      await symlink('../outside', join(env.dir, 'hop-2'))
      await symlink('hop-2', join(env.dir, 'hop-1'))
    },
    attempt: () => read('hop-1/secret.txt'),
  },
  { name: 'a dangling link to a file not yet created outside', setup: async (env) => symlink(join(env.outside, 'ghost.txt'), join(env.dir, 'ghost')), attempt: () => write('ghost') },
  { name: 'a session working directory that is a link to outside', setup: dirLink, attempt: (env) => read('secret.txt', join(env.dir, 'dir-link')) },
  { name: 'a session working directory outside the root', attempt: (env) => read('secret.txt', env.outside) },
  {
    name: 'an overwrite through a hard link (the inside name is replaced, the shared inode kept)', allowed: true, setup: hardLink,
    prepare: [read('hard-link.txt')], attempt: () => write('hard-link.txt', 'replaced inside\n'),
  },
  {
    name: 'an edit through a hard link (the inside name is replaced, the shared inode kept)', allowed: true, setup: hardLink,
    prepare: [read('hard-link.txt')], attempt: () => ({ name: 'edit', arguments: { file_path: 'hard-link.txt', old_string: 'shared', new_string: 'edited' } }),
  },
  {
    // Taken literally it is one name inside the root; read as the separators a model means, it leads
    // outside, so it is refused as outside the root and nothing is created under either reading.
    name: 'a backslash path that means a way out',
    attempt: () => write('..\\outside\\secret.txt'),
  },
  {
    name: 'an inside link re-pointed outside after it was read',
    setup: async (env) => {
      await writeFile(join(env.dir, 'real.txt'), 'inside\n')
      await symlink('real.txt', join(env.dir, 'alias'))
    },
    prepare: [read('alias')],
    between: async (env) => {
      await rm(join(env.dir, 'alias'))
      await symlink(join(env.outside, 'secret.txt'), join(env.dir, 'alias'))
    },
    attempt: () => write('alias', 'escaped\n'),
  },
]
