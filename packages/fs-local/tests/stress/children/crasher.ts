// A writer that is SIGKILLed by the crash-safety spec: `node crasher.mjs <dir>`.
// It advances three files through their generations (an unguarded write, a version-guarded edit,
// a version-guarded replace in a deeper directory) concurrently and forever, acknowledging each
// committed generation on stdout as `<target> <generation>`.
import { LocalDisk } from '../../../src/local-disk'
import { CRASH_TARGETS, type CrashTarget, contentOf, generationOf, header } from './contents'

const dir = process.argv[2]!
const disk = new LocalDisk({ cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })

async function advance(target: CrashTarget): Promise<never> {
  const resolved = await disk.resolve(target)
  for (;;) {
    const text = await disk.readText(resolved)
    const current = generationOf(text)!
    const next = current + 1
    if (target === 'w/written.txt') {
      await disk.writeText(resolved, contentOf(target, next))
    } else if (target === 'w/edited.txt') {
      const version = (await disk.stat(resolved))!.version
      await disk.editText(resolved, { oldString: header(current), newString: header(next), replaceAll: false }, { expected: { version } })
    } else {
      const version = (await disk.stat(resolved))!.version
      await disk.writeText(resolved, contentOf(target, next), { expected: { kind: 'replaceIfVersion', version } })
    }
    process.stdout.write(`${target} ${next}\n`)
  }
}

process.stdout.write('ready\n')
for (const target of CRASH_TARGETS) {
  advance(target).catch((error: { code?: string; message?: string }) => {
    // Nothing else writes these files: any failure is a bug the parent must see.
    process.stdout.write(`error ${target} ${error.code ?? ''} ${error.message ?? String(error)}\n`)
    process.exit(3)
  })
}
