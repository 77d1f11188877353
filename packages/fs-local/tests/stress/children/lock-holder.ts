// Holds the staged replacement of one target, which is its publication lock: `node lock-holder.mjs
// <target>`. Prints `held`, waits for a line on stdin, lets go, prints `released`. The namespaces
// spec runs it in another PID namespace.
import { createInterface } from 'node:readline'
import { basename, dirname } from 'node:path'
import { POOLED_CALLS } from '../../../src/calls'
import { discard, makeStaged } from '../../../src/staging'

const target = process.argv[2]!
const lines = createInterface({ input: process.stdin })
const staged = await makeStaged(POOLED_CALLS, dirname(target), basename(target), 0o600, target)
process.stdout.write('held\n')
await new Promise((resolve) => lines.once('line', resolve))
await discard(POOLED_CALLS, staged)
process.stdout.write('released\n')
lines.close()
