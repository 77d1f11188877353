// Holds the publication lock of one target: `node lock-holder.mjs <target>`. Prints `held`, waits
// for a line on stdin, releases, prints `released`. The namespaces spec runs it in another PID namespace.
import { createInterface } from 'node:readline'
import { basename, dirname } from 'node:path'
import { POOLED_CALLS } from '../../../src/calls'
import { acquirePublishLock } from '../../../src/publish-lock'

const target = process.argv[2]!
const lines = createInterface({ input: process.stdin })
const release = await acquirePublishLock(POOLED_CALLS, dirname(target), basename(target), target)
process.stdout.write('held\n')
await new Promise((resolve) => lines.once('line', resolve))
await release()
process.stdout.write('released\n')
lines.close()
