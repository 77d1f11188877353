// A writer that stops midway: `node holder.mjs <dir> <path> <content> [staged|fsync|locked] [guarded]`.
// It stages the write and prints `staged` (before its fsync), or `fsync` from inside its fsync (a
// slow disk: the fsync does not return until released), or `locked` holding the publication lock;
// then it waits for a line on stdin, publishes, and prints
// the outcome as `{ ok, code? }`. `guarded`: a replace at the version it saw first. The namespaces
// spec runs it in another PID namespace and sweeps, writes and lists meanwhile.
import { createInterface } from 'node:readline'
import { beforeEachPublish, slowFsync, whileLocked } from '../../hooks'
import { LocalDisk } from '../../../src/local-disk'

const [dir, path, content, where = 'staged', guarded] = process.argv.slice(2) as [string, string, string, string?, string?]
const lines = createInterface({ input: process.stdin })
const go = new Promise<void>((resolve) => lines.once('line', () => resolve()))
const disk = new LocalDisk({ cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })
const pause = async () => {
  process.stdout.write(`${where}\n`)
  await go
}
if (where === 'locked') whileLocked(disk, pause)
else if (where === 'fsync') slowFsync(disk, pause)
else beforeEachPublish(disk, pause)

async function main(): Promise<void> {
  const target = await disk.resolve(path)
  const version = (await disk.stat(target))?.version
  await disk.writeText(target, content, { expected: guarded === 'guarded' && version !== undefined ? { kind: 'replaceIfVersion', version } : undefined })
}

main()
  .then(() => process.stdout.write(`${JSON.stringify({ ok: true })}\n`))
  .catch((error: { code?: string }) => process.stdout.write(`${JSON.stringify({ ok: false, code: error.code ?? String(error) })}\n`))
  .finally(() => lines.close())
