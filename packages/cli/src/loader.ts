import { Loader } from '@cordisjs/plugin-loader'
import { pathToFileURL } from 'node:url'
import { BUILT_IN } from './builtins'

/**
 * The Cordis loader with four changes for a command-line host:
 * - it never writes the config file back (the stock loader does, dropping comments, whenever an
 *   entry changes, gets an id, or is disposed behind its back): the user's file is left alone;
 * - the plugins `dsh` is built with come from its own bundle (see `builtins.ts`);
 * - any other package is looked up from the config file's folder first, the way Node would for a
 *   module there, so a provider installed in the project loads under a global `dsh` too; only
 *   when it is not found there does the lookup start where `dsh` is installed;
 * - entries are applied in the order of the config. Imports still run in parallel, but one that
 *   finishes early waits for those listed before it, so the tool list and the system prompt do
 *   not depend on which chunk happened to load first.
 */
export class ReadOnlyLoader extends Loader {
  #previous: Promise<unknown> = Promise.resolve()

  override write(): void {}

  override import(name: string, getOuterStack?: () => string[], useInternal?: boolean): Promise<unknown> {
    const bundled = Object.hasOwn(BUILT_IN, name) ? BUILT_IN[name] : undefined
    const loading = bundled !== undefined ? bundled() : this.#besideConfig(name).then((url) => {
      return url === undefined ? super.import(name, getOuterStack, useInternal) : import(url)
    })
    const inOrder = this.#previous.then(() => loading)
    this.#previous = inOrder.catch(() => {})
    return inOrder
  }

  /**
   * The URL `name` resolves to from the config file's folder, or `undefined` when it is not
   * installed there. The resolver is loaded only for such a name: the shipped config has none.
   */
  async #besideConfig(name: string): Promise<string | undefined> {
    const filename = this.config.filename
    if (filename === undefined) return undefined
    const { resolve } = await import('import-meta-resolve')
    try {
      return resolve(name, pathToFileURL(filename).href)
    } catch {
      return undefined
    }
  }
}
