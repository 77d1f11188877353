#!/usr/bin/env node
import { main } from '../lib/cli.js'

// Exit explicitly: a plugin may hold a handle (socket, timer) open after the config is disposed.
process.exit(await main(process.argv.slice(2)))
