import { type Context, Service } from 'cordis'
import type { PromptSection } from './types'

declare module 'cordis' {
  interface Context {
    systemPrompt: SystemPrompt
  }
}

/**
 * `ctx.systemPrompt`: named sections that plugins contribute (a tool's usage rules, the
 * environment…) and a host renders once into the system prompt or an MCP server's instructions.
 */
export class SystemPrompt extends Service {
  sections: { section: PromptSection; seq: number }[] = []
  sequence = 0

  constructor(ctx: Context) {
    super(ctx, 'systemPrompt')
  }

  /** Adds a section owned by the calling plugin (removed with it, or by the returned disposer). */
  section(section: PromptSection): () => void {
    if (this.sections.some((entry) => entry.section.name === section.name)) {
      throw new Error(`a system prompt section named ${section.name} already exists`)
    }
    const entry = { section: { ...section }, seq: this.sequence++ }
    return this.ctx.effect(() => {
      this.sections.push(entry)
      return () => {
        const index = this.sections.indexOf(entry)
        if (index >= 0) this.sections.splice(index, 1)
      }
    }, `prompt section ${section.name}`)
  }

  list(): PromptSection[] {
    return [...this.sections]
      .sort((a, b) => a.section.order - b.section.order || a.seq - b.seq)
      .map(({ section }) => ({ ...section }))
  }

  /** All section texts in order, separated by a blank line. */
  render(): string {
    return this.list().map((section) => section.text.trim()).filter((text) => text.length > 0).join('\n\n')
  }
}
