// Holds the publication lock of one target: `node lock-holder.mjs <target>`. Prints `held`, waits
// for a line on stdin, releases, prints `released`. The namespaces spec runs it in another PID namespace.
import { createInterface } from 'node:readline'
import { dirname } from 'node:path'
import { acquirePublishLock } from '../../../src/publish-lock'
import { makeStaging, removeStaging } from '../../../src/staging'

const target = process.argv[2]!
const lines = createInterface({ input: process.stdin })
const staging = await makeStaging(dirname(target))
const release = await acquirePublishLock(target, target, staging.live?.path)
process.stdout.write('held\n')
await new Promise((resolve) => lines.once('line', resolve))
await release()
await removeStaging(staging)
process.stdout.write('released\n')
lines.close()
