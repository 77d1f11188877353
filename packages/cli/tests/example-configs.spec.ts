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
  { file: '../../../docs/examples/cordis.http.yml', differs: ['mcp'] },
  { file: '../../../docs/examples/cordis.e2b.yml', differs: ['fs'] },
  { file: '../../../docs/examples/cordis.replica.yml', differs: ['policy', 'mcp'] },
]

describe('docs/examples', () => {
  for (const { file, differs } of EXAMPLES) {
    it(`${file.replace('../../../', '')} is the shipped cordis.yml but for its ${differs.join(' and ')} entries`, async () => {
      const shipped = entries(await read('../cordis.yml'))
      const example = entries(await read(file))
      expect([...example.keys()]).toEqual([...shipped.keys()])
      for (const [id, text] of shipped) {
        if (!differs.includes(id)) expect(example.get(id), `entry ${id}`).toBe(text)
      }
      for (const id of differs) expect(example.get(id), `entry ${id}`).not.toBe(shipped.get(id))
    })
  }
})

describe('docs/examples', () => {
  it('holds only files that a test above or a spec that boots them names', async () => {
    const { readdir } = await import('node:fs/promises')
    const files = await readdir(fileURLToPath(new URL('../../../docs/examples/', import.meta.url)))
    const tested = [...EXAMPLES.map(({ file }) => file.replace('../../../docs/examples/', '')), 'haproxy.cfg']
    expect(files.sort()).toEqual(tested.sort())
  })
})
