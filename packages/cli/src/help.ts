export const HELP = `dsh: file tools for coding agents that refuse blind and stale writes, served over MCP

Usage
  dsh start [--config <file>] [--timeout <seconds>]
  dsh setup <client> [--http [--url <url>] | --config <file>] [--dry-run]
  dsh doctor
  dsh demo
  dsh --help | --version

Commands
  start    Boot an agent config (cordis.yml) with the Cordis loader and serve its tools over MCP.
           Without --config it boots the default config shipped with dsh:
             fs-local                 files under the working directory (cwd and root)
             fs-policy                read before edit; writes and edits only from the version read
             tools                    the tool runtime
             tool-fs                  read, write, edit, multi_edit, glob, grep, list, apply_patch
             tool-str-replace-editor  str_replace_editor
             mcp                      MCP over stdio
           stdout carries only MCP messages; logs and a short banner go to stderr.
           Stops cleanly on SIGINT, SIGTERM and when the client closes stdin.
           A config that names a missing package, has an invalid field or a plugin that fails
           stops with a message naming the entry and exit status 1. The config file is never
           rewritten.
  setup    Write a client's config so it starts dsh (or reaches it over --http) and runs its
           tools without a prompt, headless too. Clients: claude-code (.mcp.json and
           .claude/settings.json), codex (~/.codex/config.toml: required, approval approve),
           gemini-cli (.gemini/settings.json: trust), opencode (opencode.json). Changes only the
           dsh entry, prints each file it changed; running it again changes nothing.
           --http writes the URL (default http://127.0.0.1:3000/mcp) and takes the token from
           DSH_MCP_TOKEN in the client's environment. --dry-run prints and writes nothing.
  doctor   For each client config that names dsh: is the command found, is the token set, and
           does the server, started or called as that client would, answer tools/list.
  demo     Run a scripted session in a temporary directory and print what the model sees:
           a stale edit caught, recovery after an external delete, an unread overwrite refused.

Options
  --config <file>     The agent config to boot: a YAML list of entries { id, name, config }.
  --timeout <seconds> Give up when the config has not finished loading after this long (60).
  -h, --help          Show this help.
  -v, --version       Print the version.

Serving over HTTP
  Set the mcp entry's config to { transport: http, host: 127.0.0.1, port: 3000 }: Streamable
  HTTP at /mcp, one session (and one read history) per client. Every request needs
  Authorization: Bearer <token>: the token is printed on stderr at start and written to a 0600
  file (or set it with DSH_MCP_TOKEN).

Adding dsh to an MCP client
  dsh setup claude-code            (or codex, gemini-cli, opencode), then dsh doctor
  claude mcp add dsh -- dsh start  (a global install; a project install: dsh setup claude-code)
  { "mcpServers": { "dsh": { "command": "dsh", "args": ["start"] } } }

Exit status
  0 stopped cleanly, demo passed, setup wrote the config, doctor found every client ready;
  1 the config could not start, the demo diverged, setup could not edit a file, or doctor found
  a client that will not reach dsh; 2 bad usage.
`
