// A long-lived racer for the races spec: `node racer.mjs <dir> <id>`. Each stdin line is one
// command `{ round, op, path, content, version?, at }`; the racer waits until the wall-clock
// instant `at` (so all racers start together) and answers `{ round, id, ok, code? }` on stdout.
import type { FsVersion } from '@deepseek-ai/dsh-fs'
import { createInterface } from 'node:readline'
import { LocalDisk } from '../../../src/local-disk'

const [dir, id] = process.argv.slice(2) as [string, string]
// Each racer is its own process with its own provider: no in-process lock is shared.
const disk = new LocalDisk({ cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })

interface Command {
  round: number
  op: 'create' | 'replace' | 'edit'
  path: string
  content: string
  version?: FsVersion
  at: number
}

async function run(command: Command): Promise<void> {
  const target = await disk.resolve(command.path)
  // Sleep most of the way, then spin the last few milliseconds for a tight start.
  const wait = command.at - Date.now() - 5
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  while (Date.now() < command.at);
  try {
    if (command.op === 'create') await disk.writeText(target, command.content, { expected: { kind: 'createIfAbsent' } })
    else if (command.op === 'replace') await disk.writeText(target, command.content, { expected: { kind: 'replaceIfVersion', version: command.version! } })
    else await disk.editText(target, { oldString: 'value = 0', newString: command.content, replaceAll: false }, { expected: { version: command.version! } })
    process.stdout.write(`${JSON.stringify({ round: command.round, id: Number(id), ok: true })}\n`)
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ round: command.round, id: Number(id), ok: false, code: (error as { code?: string }).code ?? String(error) })}\n`)
  }
}

createInterface({ input: process.stdin }).on('line', (line) => void run(JSON.parse(line) as Command))
process.stdout.write('ready\n')
