import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'

/** Calls per label: a system call name, or `name (event loop)` for I/O on eventfds, pipes and sockets. */
export type SyscallCounts = Record<string, number>

/** Runtime machinery rather than file-system work: thread-pool handoff, event loop, GC, signals. */
const RUNTIME = new Set(['futex', 'epoll_pwait', 'epoll_wait', 'epoll_ctl', 'mmap', 'munmap', 'mprotect', 'madvise', 'brk',
  'getpid', 'gettid', 'rt_sigaction', 'rt_sigprocmask', 'rt_sigreturn', 'clock_gettime', 'sched_yield', 'getrusage'])

export function isRuntimeLabel(label: string): boolean {
  return RUNTIME.has(label) || label.endsWith('(event loop)')
}

/**
 * Counts the calls of an `strace -f -y` trace. A call split across threads ("<unfinished …>" then
 * "<… resumed>") is counted once, at its start. With `-y`, a descriptor argument carries what it
 * names: reads and writes on eventfds, pipes and sockets are libuv waking its loop, not file I/O.
 */
export function countTrace(text: string): SyscallCounts {
  const counts: SyscallCounts = {}
  for (const line of text.split('\n')) {
    const match = /^(?:\[pid\s+)?\d+\]?\s+([a-z_0-9]+)\((.*)$/.exec(line)
    if (!match) continue
    const name = match[1]!
    const first = match[2]!.split(/[,)]/, 1)[0]!
    const loop = /^(p?read|p?write)(64)?$/.test(name) && /^\d+<(anon_inode:|pipe:|socket:)/.test(first)
    const label = loop ? `${name} (event loop)` : name
    counts[label] = (counts[label] ?? 0) + 1
  }
  return counts
}

/**
 * Attaches `strace -f -y` to every thread of a running process (libuv's pool threads do the file
 * I/O), runs `during`, then detaches and returns the counts. The attach is confirmed from strace's
 * own "attached" lines before `during` starts, so no call is missed at the front.
 */
export async function straceDuring(pid: number, outFile: string, during: () => Promise<void>): Promise<SyscallCounts> {
  const strace: ChildProcess = spawn('strace', ['-f', '-y', '-p', String(pid), '-o', outFile], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  await new Promise<void>((ready, fail) => {
    strace.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      if (stderr.includes('attached')) ready()
    })
    strace.once('exit', (code) => fail(new Error(`strace exited (${code}) before attaching: ${stderr}`)))
  })
  // strace reports each thread as it attaches; give the rest of the threads a moment.
  await new Promise((r) => setTimeout(r, 300))
  await during()
  const exited = once(strace, 'exit')
  strace.kill('SIGINT')
  await exited
  return countTrace(await readFile(outFile, 'utf8'))
}
