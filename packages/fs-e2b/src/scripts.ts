/**
 * The bash scripts the provider runs inside the sandbox, one per operation. Each is a constant
 * text; paths arrive only as positional arguments (`controlCommand` quotes them). Exit codes are
 * the names of `status.ts`, assigned ahead of the script. Every script prints the sentinel first.
 *
 * A stat line is `<hex mode> <size> <version>`, where the version is
 * `dev:inode:size:mtime-ns:ctime-ns` of the file a path leads to (symlinks followed). A same-size
 * rewrite that puts the mtime back still moves the ctime, so it still mints a new version.
 */

/**
 * The text of a script, raw (backslashes reach bash untouched). A template literal cannot hold a
 * bare dollar-brace, so the scripts write it escaped and this tag removes the escape.
 */
export function sh(strings: TemplateStringsArray): string {
  return strings.raw.join('').replaceAll('\\${', '${')
}

export const PRELUDE = sh`set -u -o pipefail
printf '\036dsh\036'
stat_of() { stat -L -c '%f %s %d:%i:%s:%.9Y:%.9Z' -- "$1" 2>/dev/null; }
# Sets $kind from a stat line's hex mode (a variable, not output: no subshell to fork).
kind_of() {
  local m=$(( 16#\${1%% *} & 0xF000 ))
  if (( m == 0x8000 )); then kind=file; elif (( m == 0x4000 )); then kind=dir; else kind=other; fi
}
# stat failed: say whether the path is a dangling link, sits under a file, behind a closed
# directory, or simply does not exist.
why_missing() {
  [ -L "$1" ] && exit $DANGLING
  local p=$1
  while p=\${p%/*}; [ -n "$p" ]; do
    if [ -e "$p" ]; then
      [ -d "$p" ] || exit $NOT_DIRECTORY
      [ -x "$p" ] || exit $DENIED
      exit $ABSENT
    fi
  done
  exit $ABSENT
}
`

/** Checks that the tools exist and prints the working directory the sandbox starts commands in. */
export const PROBE = PRELUDE + sh`for tool in stat ln mv flock base64 dd find xargs realpath chmod; do
  command -v "$tool" >/dev/null || exit $MISSING_TOOL
done
pwd -P
`

/**
 * The key of a lexically absolute path: `K` + its realpath, the nearest existing ancestor's realpath
 * plus the missing rest for a path that does not exist, or `D` + the parent's realpath for a
 * dangling symlink (the link itself is the key: something is in the way, and writers refuse it).
 */
export const RESOLVE = PRELUDE + sh`p=$1
if [ ! -e "$p" ] && [ -L "$p" ]; then
  d=\${p%/*}
  printf 'D'; realpath -zm -- "\${d:-/}" || exit 1
else
  printf 'K'; realpath -zm -- "$p" || exit 1
fi
`

/** One stat line, or the status of why there is none. */
export const STAT = PRELUDE + sh`s=$(stat_of "$1") || why_missing "$1"
printf '%s' "$s"
`

/**
 * Prints the stat line, then checks that the path is a readable regular file before opening it (a
 * FIFO is refused, never opened); with `$2 = content` it goes on with the bytes in base64 and the
 * stat line again: equal lines mean the bytes are the version's. `iflag=nonblock` keeps even a FIFO swapped
 * in after the check from blocking the read.
 */
export const READ = PRELUDE + sh`s=$(stat_of "$1") || why_missing "$1"
printf '%s\n' "$s"
kind_of "$s"; [ $kind = file ] || exit $NOT_REGULAR
[ -r "$1" ] || exit $DENIED
[ "$2" = content ] || exit 0
dd if="$1" iflag=nonblock bs=65536 status=none | base64 -w 0 || exit 1
printf '\n'
stat_of "$1" || exit 1
`

/**
 * Entries of a directory as NUL-terminated records: `E<stat line> ./<name>` per entry a stat can
 * follow (dangling links drop out, as in envd's own listing), then `L<name>` + realpath per
 * symlink. Staging directories of writers in flight are hidden.
 */
export const LIST = PRELUDE + sh`s=$(stat_of "$1") || why_missing "$1"
kind_of "$s"; [ $kind = dir ] || exit $NOT_DIRECTORY
cd -- "$1" 2>/dev/null && [ -r . ] || exit $DENIED
find . -mindepth 1 -maxdepth 1 ! -name '.dsh-stage-*' -print0 \
  | xargs -0r stat -L --printf 'E%f %s %d:%i:%s:%.9Y:%.9Z %n\0' -- 2>/dev/null
# xargs reports 123 when stat failed on some entry (a dangling link): those are left out on purpose.
status=$?; [ $status -eq 0 ] || [ $status -eq 123 ] || exit 1
while IFS= read -r -d '' link; do
  printf 'L%s\0' "\${link#./}"; realpath -zm -- "$link" || exit 1
done < <(find . -mindepth 1 -maxdepth 1 -type l ! -name '.dsh-stage-*' -print0)
`

/**
 * Publishes an uploaded staging file (`$3`, alone in its private `.dsh-stage-*` directory next to
 * the target `$2`) and prints the new stat line.
 *
 * - `create`: a hard link (`ln -T`) that fails on ANY existing entry, so a competitor that appeared
 *   after every earlier probe is never replaced; the failure says what was in the way.
 * - `replace`: compare-and-swap against version `$4`. Holding the target directory's flock, the
 *   script stats the target and renames only if the version is still `$4`. Every provider of every
 *   process takes the same lock, so two writers cannot both pass the check.
 *
 * The staging directory is removed on every exit; leftovers of writers killed between upload and
 * publication are recognisable by name and reclaimed once they are an hour old.
 */
export const PUBLISH = PRELUDE + sh`mode=$1 target=$2 stage=$3 expected=$4
stagedir=\${stage%/*}
trap 'rm -rf -- "$stagedir"' EXIT
dir=\${target%/*}; dir=\${dir:-/}
find "$dir" -mindepth 1 -maxdepth 1 -name '.dsh-stage-*' -mmin +60 -exec rm -rf -- {} + 2>/dev/null
if [ "$mode" = create ]; then
  chmod "$(printf '%o' $(( 0666 & ~0$(umask) )))" -- "$stage" || exit 1
  if ln -T -- "$stage" "$target" 2>/dev/null; then
    rm -f -- "$stage"
    stat_of "$target" || exit 1
    exit 0
  fi
  [ -L "$target" ] && [ ! -e "$target" ] && exit $NOT_REGULAR
  [ -f "$target" ] && exit $EXISTS
  [ -e "$target" ] && exit $NOT_REGULAR
  [ -w "$dir" ] || exit $DENIED
  exit 1
fi
exec 9<"$dir" || exit $DENIED
flock -w 30 9 || exit $BUSY
s=$(stat_of "$target") || { [ -L "$target" ] && exit $NOT_REGULAR; exit $STALE; }
[ "\${s#* * }" = "$expected" ] || exit $STALE
kind_of "$s"; [ $kind = file ] || exit $NOT_REGULAR
# The replacement keeps the mode of the file it replaces (and its owner, when we may set it).
chmod --reference="$target" -- "$stage" 2>/dev/null
[ "$(id -u)" = 0 ] && chown --reference="$target" -- "$stage" 2>/dev/null
mv -fT -- "$stage" "$target" || exit 1
stat_of "$target" || exit 1
`
