import { defineConfig } from 'tsdown'

// One bundle, split in chunks that load on demand: `bin/dsh.js` → `lib/cli.js`, then `start` or
// `demo`, then the built-in plugins a config names (see src/builtins.ts). Bundling is what makes the
// cold start fast (a few files to read instead of ~330) and what lets the CLI carry the Cordis
// loader without naming it as a dependency (npm cannot install that name beside cordis 4.0.0-rc.10).
// Why: .agents/notes/2026-12-01-cli-bundle.md and 2026-12-01-npm-install-without-loader.md.
export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts', 'src/early.ts'],
  outDir: 'lib',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  dts: true,
  fixedExtension: false,
  deps: {
    // One cordis per process: plugins loaded by name (fs-e2b, a user's own) must share its registry.
    // Native addons load at run time by name, from here: they are dependencies of the CLI too.
    // sharp (libvips binaries) and pdfjs-dist (which imports its worker by a relative path) are loaded
    // on the first image or PDF a read shows, from here: dependencies of the CLI too, never bundled.
    neverBundle: ['cordis', /^@deepseek-ai\/dsh-fs-e2b/, '@napi-rs/xattr', 'fs-native-extensions', 'sharp', /^pdfjs-dist(\/|$)/],
    alwaysBundle: [
      '@cordisjs/plugin-loader',
      /^@deepseek-ai\/dsh-(fs|fs-local|fs-policy|tools|tool-fs|tool-str-replace-editor|mcp)(\/|$)/,
      'zod',
      // dsh setup edits ~/.codex/config.toml.
      'smol-toml',
    ],
  },
})
