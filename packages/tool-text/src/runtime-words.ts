import type { ArgumentIssue, ForeignCall, RuntimeRefusal, RuntimeWords, ShownValue, UnknownArgument } from '@deepseek-ai/dsh-tools'

/*
 * The runtime's own refusals, worded: a call of a tool that does not exist, arguments the schema
 * refuses, a call aborted before it ran. dsh-tools refuses them as data (`RuntimeRefusal`) and the
 * tool families install these words on the registry (`ctx.tools.useWords(RUNTIME_WORDS)`).
 */

export const RUNTIME_WORDS: RuntimeWords = (refusal) => {
  switch (refusal.kind) {
    case 'unknown-tool': return unknownToolText(refusal)
    case 'foreign-tool': return foreignCallText(refusal.name, refusal.call)
    case 'arguments-not-object': return `Arguments for the dsh \`${refusal.tool}\` tool must be a JSON object, got ${shown(refusal.got)}.`
    case 'unknown-arguments': return unknownArgumentsText(refusal)
    case 'invalid-arguments': return refusal.issues.map(issueText).join('\n')
    case 'aborted': return `The call of the dsh \`${refusal.tool}\` tool was aborted before it ran.`
  }
}

function unknownToolText({ name, suggestion, available }: Extract<RuntimeRefusal, { kind: 'unknown-tool' }>): string {
  return `Unknown tool "${name}"${suggestion === undefined ? '.' : `; did you mean the dsh \`${suggestion}\` tool?`}`
    + ` Available tools: ${available.length === 0 ? '(none)' : qualifiedList(available)}.`
}

/** "the dsh `edit`, `read` and `write` tools": names stay right under any client prefix. */
function qualifiedList(names: string[]): string {
  const quoted = names.map((name) => `\`${name}\``)
  const list = quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`
  return `the dsh ${list} tool${names.length === 1 ? '' : 's'}`
}

/** Strings longer than this are not repeated in the answer: the model resends its own value. */
const SHOWN_VALUE_MAX = 60

/**
 * `"read_file" is not a dsh tool; …`: the dsh tool that does it, and the whole call to make, as JSON.
 * A long string value is shown as `<your NAME>`, NAME being the argument as the model sent it.
 */
function foreignCallText(name: string, call: ForeignCall): string {
  const from = new Map(call.renamed.map(([given, dsh]) => [dsh, given]))
  const args = Object.fromEntries(Object.entries(call.args).map(([key, value]) =>
    [key, typeof value === 'string' && JSON.stringify(value).length > SHOWN_VALUE_MAX ? `<your ${from.get(key) ?? key}>` : value]))
  const renames = call.renamed.length === 0 ? '' : ` (${call.renamed.map(([given, dsh]) => `${given} is ${dsh}`).join(', ')})`
  const elided = Object.values(args).some((value) => typeof value === 'string' && /^<your \w+>$/.test(value))
  return `"${name}" is not a dsh tool; the dsh \`${call.tool}\` tool does this${renames}. `
    + `Call the dsh \`${call.tool}\` tool with arguments ${JSON.stringify(args)}`
    + `${elided ? ' ("<your NAME>" stands for the value you sent as NAME, unchanged)' : ''}.`
}

/** One line per unknown name, the valid names, and the corrected call when every unknown name has a fix. */
function unknownArgumentsText({ tool, unknown, valid, retry }: Extract<RuntimeRefusal, { kind: 'unknown-arguments' }>): string {
  const lines = unknown.map((argument) => unknownArgumentText(tool, argument))
  lines.push(`Valid arguments: ${valid.join(', ')}.`)
  if (retry !== undefined) {
    const elided = retry.some((argument) => argument.json === undefined)
    const args = retry.map(({ name, json }) => `${JSON.stringify(name)}:${json ?? '"…"'}`).join(',')
    lines.push(`Retry with: {${args}}${elided ? ' ("…" stands for the value you sent, unchanged)' : ''}`)
  }
  return lines.join('\n')
}

function unknownArgumentText(tool: string, argument: UnknownArgument): string {
  const head = `Unknown argument "${argument.name}" for the dsh \`${tool}\` tool`
  if (!('meant' in argument)) return `${head}.`
  return argument.given ? `${head}; ${argument.meant} is given too, so leave ${argument.name} out.` : `${head}; did you mean ${argument.meant}?`
}

function issueText(issue: ArgumentIssue): string {
  switch (issue.kind) {
    case 'missing': return `Missing required argument "${issue.name}" (expected ${article(issue.expected)}).`
    case 'type': return `Argument "${issue.name}" must be ${article(issue.expected)}, got ${shown(issue.got)}.`
    case 'rule': return issue.name === '' ? issue.message : `Argument "${issue.name}" is invalid: ${issue.message}.`
  }
}

const ARTICLES: Record<string, string> = {
  string: 'a string', number: 'a number', int: 'an integer', boolean: 'a boolean', array: 'an array',
  object: 'an object', null: 'null', bigint: 'an integer', tuple: 'an array',
}

function article(expected: string): string {
  return ARTICLES[expected] ?? expected
}

function shown(value: ShownValue): string {
  switch (value.type) {
    case 'null': return 'null'
    case 'array': return 'an array'
    case 'object': return 'an object'
    case 'string': return value.value === undefined ? 'a string' : `the string ${JSON.stringify(value.value)}`
    case 'number':
    case 'boolean': return `${value.type} ${String(value.value)}`
    default: return value.type
  }
}
