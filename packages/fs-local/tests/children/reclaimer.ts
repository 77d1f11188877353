// A fresh dsh process that does nothing but start: `node reclaimer.mjs <cwd>`. Its first LocalDisk
// reclaims, in the background, what crashed processes left; it prints how many staging directories
// that removed once done.
import { reclaimAfterCrashes } from '../../src/journal'
import { LocalDisk } from '../../src/local-disk'

new LocalDisk({ cwd: process.argv[2]!, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })
process.stdout.write(JSON.stringify({ removed: await reclaimAfterCrashes() }))
