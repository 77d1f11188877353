import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ERROR_META_KEY } from '../src/index'
import { DSH_BIN } from '../../cli/tests/dsh-process'

// Spawning `dsh` is the CLI tests' helper; only what an MCP client adds on top lives here.
export { requireBuild, startDsh, tempDir } from '../../cli/tests/dsh-process'

/** `dsh start` spawned by the official SDK client over stdio, as an MCP host would run it. */
export async function stdioClient(cwd: string, args: string[] = []): Promise<{ client: Client; stderr: () => string; errors: Error[] }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, 'start', ...args], cwd, stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  const client = new Client({ name: 'dsh-e2e', version: '0.0.0' })
  const errors: Error[] = []
  client.onerror = (error) => errors.push(error)
  await client.connect(transport)
  return { client, stderr: () => stderr, errors }
}

export interface Outcome {
  ok: boolean
  code?: string
  text: string
}

/** A tools/call reduced to what the assertions need: success, the error code, the text. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome> {
  const result = await client.callTool({ name, arguments: args })
  const text = (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n')
  const code = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code
  return { ok: result.isError !== true, ...(code === undefined ? {} : { code }), text }
}
