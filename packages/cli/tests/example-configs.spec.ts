import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// The example configs of docs/examples are the shipped cordis.yml with one entry changed each:
// every other entry must read exactly as in the shipped config, or the same tool behaves
// differently over HTTP or on E2B (a missing staleRefusalObserves did, once).

const read = (path: string) => readFile(fileURLToPath(new URL(path, import.meta.url)), 'utf8')

/** The config's entries by id, each as its text (comment lines dropped). */
function entries(yaml: string): Map<string, string> {
  const body = yaml.split('\n').filter((line) => !/^\s*#/.test(line)).join('\n')
  return new Map(body.split(/^(?=- id: )/m).filter((part) => part.startsWith('- id: ')).map((part) => [/^- id: (\S+)/.exec(part)![1]!, part.trimEnd()]))
}

const EXAMPLES = [
  { file: '../../../docs/examples/cordis.http.yml', differs: 'mcp' },
  { file: '../../../docs/examples/cordis.e2b.yml', differs: 'fs' },
]

describe('docs/examples', () => {
  for (const { file, differs } of EXAMPLES) {
    it(`${file.replace('../../../', '')} is the shipped cordis.yml but for its ${differs} entry`, async () => {
      const shipped = entries(await read('../cordis.yml'))
      const example = entries(await read(file))
      expect([...example.keys()]).toEqual([...shipped.keys()])
      for (const [id, text] of shipped) {
        if (id !== differs) expect(example.get(id), `entry ${id}`).toBe(text)
      }
      expect(example.get(differs)).not.toBe(shipped.get(differs))
    })
  }
})
