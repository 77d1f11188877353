import { declaredPng, minimalPdf } from '@deepseek-ai/dsh-test-kit'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { DSH_BIN, requireBuild, tempDir } from './dsh-process'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

describe('images and PDFs over MCP, from dsh start with the shipped config', () => {
  it('passes a read image through as an MCP image item and a PDF as text, unchanged', async () => {
    await using temp = await tempDir()
    // A whole 2×1 grey PNG: small enough to compare byte for byte.
    const png = Buffer.from(declaredPng(2, 1, 1))
    await writeFile(join(temp.dir, 'dot.png'), png)
    await writeFile(join(temp.dir, 'doc.pdf'), minimalPdf([['Quarterly report'], null]))
    const client = new Client({ name: 'media-over-mcp', version: '0.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, 'start'], cwd: temp.dir, stderr: 'ignore' }))
    try {
      const image = await client.callTool({ name: 'read', arguments: { file_path: 'dot.png' } })
      expect(image).toEqual({
        content: [
          { type: 'text', text: `${join(temp.dir, 'dot.png')}: PNG image, 2×1 pixels (${png.length} bytes), shown below as it is.` },
          { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
        ],
        isError: false,
      })
      const viewed = await client.callTool({ name: 'str_replace_editor', arguments: { command: 'view', path: 'dot.png' } })
      expect(viewed.content).toEqual(image.content)
      const pdf = await client.callTool({ name: 'read', arguments: { file_path: 'doc.pdf', pages: '1-2' } })
      expect(pdf.content).toEqual([{
        type: 'text',
        text: `${join(temp.dir, 'doc.pdf')}: PDF, 2 pages; the text of pages 1-2 follows.\n\n--- Page 1 ---\nQuarterly report\n\n`
          + '--- Page 2 ---\n(This page has no text layer: it is an image or drawing only, so it has no text to show.)',
      }])
      // The read was an observation: the image can now be replaced whole.
      expect((await client.callTool({ name: 'write', arguments: { file_path: 'dot.png', content: 'replaced\n' } })).isError).toBe(false)
    } finally {
      await client.close()
    }
  })
})
