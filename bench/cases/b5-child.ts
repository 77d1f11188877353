// Child process of B5: holds a warmed-up stack and runs one operation kind on command, so that
// strace attached from outside sees the operations and not module loading or startup.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { atomicWrite } from '../harness/baselines'
import { expectOk, toolStack } from '../harness/tool-stack'
import { textOfSize } from '../inputs/text'

const [dir, sizeArg, repeatArg] = process.argv.slice(2)
const bytes = Number(sizeArg)
const repeat = Number(repeatArg)
const contents = [textOfSize(bytes, 1), textOfSize(bytes, 2)]
const stack = await toolStack(dir!, { policy: true })
let serial = 0

await writeFile(join(dir!, 'read.txt'), contents[0]!)
await writeFile(join(dir!, 'edit.txt'), `${contents[0]!}const marker = 'even'\n`)
await writeFile(join(dir!, 'replace.txt'), contents[0]!)
expectOk(await stack.call('read', { file_path: 'edit.txt', limit: 1 }), 'read')
expectOk(await stack.call('read', { file_path: 'replace.txt', limit: 1 }), 'read')
const marker = ["const marker = 'even'", "const marker = 'odd'"]

const operations: Record<string, (i: number) => Promise<unknown>> = {
  idle: async () => {},
  read: async () => expectOk(await stack.call('read', { file_path: 'read.txt' }), 'read'),
  create: async () => expectOk(await stack.call('write', { file_path: `create-${serial++}.txt`, content: contents[0]! }), 'write'),
  replace: async (i) => expectOk(await stack.call('write', { file_path: 'replace.txt', content: contents[(i + 1) % 2]! }), 'write'),
  edit: async (i) => expectOk(await stack.call('edit', { file_path: 'edit.txt', old_string: marker[i % 2]!, new_string: marker[(i + 1) % 2]! }), 'edit'),
  'wfa-create': async () => atomicWrite(join(dir!, `wfa-create-${serial++}.txt`), contents[0]!),
  'wfa-replace': async (i) => atomicWrite(join(dir!, 'wfa-replace.txt'), contents[(i + 1) % 2]!),
}

// One warm-up run of each operation: lazy imports, first-time caches and JIT stay out of the counts.
for (const [, op] of Object.entries(operations)) {
  // Two runs (0 then 1) leave flip-flopping files (replace, edit) as they started.
  await op(0)
  await op(1)
}

process.stdout.write('ready\n')
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'exit') break
  const op = operations[line]
  if (!op) throw new Error(`unknown operation ${line}`)
  for (let i = 0; i < repeat; i++) await op(i)
  process.stdout.write('done\n')
}
await stack.dispose()
process.exit(0)
