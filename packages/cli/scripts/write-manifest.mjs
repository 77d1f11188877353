// Writes lib/manifest.json after the bundle is built: what a real `dsh start` of the shipped
// cordis.yml answers to `initialize` and `tools/list`, which the stdio front then answers while
// the plugins load (src/stdio-front.ts). Recorded from the running server, never written by hand,
// so it cannot drift from the tools; tests/manifest.spec.ts checks it against a fresh start.
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const pkg = fileURLToPath(new URL('..', import.meta.url))
const target = join(pkg, 'lib/manifest.json')
const config = join(pkg, 'cordis.yml')
// Without it the server answers alone, which is what is recorded here.
rmSync(target, { force: true })

const cwd = mkdtempSync(join(tmpdir(), 'dsh-manifest-'))
const child = spawn(process.execPath, [join(pkg, 'bin/dsh.js'), 'start'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
// dsh's log is shown only when the recording fails.
let log = ''
child.stderr.on('data', (chunk) => { log += chunk })
const answers = new Map()
let buffered = ''
const done = new Promise((resolve, reject) => {
  child.once('error', reject)
  child.once('exit', (code) => answers.size === 2 ? resolve() : reject(new Error(`dsh start exited with ${code} before answering:\n${log}`)))
  child.stdout.on('data', (chunk) => {
    buffered += chunk
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, newline))
      buffered = buffered.slice(newline + 1)
      if (message.error) reject(new Error(JSON.stringify(message.error)))
      answers.set(message.id, message.result)
      if (answers.size === 2) child.stdin.end()
    }
  })
})
const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
send({ id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'dsh-build', version: '0' } } })
send({ method: 'notifications/initialized' })
send({ id: 2, method: 'tools/list' })
try {
  await done
} finally {
  rmSync(cwd, { recursive: true, force: true })
}
const { capabilities, serverInfo, instructions } = answers.get(1)
writeFileSync(target, `${JSON.stringify({
  version: JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version,
  config: createHash('sha256').update(readFileSync(config)).digest('hex'),
  protocol: { latest: LATEST_PROTOCOL_VERSION, supported: SUPPORTED_PROTOCOL_VERSIONS },
  initialize: { capabilities, serverInfo, ...(instructions === undefined ? {} : { instructions }) },
  tools: answers.get(2).tools,
})}\n`)
process.stderr.write(`wrote ${target} (${answers.get(2).tools.length} tools)\n`)
