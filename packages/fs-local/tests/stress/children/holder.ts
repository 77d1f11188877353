// A writer that stops with its staging in place: `node holder.mjs <dir> <path> <content>`.
// It stages the write, prints `staged`, waits for a line on stdin, publishes, and prints the
// outcome as `{ ok, code? }`. The namespaces spec runs it in another PID namespace and sweeps meanwhile.
import { createInterface } from 'node:readline'
import { beforeEachPublish } from '../../../src/instrument'
import { LocalDisk } from '../../../src/local-disk'

const [dir, path, content] = process.argv.slice(2) as [string, string, string]
const lines = createInterface({ input: process.stdin })
const go = new Promise<void>((resolve) => lines.once('line', () => resolve()))
const disk = new LocalDisk({ cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })
beforeEachPublish(disk, async () => {
  process.stdout.write('staged\n')
  await go
})

disk.resolve(path)
  .then((target) => disk.writeText(target, content))
  .then(() => process.stdout.write(`${JSON.stringify({ ok: true })}\n`))
  .catch((error: { code?: string }) => process.stdout.write(`${JSON.stringify({ ok: false, code: error.code ?? String(error) })}\n`))
  .finally(() => lines.close())
