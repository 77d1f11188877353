import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ModelRequest {
  /** The tools offered, `namespace/name` for those Codex groups per MCP server. */
  tools: string[]
  /** Whether the request carries the output of a tool call (the second turn). */
  answered: boolean
}

/**
 * A scripted OpenAI Responses API on loopback, streaming the events Codex reads: to a first request
 * that offers dsh's `write` it answers with a call of that tool (`call`), to any other with a final
 * message. Every request's tools are recorded, so a test sees what the model was offered.
 */
export async function fakeResponses(call: { file_path: string; content: string }): Promise<{ url: string; requests: ModelRequest[]; close(): Promise<void> }> {
  const requests: ModelRequest[] = []
  let count = 0
  const server: Server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (text: string) => { body += text })
    request.on('end', () => {
      const parsed = JSON.parse(body) as { tools?: Array<Record<string, any>>; input?: unknown }
      const tools = (parsed.tools ?? []).flatMap((tool) => tool.type === 'namespace'
        ? (tool.tools as Array<{ name: string }>).map((inner) => `${tool.name}/${inner.name}`)
        : [String(tool.name ?? tool.type)])
      const answered = JSON.stringify(parsed.input ?? []).includes('function_call_output')
      requests.push({ tools, answered })
      const id = `resp_${++count}`
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      const send = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
      send('response.created', { response: { id } })
      if (!answered && tools.includes('mcp__dsh/write')) {
        send('response.output_item.done', { item: { type: 'function_call', id: `fc_${count}`, namespace: 'mcp__dsh', name: 'write', arguments: JSON.stringify(call), call_id: `call_${count}` } })
      } else {
        const text = tools.includes('mcp__dsh/write') ? 'done' : 'dsh offered no tools'
        send('response.output_item.done', { item: { type: 'message', id: `msg_${count}`, role: 'assistant', content: [{ type: 'output_text', text }] } })
      }
      const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 }
      send('response.completed', { response: { id, usage } })
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
