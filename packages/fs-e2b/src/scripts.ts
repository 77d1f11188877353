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
# The whole path of a staging directory, for find -regex (posix-extended): see staging.ts.
STAGE_RE='.*/\.dsh-stage\.[0-9a-f]{32}'
stat_of() { stat -L -c '%f %s %d:%i:%s:%.9Y:%.9Z' -- "$1" 2>/dev/null; }
# Sets $kind from a stat line's hex mode (a variable, not output: no subshell to fork).
kind_of() {
  local m=$(( 16#\${1%% *} & 0xF000 ))
  if (( m == 0x8000 )); then kind=file; elif (( m == 0x4000 )); then kind=dir; else kind=other; fi
}
# stat failed: say whether the path is a dangling link (printing the link's own stat line, whose
# mode says symlink), sits under a file, behind a closed directory, or simply does not exist.
why_missing() {
  [ -L "$1" ] && { stat -c '%f %s %d:%i:%s:%.9Y:%.9Z' -- "$1" 2>/dev/null; exit $DANGLING; }
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
# Sets $key (the identity of lexically absolute path $1: its realpath, the missing rest included; for
# a dangling symlink the link itself) and $parent (the realpath of its directory).
identify() {
  local d=\${1%/*}
  { IFS= read -rd '' parent && IFS= read -rd '' key; } < <(realpath -zm -- "\${d:-/}" "$1") || return 1
  if [ ! -e "$1" ] && [ -L "$1" ]; then key=\${parent%/}/\${1##*/}; fi
}
`

/** Checks that the tools exist and prints the working directory the sandbox starts commands in. */
export const PROBE = PRELUDE + sh`for tool in stat ln mv flock base64 dd find xargs realpath chmod cp; do
  command -v "$tool" >/dev/null || exit $MISSING_TOOL
done
pwd -P
`

/**
 * The key of a lexically absolute path (see `identify`), then its directory's realpath, both
 * NUL-terminated: the provider remembers the directory to name its other entries without a request.
 */
export const RESOLVE = PRELUDE + sh`identify "$1" || exit 1
printf '%s\0%s\0' "$key" "$parent"
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
 * `RESOLVE`, then `READ` of the key in one command (the read tool's single request): the identity
 * records, the stat line, and, for a regular file of at most `$2` bytes, the bytes and the stat line
 * again. Anything else ends after the stat line with status 0: a directory or FIFO is reported, never opened.
 */
export const INSPECT = PRELUDE + sh`identify "$1" || exit 1
printf '%s\0%s\0' "$key" "$parent"
s=$(stat_of "$key") || why_missing "$key"
printf '%s\n' "$s"
kind_of "$s"; [ $kind = file ] || exit 0
size=\${s#* }; size=\${size%% *}
[ -n "$2" ] && (( size <= $2 )) || exit 0
[ -r "$key" ] || exit $DENIED
dd if="$key" iflag=nonblock bs=65536 status=none | base64 -w 0 || exit 1
printf '\n'
stat_of "$key" || exit 1
`

/**
 * Entries of a directory as NUL-terminated records: `N<count>` (every name there, staging directories left out),
 * then for the first `$2` names in byte order (all when `$2` is empty) `E<stat line> ./<name>` per
 * entry a stat can follow (dangling links drop out, as in envd's own listing) and `L<name>` +
 * realpath per symlink. `$3 = 0` leaves out names starting with a dot before anything else. Only
 * the names shown are stat'ed: a listing cut at 1,000 of 100,000 entries costs 1,000 stats.
 */
export const LIST = PRELUDE + sh`s=$(stat_of "$1") || why_missing "$1"
kind_of "$s"; [ $kind = dir ] || exit $NOT_DIRECTORY
cd -- "$1" 2>/dev/null && [ -r . ] || exit $DENIED
hidden=()
[ "\${3:-1}" = 0 ] && hidden=(! -name '.*')
mapfile -d '' names < <(find . -mindepth 1 -maxdepth 1 -regextype posix-extended ! \( -type d -regex "$STAGE_RE" \) "\${hidden[@]}" -print0 | LC_ALL=C sort -z)
printf 'N%s\0' "\${#names[@]}"
names=("\${names[@]:0:\${2:-\${#names[@]}}}")
(( \${#names[@]} )) || exit 0
printf '%s\0' "\${names[@]}" | xargs -0r stat -L --printf 'E%f %s %d:%i:%s:%.9Y:%.9Z %n\0' -- 2>/dev/null
# xargs reports 123 when stat failed on some entry (a dangling link): those are left out on purpose.
status=$?; [ $status -eq 0 ] || [ $status -eq 123 ] || exit 1
for link in "\${names[@]}"; do
  [ -L "$link" ] || continue
  printf 'L%s\0' "\${link#./}"; realpath -zm -- "$link" || exit 1
done
`

/**
 * Publishes the staging file `$3` (alone in its private staging directory, `staging.ts`, next to the target
 * `$2`) and prints the identity records of `$5`, then the new stat line. With `$6 = inline` the
 * script first writes the staging file itself from the base64 in `$7` (making missing parent
 * directories, as an upload does): one request for the whole write. Without it, the bytes were uploaded.
 *
 * - First, `$5` (the lexical path the key was named for; default the key itself) must still lead to
 *   `$2`: the provider may have named the key from memory, and a path that now leads elsewhere is
 *   refused (`MOVED`), or, for a create, reported as what is in the way.
 * - `create`: a hard link (`ln -T`) that fails on ANY existing entry, so a competitor that appeared
 *   after every earlier probe is never replaced; the failure says what was in the way.
 * - `replace`: compare-and-swap against version `$4`. Holding the target directory's flock, the
 *   script stats the target and renames only if the version is still `$4`. Every provider of every
 *   process takes the same lock, so two writers cannot both pass the check.
 *
 * The staging directory is removed on every exit; leftovers of writers killed between upload and
 * publication are recognisable by their exact name and shape and reclaimed once they are an hour
 * old. A user's entry never has that name, so no age decides anything about it.
 */
export const PUBLISH = PRELUDE + sh`mode=$1 target=$2 stage=$3 expected=$4 path=\${5:-$2} inline=\${6-}
stagedir=\${stage%/*}
trap 'rm -rf -- "$stagedir"' EXIT
dir=\${target%/*}; dir=\${dir:-/}
identify "$path" || exit 1
printf '%s\0%s\0' "$key" "$parent"
if [ "$key" != "$target" ]; then
  [ "$mode" = create ] || exit $MOVED
  [ -L "$path" ] && [ ! -e "$path" ] && exit $NOT_REGULAR
  [ -f "$path" ] && exit $EXISTS
  [ -e "$path" ] && exit $NOT_REGULAR
  exit $MOVED
fi
if [ "$inline" = inline ]; then
  if ! mkdir -p -- "$dir" 2>/dev/null; then
    p=$dir
    while [ -n "$p" ] && [ ! -e "$p" ]; do p=\${p%/*}; done
    [ -d "\${p:-/}" ] || exit $NOT_DIRECTORY
    exit $DENIED
  fi
  mkdir -m 700 -- "$stagedir" 2>/dev/null || { [ -w "$dir" ] || exit $DENIED; exit 1; }
  printf '%s' "$7" | base64 -d >"$stage" || exit 1
fi
# Leftovers of writers that died between upload and publication, an hour old: only a directory of
# ours with the exact staging name, holding nothing or one file (what an upload leaves).
while IFS= read -rd '' old; do
  # A directory that cannot be read, or holds more (find then dies of SIGPIPE), is left alone.
  shape=$(find "$old" -mindepth 1 -maxdepth 1 -printf '%y' 2>/dev/null | head -c 2) || continue
  [ -z "$shape" ] || [ "$shape" = f ] && rm -rf -- "$old"
done < <(find "$dir" -mindepth 1 -maxdepth 1 -regextype posix-extended -type d -regex "$STAGE_RE" -user "$(id -u)" -mmin +60 -print0 2>/dev/null)
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
# Refused what an in-place writer would be refused: no write bit at all (root included: that is
# the owner's explicit "do not change"), and for other users no write access, someone else's file
# (a replacement would be ours), or a group we cannot give the replacement while it grants access.
perm=$(( 16#\${s%% *} ))
(( perm & 0222 )) || exit $READ_ONLY
if [ "$(id -u)" = 0 ]; then
  chown --reference="$target" -- "$stage" || exit 1
else
  [ -w "$target" ] || exit $READ_ONLY
  [ -O "$target" ] || exit $NOT_OWNER
  chgrp --reference="$target" -- "$stage" 2>/dev/null || (( (perm & 0070) == 0 )) || exit $NOT_OWNER
fi
# After the owner (a chown clears set-id bits): the mode, the POSIX ACL and the other extended
# attributes, so the replacement is readable by exactly whom the old file was.
cp --attributes-only --no-preserve=all --preserve=mode,xattr -- "$target" "$stage" 2>/dev/null || exit $ATTRIBUTES
# A file mounted over the target (a single-file bind mount) cannot be renamed over: EBUSY.
mv -fT -- "$stage" "$target" 2>/dev/null || { command -v mountpoint >/dev/null && mountpoint -q -- "$target" && exit $MOUNTED; exit 1; }
stat_of "$target" || exit 1
`

/**
 * The part of `REMOVE` and `MOVE` that checks `$source` under its directory's lock: a writable
 * regular file of version `$expected` (empty: any regular file), its stat line left in `$s`.
 */
const SOURCE_CHECK = sh`s=$(stat_of "$source") || { [ -L "$source" ] && [ -z "$expected" ] && exit $NOT_REGULAR; exit $STALE; }
[ -z "$expected" ] || [ "\${s#* * }" = "$expected" ] || exit $STALE
kind_of "$s"; [ $kind = file ] || exit $NOT_REGULAR
(( 16#\${s%% *} & 0222 )) || exit $READ_ONLY
`

/**
 * Removes the regular file `$1` (the key `$3` was named for): under the lock of its directory that
 * every publication takes, the version is checked against `$2` (empty: any regular file) and the
 * name removed, in one request. A read-only file is refused, as a replacement of it would be.
 * Prints the removed file's stat line.
 */
export const REMOVE = PRELUDE + sh`source=$1 expected=$2 path=\${3:-$1}
identify "$path" || exit 1
[ "$key" = "$source" ] || exit $MOVED
dir=\${source%/*}; dir=\${dir:-/}
exec 9<"$dir" || exit $DENIED
flock -w 30 9 || exit $BUSY
`
  + SOURCE_CHECK + sh`rm -f -- "$source" 2>/dev/null && [ ! -e "$source" ] || { [ -w "$dir" ] || exit $DENIED; exit 1; }
printf '%s' "$s"
`

/**
 * Moves the regular file `$1` to `$2` (the keys `$4` and `$5` were named for), never replacing
 * anything: the destination's missing directories are made, both directories' locks are taken in
 * one order, the source's version is checked against `$3` (empty: any regular file), then `ln -T`
 * (which fails on any existing entry) and `rm` of the source; one request. `EXISTS` / `TAKEN` say
 * what occupies the destination. Prints the moved file's new stat line.
 */
export const MOVE = PRELUDE + sh`source=$1 destination=$2 expected=$3 spath=\${4:-$1} dpath=\${5:-$2}
identify "$spath" || exit 1
[ "$key" = "$source" ] || exit $MOVED
identify "$dpath" || exit 1
[ "$key" = "$destination" ] || exit $MOVED
sdir=\${source%/*}; sdir=\${sdir:-/}
ddir=\${destination%/*}; ddir=\${ddir:-/}
if ! mkdir -p -- "$ddir" 2>/dev/null; then
  p=$ddir
  while [ -n "$p" ] && [ ! -e "$p" ]; do p=\${p%/*}; done
  [ -d "\${p:-/}" ] || exit $NOT_DIRECTORY
  exit $DENIED
fi
# Two opposite moves take the two locks in the same order, so neither waits for the other forever.
first=$sdir second=$ddir
[[ "$ddir" < "$sdir" ]] && first=$ddir second=$sdir
exec 8<"$first" || exit $DENIED
flock -w 30 8 || exit $BUSY
if [ "$second" != "$first" ]; then
  exec 9<"$second" || exit $DENIED
  flock -w 30 9 || exit $BUSY
fi
`
  + SOURCE_CHECK + sh`if ! ln -T -- "$source" "$destination" 2>/dev/null; then
  [ -f "$destination" ] && exit $EXISTS
  { [ -e "$destination" ] || [ -L "$destination" ]; } && exit $TAKEN
  [ -w "$ddir" ] || exit $DENIED
  exit 1
fi
rm -f -- "$source" || exit 1
stat_of "$destination" || exit 1
`
