import LocalFileSystem from '@deepseek-ai/dsh-fs-local'
import policy from '@deepseek-ai/dsh-fs-policy'
import toolFs from '@deepseek-ai/dsh-tool-fs'
import tools from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finalState, seed, STEPS } from './demo-script'

/**
 * `dsh demo`: the scripted session of `demo-script.ts`, run through `ctx.tools` exactly as an MCP
 * call would be (local files, the policy, the fs tools), printing what the model sees. Exits 1 if
 * any step does not end the way the script says, so the demo doubles as a smoke test.
 */
export async function demo(out: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-demo-')))
  const ctx = new Context()
  const fibers = []
  try {
    await seed(dir)
    fibers.push(await ctx.plugin(LocalFileSystem, { cwd: dir, root: dir }))
    fibers.push(await ctx.plugin(policy), await ctx.plugin(tools), await ctx.plugin(toolFs))
    const session = { name: 'demo' }
    out(`dsh demo: one model session in ${dir}\n(local files rooted there, the fs policy, the read/write/edit tools)\n`)
    let failures = 0
    for (const [index, step] of STEPS.entries()) {
      out(`\n${index + 1}. ${step.say}\n`)
      if ('disk' in step) {
        out(`   $ ${await step.disk(dir)}\n`)
        continue
      }
      out(`   > ${step.call.name} ${JSON.stringify(step.call.arguments)}\n`)
      const result = await ctx.tools.execute({ ...step.call, agent: { session } })
      const outcome = result.isError ? result.error?.code ?? 'error' : 'ok'
      const text = result.content.map((part) => part.text).join('\n')
      out(`   < ${result.isError ? `error ${outcome}: ` : ''}${indent(text)}\n`)
      if (outcome !== step.expect) {
        failures++
        out(`   !! expected ${step.expect === 'ok' ? 'success' : step.expect}, got ${outcome}\n`)
      }
    }
    const final = await finalState(dir)
    if (!final.ok) failures++
    out(`\n${final.ok ? 'On disk' : '!! On disk'}: ${final.detail}.\n`)
    out(failures === 0 ? `Every step behaved as scripted.\n` : `${failures} step(s) did not behave as scripted.\n`)
    return failures === 0 ? 0 : 1
  } finally {
    for (const fiber of fibers.reverse()) await fiber.dispose()
    await rm(dir, { recursive: true, force: true })
  }
}

function indent(text: string): string {
  return text.includes('\n') ? `\n${text.split('\n').map((line) => `     ${line}`).join('\n')}` : text
}
