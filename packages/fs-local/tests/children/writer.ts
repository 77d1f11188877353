// A separate writer process: `node writer.mjs <op> <cwd> <path> [content] [count]`.
import { LocalDisk } from '../../src/local-disk'

const [op, cwd, path, content = '', count = '1'] = process.argv.slice(2) as [string, string, string, string?, string?]
const disk = new LocalDisk({ cwd, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })

async function main(): Promise<void> {
  const target = await disk.resolve(path)
  if (op === 'create') {
    // Wait for the parent's go signal on stdin so every racer starts at once.
    await new Promise((resolve) => process.stdin.once('data', resolve))
    const outcome = await disk.writeText(target, content, { expected: { kind: 'createIfAbsent' } })
    process.stdout.write(JSON.stringify({ ok: true, operation: outcome.operation }))
  } else if (op === 'loop') {
    // Rewrites the file forever with alternating large contents until killed.
    process.stdout.write('ready\n')
    for (let i = 0; i < Number(count) || Number(count) === 0; i++) {
      await disk.writeText(target, (i % 2 === 0 ? 'A' : 'B').repeat(Number(content)))
    }
  } else if (op === 'read') {
    process.stdout.write(JSON.stringify({ ok: true, text: await disk.readText(target) }))
  } else if (op === 'write') {
    const outcome = await disk.writeText(target, content)
    process.stdout.write(JSON.stringify({ ok: true, operation: outcome.operation }))
  }
}

main().catch((error: { code?: string }) => {
  process.stdout.write(JSON.stringify({ ok: false, code: error.code ?? String(error) }))
})
