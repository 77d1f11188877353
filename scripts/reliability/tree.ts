import { lstat, readdir, readFile, readlink } from 'node:fs/promises'

/**
 * Every entry under `dir` with what it holds: a file's bytes (as a hex digest-free string so a
 * difference shows), a link's target, a directory marker, or the kind of a special file. Two equal
 * snapshots mean nothing was created, removed or changed, byte for byte. Files above `maxBytes`
 * are compared by size and mtime only (the 100 MB cases).
 */
export async function snapshotTree(dir: string, maxBytes = 8 * 1024 * 1024): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  // Names are handled as bytes: a name that is not UTF-8 must be snapshotted, not crash the walk.
  async function walk(at: Buffer, rel: string): Promise<void> {
    let names: Buffer[]
    try {
      names = await readdir(at, { encoding: 'buffer' })
    } catch {
      out.set(rel || '.', 'unlistable')
      return
    }
    for (const name of names.sort(Buffer.compare)) {
      const path = Buffer.concat([at, Buffer.from('/'), name])
      const shown = Buffer.from(name.toString('utf8')).equals(name) ? name.toString('utf8') : `0x${name.toString('hex')}`
      const key = rel ? `${rel}/${shown}` : shown
      const stats = await lstat(path)
      if (stats.isSymbolicLink()) out.set(key, `link -> ${await readlink(path, { encoding: 'buffer' })}`)
      else if (stats.isDirectory()) {
        out.set(key, `dir ${(stats.mode & 0o7777).toString(8)}`)
        await walk(path, key)
      } else if (stats.isFile()) {
        out.set(key, stats.size > maxBytes
          ? `file ${stats.size} bytes, mtime ${stats.mtimeMs}`
          : `file ${(stats.mode & 0o7777).toString(8)} ${(await readFile(path)).toString('base64')}`)
      } else out.set(key, `special ${stats.mode.toString(8)}`)
    }
  }
  await walk(Buffer.from(dir), '')
  return out
}

/** The entries that differ between two snapshots, for a readable assertion message. */
export function treeDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()])
  return [...names].sort().filter((name) => before.get(name) !== after.get(name)).map((name) => {
    const clip = (value: string | undefined) => (value === undefined ? 'absent' : value.length > 60 ? `${value.slice(0, 60)}…` : value)
    return `${name}: ${clip(before.get(name))} => ${clip(after.get(name))}`
  })
}
