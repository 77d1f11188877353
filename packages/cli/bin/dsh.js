#!/usr/bin/env node
import { openFront } from '../lib/early.js'

const argv = process.argv.slice(2)
// Answers the client's initialize and tools/list while the rest loads (dsh start only).
const front = openFront(argv)
const { main } = await import('../lib/cli.js')
// Exit explicitly: a plugin may hold a handle (socket, timer) open after the config is disposed.
process.exit(await main(argv, { front }))
