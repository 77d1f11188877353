import { execFileSync } from 'node:child_process'
import { cpus, freemem, loadavg, release, totalmem, type } from 'node:os'

export interface MachineInfo {
  cpu: string
  cores: number
  memory: string
  kernel: string
  node: string
  /** Filesystem type and device of the scratch directory: fsync cost depends on it. */
  scratchFs: string
}

function run(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return 'unknown'
  }
}

export function machineInfo(scratch: string): MachineInfo {
  const list = cpus()
  const df = run('df', ['--output=source,fstype', scratch]).split('\n').at(-1)?.trim().split(/\s+/) ?? []
  return {
    cpu: `${list[0]?.model ?? 'unknown'}`,
    cores: list.length,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB total, ${(freemem() / 1024 ** 3).toFixed(1)} GiB free at start`,
    kernel: `${type()} ${release()}`,
    node: process.version,
    scratchFs: df.length === 2 ? `${df[1]} on ${df[0]}` : 'unknown',
  }
}

/** The 1, 5 and 15 minute load averages, for the record: other work on the box inflates figures. */
export function loadAverage(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' / ')
}
