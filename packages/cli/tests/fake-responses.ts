import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ModelRequest {
  /** The tools offered, `namespace/name` for those Codex groups per MCP server. */
  tools: string[]
  /** Whether the request carries the output of a tool call (the second turn). */
  answered: boolean
  /** The request as sent, for a test that looks for what a tool's output became. */
  body: string
}

/**
 * A scripted OpenAI Responses API on loopback, streaming the events Codex and opencode (through the
 * AI SDK) read: to a request that offers `tool` and carries no tool output yet it answers with a
 * call of that tool with `args`, to any other with a final message. `tool` is `namespace/name` for
 * a tool Codex groups under its MCP server (`mcp__dsh/write`), the plain name otherwise
 * (`dsh_write`). Every request is recorded, so a test sees what the model was offered and shown.
 */
export async function fakeResponses(args: Record<string, unknown>, tool = 'mcp__dsh/write'): Promise<{ url: string; requests: ModelRequest[]; close(): Promise<void> }> {
  const requests: ModelRequest[] = []
  const slash = tool.indexOf('/')
  const call = slash < 0 ? { name: tool } : { namespace: tool.slice(0, slash), name: tool.slice(slash + 1) }
  let count = 0
  const server: Server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (text: string) => { body += text })
    request.on('end', () => {
      const parsed = JSON.parse(body) as { tools?: Array<Record<string, any>>; input?: unknown; model?: string }
      const tools = (parsed.tools ?? []).flatMap((offered) => offered.type === 'namespace'
        ? (offered.tools as Array<{ name: string }>).map((inner) => `${offered.name}/${inner.name}`)
        : [String(offered.name ?? offered.type)])
      const answered = JSON.stringify(parsed.input ?? []).includes('function_call_output')
      requests.push({ tools, answered, body })
      const id = `resp_${++count}`
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      const send = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
      send('response.created', { response: { id, created_at: 1, model: parsed.model } })
      const item = !answered && tools.includes(tool)
        ? { type: 'function_call', id: `fc_${count}`, ...call, arguments: JSON.stringify(args), call_id: `call_${count}`, status: 'completed' }
        : { type: 'message', id: `msg_${count}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: tools.includes(tool) ? 'done' : 'dsh offered no tools', annotations: [] }] }
      send('response.output_item.added', { output_index: 0, item: item.type === 'message' ? { ...item, content: [] } : { ...item, arguments: '' } })
      if ('arguments' in item) send('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: item.arguments })
      else send('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: item.content[0]!.text })
      send('response.output_item.done', { output_index: 0, item })
      const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 }
      send('response.completed', { response: { id, usage, status: 'completed' } })
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
