import { Context } from 'cordis'
import { beforeEach, expect, it } from 'vitest'
import plugin from '../src/index'

let root: Context

beforeEach(async () => {
  root = new Context()
  await root.plugin(plugin)
})

it('renders sections by order, ties in registration order, separated by a blank line', () => {
  root.systemPrompt.section({ name: 'late', order: 20, text: 'Late.' })
  root.systemPrompt.section({ name: 'early', order: 10, text: 'Early.\n' })
  root.systemPrompt.section({ name: 'tie', order: 20, text: 'Tie.' })
  expect(root.systemPrompt.render()).toBe('Early.\n\nLate.\n\nTie.')
  expect(root.systemPrompt.list().map((section) => section.name)).toEqual(['early', 'late', 'tie'])
})

it('removes a section through its disposer and refuses a duplicate name', () => {
  const dispose = root.systemPrompt.section({ name: 'a', order: 1, text: 'A.' })
  expect(() => root.systemPrompt.section({ name: 'a', order: 2, text: 'again' })).toThrow(/already exists/)
  dispose()
  expect(root.systemPrompt.render()).toBe('')
  root.systemPrompt.section({ name: 'a', order: 2, text: 'A again.' })
  expect(root.systemPrompt.render()).toBe('A again.')
})

it('removes the sections of a plugin when it is disposed', async () => {
  const fiber = await root.plugin({
    inject: ['systemPrompt'],
    apply: (ctx: Context) => void ctx.systemPrompt.section({ name: 'mine', order: 1, text: 'Mine.' }),
  })
  root.systemPrompt.section({ name: 'root', order: 2, text: 'Root.' })
  await fiber.dispose()
  expect(root.systemPrompt.render()).toBe('Root.')
})
