import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface MessagesRequest {
  /** The tools offered by name. */
  tools: string[]
  /** Whether dsh's tool names appear anywhere in the request (Claude Code lists deferred tools by name). */
  mentionsDsh: boolean
  /** The request as sent, for a test that looks for what a tool's output became. */
  body: string
}

/**
 * A scripted Anthropic Messages API on loopback, streaming the events Claude Code reads. Claude
 * Code defers MCP tools behind its ToolSearch tool: the model first loads `tool` with `select:`,
 * then calls it with `args`, then finishes. Every request is recorded.
 */
export async function fakeMessages(args: Record<string, unknown>, tool = 'mcp__dsh__write'): Promise<{ url: string; requests: MessagesRequest[]; close(): Promise<void> }> {
  const requests: MessagesRequest[] = []
  let count = 0
  const server: Server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (text: string) => { body += text })
    request.on('end', () => {
      if (!request.url?.startsWith('/v1/messages') || request.url.includes('count_tokens')) {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ input_tokens: 1 }))
        return
      }
      const parsed = JSON.parse(body) as { tools?: Array<{ name?: string }>; messages?: unknown; model?: string; stream?: boolean }
      const tools = (parsed.tools ?? []).map((tool) => String(tool.name))
      requests.push({ tools, mentionsDsh: body.includes(tool), body })
      const called = JSON.stringify(parsed.messages ?? []).includes(`"name":"${tool}"`)
      const offered = tools.includes(tool)
      const load = !offered && tools.includes('ToolSearch') && body.includes(tool) && !body.includes(`select:${tool}`)
      const use = load ? { name: 'ToolSearch', input: { query: `select:${tool}`, max_results: 1 } } : offered && !called ? { name: tool, input: args } : undefined
      const id = `msg_${++count}`
      const usage = { input_tokens: 1, output_tokens: 1 }
      const text = called ? 'done' : 'dsh offered no tools'
      if (!parsed.stream) {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({
          id, type: 'message', role: 'assistant', model: parsed.model, stop_sequence: null, usage,
          content: use ? [{ type: 'tool_use', id: `toolu_${count}`, ...use }] : [{ type: 'text', text }],
          stop_reason: use ? 'tool_use' : 'end_turn',
        }))
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      const send = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
      send('message_start', { message: { id, type: 'message', role: 'assistant', model: parsed.model, content: [], stop_reason: null, stop_sequence: null, usage } })
      if (use) {
        send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${count}`, name: use.name, input: {} } })
        send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(use.input) } })
      } else {
        send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
        send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })
      }
      send('content_block_stop', { index: 0 })
      send('message_delta', { delta: { stop_reason: use ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } })
      send('message_stop', {})
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
