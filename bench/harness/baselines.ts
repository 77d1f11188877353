import { constants } from 'node:fs'
import { open, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import writeFileAtomic from 'write-file-atomic'

/** write-file-atomic with its default `fsync: true`: temp file, write, fsync, rename (no directory fsync). */
export function atomicWrite(path: string, content: string): Promise<void> {
  return writeFileAtomic(path, content, { fsync: true })
}

/**
 * write-file-atomic followed by an fsync of the directory: the cheapest atomic write that is also
 * durable across a crash right after the rename. It is the floor for what dsh promises.
 */
export async function atomicWriteDirSync(path: string, content: string): Promise<void> {
  await atomicWrite(path, content)
  const dir = await open(dirname(path), constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    await dir.sync()
  } finally {
    await dir.close()
  }
}

/** The plain way: truncate in place, write, fsync the file. Not atomic, no directory fsync. */
export async function writeFileFsync(path: string, content: string): Promise<void> {
  const handle = await open(path, 'w')
  try {
    await handle.writeFile(content)
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** What an edit costs done by hand: read, literal replace of one occurrence, atomic durable write. */
export async function editByHand(path: string, oldString: string, newString: string): Promise<void> {
  const text = await readFile(path, 'utf8')
  const at = text.indexOf(oldString)
  if (at < 0 || text.indexOf(oldString, at + 1) >= 0) throw new Error('baseline edit: expected exactly one match')
  await atomicWrite(path, text.slice(0, at) + newString + text.slice(at + oldString.length))
}
