export { CallLog, type CountedMethod, countingProvider } from './call-log'
export type { ProviderKind } from './providers'
export { type Session, type Stack, type StackOptions, type StackPart, stack, textOf, type ToolFamily } from './stack'
export { freePort, hasBinary, type HaproxyServer, type RedisServer, startHaproxy, startRedis } from './servers'
