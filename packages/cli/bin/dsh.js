#!/usr/bin/env node
import { openFront } from '../lib/early.js'

const argv = process.argv.slice(2)
// Answers the client's initialize and tools/list while the rest loads (dsh start only).
const front = openFront(argv)
// Evaluating the bundle holds the thread for a while: let the client have its tool list first,
// which it asks for right after initialize. The wait is bounded, for clients that ask later.
if (front !== undefined) await Promise.race([front.listed, new Promise((resolve) => setTimeout(resolve, 200).unref())])
const { main } = await import('../lib/cli.js')
// Exit explicitly: a plugin may hold a handle (socket, timer) open after the config is disposed.
process.exit(await main(argv, { front }))
