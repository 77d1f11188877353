import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A scripted Gemini API on loopback (`generateContent`, and `streamGenerateContent` as SSE): to a
 * first request offering `tool` (dsh's write is `mcp_dsh_write`) it answers with a call of it with
 * `args`, then with a final text. Every request's function names are recorded, and its body.
 */
export async function fakeGemini(args: Record<string, unknown>, tool = 'mcp_dsh_write'): Promise<{ url: string; requests: string[][]; bodies: string[]; close(): Promise<void> }> {
  const requests: string[][] = []
  const bodies: string[] = []
  const server: Server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (text: string) => { body += text })
    request.on('end', () => {
      const parsed = (body === '' ? {} : JSON.parse(body)) as { tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>; contents?: unknown }
      const tools = (parsed.tools ?? []).flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name))
      requests.push(tools)
      bodies.push(body)
      const called = JSON.stringify(parsed.contents ?? []).includes('functionResponse')
      const part = tools.includes(tool) && !called ? { functionCall: { name: tool, args } } : { text: called ? 'done' : 'dsh offered no tools' }
      const chunk = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } }
      if (request.url?.includes('streamGenerateContent')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        response.end(`data: ${JSON.stringify(chunk)}\n\n`)
      } else {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify(request.url?.includes('countTokens') ? { totalTokens: 1 } : chunk))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, requests, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
