import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

// What the kernel knows about waiting for a CPU. On a shared machine a call that leaves the CPU
// (every round trip to another process does) may wait for one when it is woken; these readings let
// B13 tell that wait apart from the work of the call itself.

/**
 * Milliseconds the main thread of process `pid` has spent runnable but not running, waiting for a
 * CPU (the second field of Linux's `schedstat`); `undefined` where the kernel does not report it.
 * The kernel adds a wait when the thread gets its CPU: read from the thread itself, the figure is
 * complete up to the read; of another process, a wait still going on shows in a later reading.
 */
export function runQueueWaitMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')
    const ns = Number(fields[1])
    return Number.isFinite(ns) ? ns / 1e6 : undefined
  } catch {
    return undefined
  }
}

/** Microseconds during which at least one task on the machine waited for a CPU (Linux PSI, `some`), since boot. */
export function cpuPressureUs(): number | undefined {
  try {
    const some = /^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))
    return some === null ? undefined : Number(some[1])
  } catch {
    return undefined
  }
}

/** The process id of the redis-server listening on `port`, from its own INFO; `undefined` if it cannot be asked. */
export function redisPid(port: number): number | undefined {
  try {
    const info = execFileSync('redis-cli', ['-p', String(port), 'info', 'server'], { encoding: 'utf8', timeout: 5_000 })
    const pid = /^process_id:(\d+)/m.exec(info)
    return pid === null ? undefined : Number(pid[1])
  } catch {
    return undefined
  }
}
