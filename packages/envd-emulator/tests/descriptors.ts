import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/** One RPC method as the SDK's embedded proto descriptors declare it. */
export interface SdkMethod {
  /** `<package.Service>/<Method>` */
  route: string
  serverStreaming: boolean
  clientStreaming: boolean
}

/** The installed SDK's bundled JavaScript (the CommonJS entry; the ESM one is a twin). */
export function sdkSource(): string {
  return readFileSync(createRequire(import.meta.url).resolve('e2b'), 'utf8')
}

/**
 * Every RPC method of every proto file the SDK embeds. Its generated code carries each file as a
 * base64 `FileDescriptorProto` passed to `fileDesc("…")`; a few lines of protobuf wire decoding
 * read the package, services and methods from it without any protobuf dependency.
 */
export function sdkMethods(source = sdkSource()): SdkMethod[] {
  const methods: SdkMethod[] = []
  for (const match of source.matchAll(/fileDesc\)?\("([A-Za-z0-9+/=]+)"/g)) {
    const file = fields(Buffer.from(match[1]!, 'base64'))
    const pkg = file.filter((f) => f.no === 2).map((f) => f.bytes!.toString('utf8'))[0] ?? ''
    for (const service of file.filter((f) => f.no === 6)) {
      const serviceFields = fields(service.bytes!)
      const name = text(serviceFields, 1)
      for (const method of serviceFields.filter((f) => f.no === 2)) {
        const m = fields(method.bytes!)
        methods.push({
          route: `${pkg}.${name}/${text(m, 1)}`,
          clientStreaming: m.some((f) => f.no === 5 && f.varint === 1),
          serverStreaming: m.some((f) => f.no === 6 && f.varint === 1),
        })
      }
    }
  }
  return methods
}

/**
 * Methods the SDK's code actually invokes: its clients are called as `….rpc.<lowerCamel>(`.
 * Returned as the lowerCamel names; a descriptor method matches by its lowered first letter.
 */
export function sdkCalledMethodNames(source = sdkSource()): Set<string> {
  return new Set([...source.matchAll(/\.rpc\.(\w+)\(/g)].map((m) => m[1]!))
}

interface Field { no: number; varint?: number; bytes?: Buffer }

function text(list: Field[], no: number): string {
  return list.find((f) => f.no === no)?.bytes?.toString('utf8') ?? ''
}

/** Top-level fields of one protobuf message (varints and length-delimited only matter here). */
function fields(buf: Buffer): Field[] {
  const out: Field[] = []
  let at = 0
  const varint = (): number => {
    let value = 0
    let shift = 0
    for (;;) {
      const byte = buf[at++]!
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return value
      shift += 7
    }
  }
  while (at < buf.length) {
    const key = varint()
    const no = Math.floor(key / 8)
    switch (key & 7) {
      case 0: out.push({ no, varint: varint() }); break
      case 1: at += 8; break
      case 2: { const len = varint(); out.push({ no, bytes: buf.subarray(at, at + len) }); at += len; break }
      case 5: at += 4; break
      default: throw new Error(`unsupported wire type in descriptor: ${key & 7}`)
    }
  }
  return out
}
