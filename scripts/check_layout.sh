#!/usr/bin/env bash
# Checks the layout map (the `## Layout` section of docs/architecture.md) against the tree:
# - every path the map names exists;
# - every folder and every .rs file directly under app/src/ and server/src/ (but lib.rs and
#   main.rs) is named in the map. A folder also counts as named when a path inside it is named
#   (pages/staff/ names app/src/pages/).
# How the section is read:
# - In its fenced block, a line indented by fewer than 8 spaces is an entry; its first word is a
#   path, relative to the nearest folder entry above it with less indentation (`  src/engine/`
#   under `server/` is server/src/engine/). Other lines continue the entry's description.
# - In the description of a folder entry, a word that ends in `/` or in a file extension (.rs,
#   .toml, .yml, .sh, .md, …) is a path, looked up in the entry's folder, then in its src/ folder
#   (`seating.rs` under `app/` is app/src/seating.rs). Bare module names (`config, clock`) are
#   not paths. The description of a file entry (Cargo.toml …) is prose.
# - Anywhere in the section, a path in backticks is relative to the repository root
#   (`server/src/engine/holds.rs`, `app/src/pages/`).
# - Outside the section (the flows), and in the documentation of server/src/lib.rs, a path in
#   backticks must exist, relative to the repository or to a source root (see ROOTS below).
# Fails (exit 1) naming each problem; prints "layout map: N paths checked" on success.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MAP=docs/architecture.md

[ -f "$MAP" ] || { echo "check_layout: $MAP not found" >&2; exit 1; }
grep -q '^## Layout[[:space:]]*$' "$MAP" || { echo "check_layout: no '## Layout' section in $MAP" >&2; exit 1; }

# One line per name: "ABS<TAB>line<TAB>path" or "REL<TAB>line<TAB>folder<TAB>name".
NAMES="$(awk '
  function pathlike(s) {
    return s ~ /^(\.\/)?[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\/?$/ && (s ~ /\// || s ~ EXT)
  }
  BEGIN {
    EXT = "\\.(rs|toml|yml|yaml|json|lua|sql|sh|ts|js|css|md|lock|png|txt)$"
    NAME = "^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*(/|" EXT ")"
  }
  /^## Layout[[:space:]]*$/ { insec = 1; next }
  insec && /^## / { exit }
  !insec { next }
  /^[[:space:]]*```/ { inblock = !inblock; next }
  {
    line = $0
    # Backticked paths, anywhere in the section: relative to the repository.
    while (match(line, /`[^`]*`/)) {
      span = substr(line, RSTART + 1, RLENGTH - 2)
      if (pathlike(span)) { sub(/^\.\//, "", span); print "ABS\t" NR "\t" span }
      line = substr(line, 1, RSTART - 1) " " substr(line, RSTART + RLENGTH)
    }
    if (!inblock || line ~ /^[[:space:]]*$/) next
    match(line, /^ */); indent = RLENGTH
    if (indent < 8) {
      rest = substr(line, indent + 1)
      word = rest; sub(/[[:space:]].*$/, "", word)
      text = substr(rest, length(word) + 1)
      while (depth > 0 && stack_indent[depth] >= indent) depth--
      entry = (depth > 0 ? stack_dir[depth] : "") word
      print "ABS\t" NR "\t" entry
      if (word ~ /\/$/) { depth++; stack_indent[depth] = indent; stack_dir[depth] = entry; folder = entry }
      else folder = ""
    } else text = line
    if (folder == "") next
    gsub(/[,;:()+"\[\]]/, " ", text)
    n = split(text, words, /[[:space:]]+/)
    for (i = 1; i <= n; i++) {
      w = words[i]; sub(/\.+$/, "", w)
      if (w ~ NAME "$") print "REL\t" NR "\t" folder "\t" w
    }
  }
' "$MAP")"

declare -A NAMED=()
PROBLEMS=()
while IFS=$'\t' read -r kind line a b; do
  [ -n "$kind" ] || continue
  if [ "$kind" = ABS ]; then
    path="$a"
    [ -e "$path" ] || PROBLEMS+=("$MAP:$line: $path does not exist")
  else
    if [ -e "$a$b" ]; then path="$a$b"
    elif [ -e "${a}src/$b" ]; then path="${a}src/$b"
    else path="$a$b"; PROBLEMS+=("$MAP:$line: $b (under $a) does not exist: neither $a$b nor ${a}src/$b")
    fi
  fi
  NAMED["${path%/}"]=1
done <<< "$NAMES"

# Is $1 (no trailing slash) named, itself or by a path inside it?
named() {
  local p
  [ -n "${NAMED[$1]:-}" ] && return 0
  for p in "${!NAMED[@]}"; do [[ "$p" == "$1"/* ]] && return 0; done
  return 1
}
for dir in app/src server/src; do
  [ -d "$dir" ] || { PROBLEMS+=("$dir/ does not exist"); continue; }
  while IFS= read -r -d '' item; do
    item="${item#./}"
    if [ -d "$item" ]; then
      # A folder git would not see (no file in it) is not a module.
      [ -n "$(find "$item" -type f -print -quit)" ] || continue
      named "$item" || PROBLEMS+=("$item/ is not named in the layout map ($MAP, ## Layout)")
    else
      case "$item" in */lib.rs | */main.rs | *[!s]) continue ;; esac
      [[ "$item" == *.rs ]] || continue
      named "$item" || PROBLEMS+=("$item is not named in the layout map ($MAP, ## Layout)")
    fi
  done < <(find "$dir" -mindepth 1 -maxdepth 1 -print0 | sort -z)
done

# Paths named elsewhere: the rest of docs/architecture.md (its flows) and the documentation of
# server/src/lib.rs. There a backticked word that looks like a path must exist, relative to the
# repository or to a source root it is written from (`store/dialect.rs` is
# server/src/store/dialect.rs, `holds/judge.rs` server/src/engine/holds/judge.rs).
ROOTS=("" server/src/ app/src/ server/ app/ server/src/engine/ server/src/http/)
elsewhere() { # FILE, then its text on stdin (line numbers kept)
  awk -v file="$1" '
    /^## Layout[[:space:]]*$/ && file ~ /architecture/ { skip = 1; next }
    skip && /^## / { skip = 0 }
    skip { next }
    {
      line = $0
      while (match(line, /`[^`]*`/)) {
        span = substr(line, RSTART + 1, RLENGTH - 2)
        line = substr(line, RSTART + RLENGTH)
        if (span ~ /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\/?$/ &&
            (span ~ /\// || span ~ /\.(rs|toml|yml|yaml|lua|sql|sh|ts|md)$/) &&
            span !~ /^\//)
          print NR "\t" span
      }
    }'
}
OTHER=0
while IFS=$'\t' read -r file line span; do
  [ -n "$file" ] || continue
  OTHER=$((OTHER + 1))
  found=""
  for root in "${ROOTS[@]}"; do
    [ -e "$root$span" ] && { found=1; break; }
  done
  [ -n "$found" ] || PROBLEMS+=("$file:$line: $span does not exist (nor under ${ROOTS[*]:1})")
done < <(
  elsewhere "$MAP" < "$MAP" | sed "s|^|$MAP\t|"
  grep -n '' server/src/lib.rs | sed -n 's/^\([0-9]*\)://p' | awk '{ print ($0 ~ /^\/\/!/) ? $0 : "" }' |
    elsewhere server/src/lib.rs | sed "s|^|server/src/lib.rs\t|"
)

if [ "${#PROBLEMS[@]}" -gt 0 ]; then
  printf '%s\n' "${PROBLEMS[@]}" >&2
  echo "layout map: ${#NAMED[@]} paths checked, $OTHER named elsewhere, ${#PROBLEMS[@]} problems" >&2
  exit 1
fi
echo "layout map: ${#NAMED[@]} paths checked, $OTHER named elsewhere"
