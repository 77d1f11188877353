import { lstat, mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import { RpcError } from './connect.js'
import { entryInfo, type EntryInfoJson, type IdNames } from './entry.js'
import { errnoError, resolveSandboxPath } from './paths.js'

/** Request shapes of `filesystem.Filesystem` in proto3 JSON (absent fields take defaults). */
interface PathRequest { path?: string }
interface MoveRequest { source?: string; destination?: string }
interface ListDirRequest { path?: string; depth?: number }

/**
 * The unary methods of `filesystem.Filesystem`, with envd's semantics: Stat describes with
 * lstat, MakeDir refuses an existing directory, Move creates the destination's parents, Remove
 * is `rm -rf` (a missing path succeeds) and ListDir walks without following symlinks.
 */
export class FilesystemService {
  constructor(private readonly home: string, private readonly names: IdNames) {}

  private path(raw: string | undefined): string {
    return resolveSandboxPath(raw ?? '', this.home)
  }

  async stat(req: PathRequest): Promise<{ entry: EntryInfoJson }> {
    const path = this.path(req.path)
    try {
      return { entry: await entryInfo(path, this.names) }
    } catch (error) {
      throw errnoError(error, `file not found: ${path}`)
    }
  }

  async makeDir(req: PathRequest): Promise<{ entry: Partial<EntryInfoJson> }> {
    const path = this.path(req.path)
    const existing = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw errnoError(error, 'error getting file info')
    })
    if (existing?.isDirectory()) throw new RpcError('already_exists', `directory already exists: ${path}`)
    if (existing) throw new RpcError('invalid_argument', `path already exists but it is not a directory: ${path}`)
    try {
      await mkdir(path, { recursive: true })
    } catch (error) {
      throw new RpcError('internal', `error creating directory: ${(error as Error).message}`)
    }
    return { entry: { name: basename(path), type: 'FILE_TYPE_DIRECTORY', path } }
  }

  async move(req: MoveRequest): Promise<{ entry: EntryInfoJson }> {
    const source = this.path(req.source)
    const destination = this.path(req.destination)
    try {
      await mkdir(dirname(destination), { recursive: true })
    } catch (error) {
      throw new RpcError('internal', `error creating destination directory: ${(error as Error).message}`)
    }
    try {
      await rename(source, destination)
    } catch (error) {
      throw errnoError(error, `error renaming ${source}`)
    }
    return this.stat({ path: destination })
  }

  async remove(req: PathRequest): Promise<Record<string, never>> {
    const path = this.path(req.path)
    try {
      await rm(path, { recursive: true, force: true })
    } catch (error) {
      throw new RpcError('internal', `error removing file or directory: ${(error as Error).message}`)
    }
    return {}
  }

  async listDir(req: ListDirRequest): Promise<{ entries: EntryInfoJson[] }> {
    const requested = this.path(req.path)
    const depth = req.depth && req.depth > 0 ? req.depth : 1
    let resolved: string
    try {
      resolved = await realpath(requested)
    } catch (error) {
      throw errnoError(error, `path not found: ${requested}`)
    }
    const st = await stat(resolved).catch((error) => { throw errnoError(error, 'directory not found') })
    if (!st.isDirectory()) throw new RpcError('invalid_argument', `path is not a directory: ${requested}`)
    const entries: EntryInfoJson[] = []
    try {
      await walk(resolved, { root: resolved, shownRoot: requested, depth, names: this.names }, entries)
    } catch (error) {
      throw new RpcError('internal', `error reading directory ${requested}: ${(error as Error).message}`)
    }
    return { entries }
  }
}

/** Depth-first, lexical order, never descending through a symlink (as Go's WalkDir). */
async function walk(dir: string, scope: { root: string; shownRoot: string; depth: number; names: IdNames }, out: EntryInfoJson[]): Promise<void> {
  const { root, shownRoot, depth } = scope
  const names = (await readdir(dir)).sort()
  for (const name of names) {
    const full = join(dir, name)
    // Entries are reported under the path the caller asked for, not the resolved one.
    const shown = join(shownRoot, relative(root, full))
    const info = await entryInfo(full, scope.names).catch(() => undefined)
    if (!info) continue // vanished between readdir and lstat
    out.push({ ...info, path: shown })
    const level = relative(root, full).split('/').length
    if (level < depth && (await lstat(full).catch(() => undefined))?.isDirectory()) await walk(full, scope, out)
  }
}
