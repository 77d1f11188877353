export { CallLog, type CountedMethod, countingProvider } from './call-log'
export type { ProviderKind } from './providers'
export { type Session, type Stack, type StackOptions, type StackPart, stack, textOf, type ToolFamily } from './stack'
