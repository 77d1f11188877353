// write-file-atomic 7 ships no types; only the call the baselines make is declared.
declare module 'write-file-atomic' {
  interface Options {
    fsync?: boolean
    encoding?: BufferEncoding
    mode?: number
    chown?: { uid: number; gid: number } | false
  }
  function writeFileAtomic(path: string, data: string | Uint8Array, options?: Options): Promise<void>
  export default writeFileAtomic
}
