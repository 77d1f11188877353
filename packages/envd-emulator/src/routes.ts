import type { ServerStream } from './connect.js'
import type { IdNames } from './entry.js'
import type { FilesystemService } from './filesystem.js'
import type { ProcessService, StreamCall } from './process-service.js'
import { watchDir } from './watch.js'

/**
 * Every Connect method the emulator serves, as `<package.Service>/<Method>`, with its kind
 * (unary, or server streaming). The drift test compares this list with the SDK's descriptors.
 */
export const SERVED_RPCS = {
  'filesystem.Filesystem/Stat': 'unary',
  'filesystem.Filesystem/MakeDir': 'unary',
  'filesystem.Filesystem/Move': 'unary',
  'filesystem.Filesystem/ListDir': 'unary',
  'filesystem.Filesystem/Remove': 'unary',
  'filesystem.Filesystem/WatchDir': 'stream',
  'process.Process/Start': 'stream',
  'process.Process/Connect': 'stream',
  'process.Process/List': 'unary',
  'process.Process/SendSignal': 'unary',
  'process.Process/SendInput': 'unary',
  'process.Process/CloseStdin': 'unary',
} as const

export type ServedRpc = keyof typeof SERVED_RPCS

// Request messages arrive as untyped JSON; each service method narrows its own shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Message = any

export type RpcRoute =
  | { kind: 'unary'; handle: (message: Message) => unknown }
  | { kind: 'stream'; handle: (message: Message, stream: ServerStream, call: StreamCall) => Promise<void> }

type RouteTable = { [K in ServedRpc]: Extract<RpcRoute, { kind: (typeof SERVED_RPCS)[K] }> }

/** The route table: one entry per served method, of the kind SERVED_RPCS declares (compiler-checked). */
export function rpcRoutes(home: string, names: IdNames, fs: FilesystemService, processes: ProcessService): RouteTable {
  return {
    'filesystem.Filesystem/Stat': { kind: 'unary', handle: (m) => fs.stat(m) },
    'filesystem.Filesystem/MakeDir': { kind: 'unary', handle: (m) => fs.makeDir(m) },
    'filesystem.Filesystem/Move': { kind: 'unary', handle: (m) => fs.move(m) },
    'filesystem.Filesystem/ListDir': { kind: 'unary', handle: (m) => fs.listDir(m) },
    'filesystem.Filesystem/Remove': { kind: 'unary', handle: (m) => fs.remove(m) },
    'filesystem.Filesystem/WatchDir': { kind: 'stream', handle: (m, s, c) => watchDir(home, names, m, s, c) },
    'process.Process/Start': { kind: 'stream', handle: (m, s, c) => processes.start(m, s, c) },
    'process.Process/Connect': { kind: 'stream', handle: (m, s, c) => processes.connect(m, s, c) },
    'process.Process/List': { kind: 'unary', handle: () => processes.list() },
    'process.Process/SendSignal': { kind: 'unary', handle: (m) => processes.sendSignal(m) },
    'process.Process/SendInput': { kind: 'unary', handle: (m) => processes.sendInput(m) },
    'process.Process/CloseStdin': { kind: 'unary', handle: (m) => processes.closeStdin(m) },
  }
}
