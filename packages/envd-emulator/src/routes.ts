import type { ServerStream } from './connect.js'
import type { FilesystemService } from './filesystem.js'
import type { ProcessService, StreamCall } from './process-service.js'
import { watchDir } from './watch.js'

/** Every Connect method the emulator serves, as `<package.Service>/<Method>`. */
export const SERVED_RPCS = [
  'filesystem.Filesystem/Stat',
  'filesystem.Filesystem/MakeDir',
  'filesystem.Filesystem/Move',
  'filesystem.Filesystem/ListDir',
  'filesystem.Filesystem/Remove',
  'filesystem.Filesystem/WatchDir',
  'process.Process/Start',
  'process.Process/Connect',
  'process.Process/List',
  'process.Process/SendSignal',
  'process.Process/SendInput',
  'process.Process/CloseStdin',
] as const

export type ServedRpc = (typeof SERVED_RPCS)[number]

// Request messages arrive as untyped JSON; each service method narrows its own shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Message = any

export type RpcRoute =
  | { kind: 'unary'; handle: (message: Message) => unknown }
  | { kind: 'stream'; handle: (message: Message, stream: ServerStream, call: StreamCall) => Promise<void> }

/** The route table: one entry per served method, checked against SERVED_RPCS by the compiler. */
export function rpcRoutes(home: string, fs: FilesystemService, processes: ProcessService): Record<ServedRpc, RpcRoute> {
  return {
    'filesystem.Filesystem/Stat': { kind: 'unary', handle: (m) => fs.stat(m) },
    'filesystem.Filesystem/MakeDir': { kind: 'unary', handle: (m) => fs.makeDir(m) },
    'filesystem.Filesystem/Move': { kind: 'unary', handle: (m) => fs.move(m) },
    'filesystem.Filesystem/ListDir': { kind: 'unary', handle: (m) => fs.listDir(m) },
    'filesystem.Filesystem/Remove': { kind: 'unary', handle: (m) => fs.remove(m) },
    'filesystem.Filesystem/WatchDir': { kind: 'stream', handle: (m, s, c) => watchDir(home, m, s, c) },
    'process.Process/Start': { kind: 'stream', handle: (m, s, c) => processes.start(m, s, c) },
    'process.Process/Connect': { kind: 'stream', handle: (m, s, c) => processes.connect(m, s, c) },
    'process.Process/List': { kind: 'unary', handle: () => processes.list() },
    'process.Process/SendSignal': { kind: 'unary', handle: (m) => processes.sendSignal(m) },
    'process.Process/SendInput': { kind: 'unary', handle: (m) => processes.sendInput(m) },
    'process.Process/CloseStdin': { kind: 'unary', handle: (m) => processes.closeStdin(m) },
  }
}
