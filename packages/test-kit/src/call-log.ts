import { FileSystem, type FsStreamFromOptions, type FsTarget } from '@deepseek-ai/dsh-fs'

export type CountedMethod = 'resolve' | 'stat' | 'readText' | 'streamText' | 'streamBytes' | 'streamBytesFrom' | 'listDir' | 'writeText' | 'editText' | 'editTextMany'

/** Every call the tools made to the provider, in order, and what happened to its streams. */
export class CallLog {
  calls: CountedMethod[] = []
  /** Chunks handed out by the streams, and streams their reader closed before the end. */
  chunks = 0
  closedEarly = 0
  #afterStat: (() => Promise<void>)[] = []

  count(method: CountedMethod): number {
    return this.calls.filter((call) => call === method).length
  }

  /** Forgets what was logged so far (calls and stream counts). */
  reset(): void {
    this.calls = []
    this.chunks = 0
    this.closedEarly = 0
  }

  /** Runs `hook` once, after the next `stat` returned and before its caller sees it: another process between a stat and what follows. */
  afterNextStat(hook: () => Promise<unknown>): void {
    this.#afterStat.push(async () => void await hook())
  }

  /** @internal */
  async statted(): Promise<void> {
    for (const hook of this.#afterStat.splice(0)) await hook()
  }
}

/** Logs the call when the stream is first pulled, then counts its chunks and whether it was closed early. */
async function* counted<T>(log: CallLog, method: CountedMethod, open: () => AsyncIterable<T>): AsyncGenerator<T> {
  log.calls.push(method)
  let finished = false
  try {
    for await (const chunk of open()) {
      log.chunks++
      yield chunk
    }
    finished = true
  } finally {
    if (!finished) log.closedEarly++
  }
}

type Method<K extends CountedMethod> = (...args: Parameters<FileSystem[K]>) => ReturnType<FileSystem[K]>

/** The provider methods the log counts, as methods (the contract declares them abstract, which `super` may not call). */
interface Counted {
  resolve(...args: Parameters<Method<'resolve'>>): ReturnType<Method<'resolve'>>
  stat(...args: Parameters<Method<'stat'>>): ReturnType<Method<'stat'>>
  readText(...args: Parameters<Method<'readText'>>): ReturnType<Method<'readText'>>
  streamText(...args: Parameters<Method<'streamText'>>): ReturnType<Method<'streamText'>>
  streamBytes(...args: Parameters<Method<'streamBytes'>>): ReturnType<Method<'streamBytes'>>
  streamBytesFrom(...args: Parameters<Method<'streamBytesFrom'>>): ReturnType<Method<'streamBytesFrom'>>
  listDir(...args: Parameters<Method<'listDir'>>): ReturnType<Method<'listDir'>>
  writeText(...args: Parameters<Method<'writeText'>>): ReturnType<Method<'writeText'>>
  editText(...args: Parameters<Method<'editText'>>): ReturnType<Method<'editText'>>
  editTextMany(...args: Parameters<FileSystem['editTextMany']>): ReturnType<FileSystem['editTextMany']>
  inspect(...args: Parameters<FileSystem['inspect']>): ReturnType<FileSystem['inspect']>
  resolveForMutation(...args: Parameters<FileSystem['resolveForMutation']>): ReturnType<FileSystem['resolveForMutation']>
  resolveForDiscovery(...args: Parameters<FileSystem['resolveForDiscovery']>): ReturnType<FileSystem['resolveForDiscovery']>
}

// A mixin's base takes whatever its provider's constructor takes.
type ProviderClass = new (...args: any[]) => Counted

/**
 * The real provider class `Base`, recording each call made to it in `log` (a stat budget is counted here).
 * With `composed`, the fused `inspect`, `resolveForMutation` and `resolveForDiscovery` give way to the contract's defaults
 * (resolve, stat, readText), so each step the tools cause is counted as the stat budget states it;
 * leave it off where the provider's own fused steps are what is measured (E2B request counts).
 */
export function countingProvider<T extends ProviderClass>(Base: T, log: CallLog, options: { composed?: boolean } = {}): T {
  const composed = options.composed === true
  class Counting extends Base {
    override inspect(...args: Parameters<FileSystem['inspect']>) {
      return composed ? FileSystem.prototype.inspect.apply(this, args) : super.inspect(...args)
    }
    override resolveForMutation(...args: Parameters<FileSystem['resolveForMutation']>) {
      return composed ? FileSystem.prototype.resolveForMutation.apply(this, args) : super.resolveForMutation(...args)
    }
    override resolveForDiscovery(...args: Parameters<FileSystem['resolveForDiscovery']>) {
      return composed ? FileSystem.prototype.resolveForDiscovery.apply(this, args) : super.resolveForDiscovery(...args)
    }
    override async stat(target: FsTarget, signal?: AbortSignal) {
      log.calls.push('stat')
      const info = await super.stat(target, signal)
      await log.statted()
      return info
    }
    override streamText(target: FsTarget, signal?: AbortSignal) {
      return counted(log, 'streamText', () => super.streamText(target, signal))
    }
    override streamBytes(target: FsTarget, signal?: AbortSignal) {
      return counted(log, 'streamBytes', () => super.streamBytes(target, signal))
    }
    override streamBytesFrom(target: FsTarget, start: number, opts?: FsStreamFromOptions) {
      return counted(log, 'streamBytesFrom', () => super.streamBytesFrom(target, start, opts))
    }
  }
  for (const method of PLAINLY_COUNTED) countCalls(Counting.prototype, method, log)
  return Counting
}

/** The methods counted by their call alone (no stat budget, no stream). */
const PLAINLY_COUNTED = ['resolve', 'readText', 'listDir', 'writeText', 'editText', 'editTextMany'] as const

/** `prototype[method]`, recording each call in `log` before it runs the method it overrides. */
function countCalls(prototype: Counted, method: typeof PLAINLY_COUNTED[number], log: CallLog): void {
  const inherited = prototype[method] as (...args: unknown[]) => unknown
  Object.defineProperty(prototype, method, {
    value(this: Counted, ...args: unknown[]): unknown {
      log.calls.push(method)
      return inherited.apply(this, args)
    },
    writable: true,
    configurable: true,
  })
}
