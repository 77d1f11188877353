import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'

const packages = new URL('../../', import.meta.url).pathname
const sources = (name: string) => readdirSync(join(packages, name, 'src'))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
  .map((file) => ({ file: `${name}/src/${file}`, text: readFileSync(join(packages, name, 'src', file), 'utf8') }))

const FAMILIES = ['tool-fs', 'tool-str-replace-editor']

it('leaves the shared rules to dsh-tool-text: no family defines its own line count, snippet, window or closest text', () => {
  const own = FAMILIES.flatMap(sources).filter(({ text }) =>
    /function (countLines|snippetSpan|snippetLines|snippetAround|nearestRegion|closestRegion|rangeWindow|buildWindow|cutNote|touchedLines)\b/.test(text))
  expect(own.map(({ file }) => file)).toEqual([])
})

it('keeps the families apart: neither imports the other', () => {
  const crossing = FAMILIES.flatMap((name) => sources(name).filter(({ text }) =>
    FAMILIES.some((other) => other !== name && text.includes(`@deepseek-ai/dsh-${other}`))))
  expect(crossing.map(({ file }) => file)).toEqual([])
  for (const name of FAMILIES) {
    const manifest = JSON.parse(readFileSync(join(packages, name, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
    expect(Object.keys(manifest.dependencies)).toContain('@deepseek-ai/dsh-tool-text')
    expect(Object.keys(manifest.dependencies).filter((dep) => FAMILIES.some((other) => dep === `@deepseek-ai/dsh-${other}`))).toEqual([])
  }
})

it('leaves every refusal sentence to dsh-tool-text: no family builds an error result or throws an error with model text', () => {
  const own = FAMILIES.flatMap(sources).filter(({ text }) => /\berrorResult\(|new ToolError\(|withText\(/.test(text))
  expect(own.map(({ file }) => file)).toEqual([])
})


it('leaves the runtime\'s refusal sentences to dsh-tool-text too: dsh-tools refuses as data and words nothing itself', () => {
  const runtime = sources('tools')
  // A literal message in an error or an error result is model text written in the runtime.
  const literal = runtime.filter(({ text }) => /new ToolError\(\s*[^,]+,\s*[`'"]|errorResult\(\s*[`'"]/.test(text))
  expect(literal.map(({ file }) => file)).toEqual([])
  // The sentences of its refusals (unknown tool, foreign tool, arguments, abort) are in runtime-words.ts.
  const sentences = /Unknown tool|Unknown argument|Valid arguments|Retry with|is not a dsh tool|must be a JSON object|Missing required argument|was aborted before it ran/
  expect(runtime.filter(({ text }) => sentences.test(text)).map(({ file }) => file)).toEqual([])
  expect(sentences.test(sources('tool-text').find(({ file }) => file === 'tool-text/src/runtime-words.ts')!.text)).toBe(true)
})

it('has the path helpers refuse a path in a foreign form as data, which the tool returns and its render step words', () => {
  const paths = sources('tool-text').find(({ file }) => file === 'tool-text/src/paths.ts')!
  expect(paths.text).not.toMatch(/new ToolError\(|pathFormText\(/)
  expect(paths.text).toMatch(/new PathFormRefused\(/)
  // Both families turn it into their refusal value, rendered by renderRefusal.
  for (const name of FAMILIES) expect(sources(name).some(({ text }) => /pathFormRefusal\(/.test(text)), name).toBe(true)
})
