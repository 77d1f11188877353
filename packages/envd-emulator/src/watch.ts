import { watch } from 'node:fs'
import { lstat, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { RpcError, type ServerStream } from './connect.js'
import { entryInfo, type IdNames } from './entry.js'
import { errnoError, resolveSandboxPath } from './paths.js'
import type { StreamCall } from './process-service.js'

interface WatchDirRequest { path?: string; recursive?: boolean; includeEntry?: boolean }

/**
 * `Filesystem/WatchDir` on top of `fs.watch`: a `start` event, then one `filesystem` event per
 * change, named relative to the watched directory. inotify's rename pairs are reported as
 * create/remove by checking whether the name still exists — close to envd, not identical.
 */
export async function watchDir(home: string, names: IdNames, req: WatchDirRequest, stream: ServerStream, call: StreamCall): Promise<void> {
  const dir = resolveSandboxPath(req.path ?? '', home)
  const st = await stat(dir).catch((error) => { throw errnoError(error, `path not found: ${dir}`) })
  if (!st.isDirectory()) throw new RpcError('invalid_argument', `path is not a directory: ${dir}`)
  const watcher = watch(dir, { recursive: req.recursive === true })
  stream.send({ start: {} })
  const timers: NodeJS.Timeout[] = []
  await new Promise<void>((resolve) => {
    const stop = (error?: RpcError) => {
      watcher.close()
      for (const timer of timers) clearTimeout(timer)
      stream.end(error)
      resolve()
    }
    stream.onClose(() => stop())
    watcher.on('error', (error) => stop(new RpcError('internal', `watch failed: ${error.message}`)))
    watcher.on('change', (kind, name) => {
      const relative = String(name)
      const full = join(dir, relative)
      void (async () => {
        const exists = await lstat(full).then(() => true, () => false)
        const type = kind === 'change' ? 'EVENT_TYPE_WRITE' : exists ? 'EVENT_TYPE_CREATE' : 'EVENT_TYPE_REMOVE'
        const entry = req.includeEntry && exists ? await entryInfo(full, names).catch(() => undefined) : undefined
        stream.send({ filesystem: { name: relative, type, ...(entry ? { entry } : {}) } })
      })()
    })
    if (call.deadlineMs) timers.push(setTimeout(() => stop(new RpcError('deadline_exceeded', 'context deadline exceeded')), call.deadlineMs))
    if (call.keepaliveSeconds) timers.push(setInterval(() => stream.send({ keepalive: {} }), call.keepaliveSeconds * 1000))
  })
}
