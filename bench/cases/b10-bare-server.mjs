// The floor of B10: a bare Node process that answers `initialize` and `tools/list` itself, with no
// import beyond what `node` starts with. Nothing an MCP server does can be faster than this.
let buffered = ''
process.stdin.setEncoding('utf8').on('data', (text) => {
  buffered += text
  for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
    const message = JSON.parse(buffered.slice(0, newline))
    buffered = buffered.slice(newline + 1)
    const answer = (result) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`)
    if (message.method === 'initialize') {
      answer({ protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '0.0.0' } })
    } else if (message.method === 'tools/list') {
      answer({ tools: [] })
    }
  }
})
