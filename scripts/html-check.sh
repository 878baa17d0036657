#!/usr/bin/env bash
# scripts/html-check.sh — checks a page of `dotfuzz report DIR --html` in a
# real browser, and takes its screenshot.
#   usage: scripts/html-check.sh REPORT.html [SHOT.png]
#   env:   CHROMIUM (default: the first of chromium, chromium-browser,
#          google-chrome on PATH)
# Checks, each failure one line on stderr:
#   - the page: its first line is the answer ("Bugs in correct kernels: none"
#     or "... N distinct"), it refers to nothing outside itself (every src
#     and href a data: URI or an anchor; no <script>, <link>, <iframe>,
#     url() or @import), it has a plot;
#   - in headless Chromium (network names unresolvable): the first line of
#     the rendered text is the answer, and every <img> and <svg> rendered
#     with a size (a copy of the page with a probe script appended, read
#     back with --dump-dom);
# then writes SHOT.png (default REPORT.png beside it), the whole page at
# 1400 pixels wide. Exit status: 0 all checks pass, 1 one failed, 2 usage
# or an unreadable page, 3 no Chromium (Debian: apt-get install chromium).
# Nothing is downloaded; Chromium runs with a profile of its own in a
# temporary directory, removed at the end.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  '') usage >&2; exit 2 ;;
esac
page=$1
shot=${2:-${page%.html}.png}
[ -f "$page" ] && [ -r "$page" ] || { echo "html-check: cannot read $page" >&2; exit 2; }

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
  for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
  done
fi
[ -n "$browser" ] && command -v "$browser" >/dev/null 2>&1 ||
  { echo "html-check: no Chromium found (Debian: apt-get install chromium; or set CHROMIUM)" >&2; exit 3; }

fails=0
fail() { echo "html-check: $page: $*" >&2; fails=$((fails + 1)); }
answer_re='Bugs in correct kernels: (none|[1-9][0-9]* distinct)'

# ---- the page as written ----
first=$(sed -n 's/.*<body>//; /<h1/{s/<[^>]*>//g; p; q}' "$page")
echo "$first" | grep -Eqx "$answer_re" || fail "first heading is '$first', not the answer"
sed -n '/<body>/,$p' "$page" | grep -v '^$' | sed -n '2p' | grep -q '<h1 id="answer">' ||
  fail "the answer is not the body's first line"
outside=$(grep -Eo '(src|href)="[^"#][^"]{0,40}' "$page" | grep -Ev '="data:' | head -3 || true)
[ -z "$outside" ] || fail "refers outside itself: $(echo "$outside" | tr '\n' ' ')"
grep -Eiq '<(script|link|iframe|object|embed)[ >]|url\(|@import' "$page" &&
  fail "has a script, link, frame, url() or @import"
plots=$(grep -Eo '<img |<svg ' "$page" | wc -l)
[ "$plots" -gt 0 ] || fail "has no plot (<img> or <svg>)"

# ---- the page in Chromium ----
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chrome() {
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$tmp/profile" --host-resolver-rules='MAP * ~NOTFOUND' \
    --virtual-time-budget=10000 "$@" 2>"$tmp/chromium.log"
}
# the probe: the rendered text's first line, each image's and svg's size,
# the page's height, into an element --dump-dom shows
probe='<script>
addEventListener("load", () => {
  let bad = [], n = 0;
  for (const i of document.images) {
    n++;
    if (!i.complete || i.naturalWidth === 0 || i.getBoundingClientRect().width === 0)
      bad.push("img " + (i.alt || n));
  }
  for (const s of document.querySelectorAll("body svg")) {
    n++;
    if (s.getBoundingClientRect().width === 0) bad.push("svg " + n);
  }
  const p = document.createElement("pre");
  p.id = "df-html-check";
  p.textContent = "first=" + document.body.innerText.split("\n")[0].trim() + "\nplots=" + n +
    "\nbroken=" + bad.join(",") + "\nheight=" + document.documentElement.scrollHeight + "\n";
  document.body.appendChild(p);
});
</script>'
{ sed '/<\/body>/,$d' "$page"; printf '%s\n</body>\n</html>\n' "$probe"; } >"$tmp/page.html"
chrome --dump-dom "file://$tmp/page.html" >"$tmp/dom.html" ||
  { fail "Chromium failed to load it: $(tail -1 "$tmp/chromium.log")"; }
report=$(sed -n '/<pre id="df-html-check">/,/<\/pre>/p' "$tmp/dom.html" | sed 's/<[^>]*>//g')
[ -n "$report" ] || fail "the probe did not run in Chromium: $(tail -1 "$tmp/chromium.log")"
rfirst=$(echo "$report" | sed -n 's/^first=//p')
rplots=$(echo "$report" | sed -n 's/^plots=//p')
rbroken=$(echo "$report" | sed -n 's/^broken=//p')
height=$(echo "$report" | sed -n 's/^height=//p')
if [ -n "$report" ]; then
  echo "$rfirst" | grep -Eqx "$answer_re" || fail "rendered first line is '$rfirst', not the answer"
  [ -z "$rbroken" ] || fail "not rendered: $rbroken"
  [ "${rplots:-0}" -eq "$plots" ] || fail "$plots plots in the file, $rplots in the browser"
fi

# ---- the screenshot: the whole page, at most 16384 pixels high ----
height=${height:-2000}
[ "$height" -le 16384 ] || height=16384
mkdir -p "$(dirname "$shot")"
chrome --screenshot="$tmp/shot.png" --window-size="1400,$height" "file://$(realpath "$page")" >/dev/null ||
  fail "Chromium took no screenshot: $(tail -1 "$tmp/chromium.log")"
if [ -s "$tmp/shot.png" ] && [ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]; then
  mv "$tmp/shot.png" "$shot"
else
  fail "the screenshot is not a PNG"
fi

if [ "$fails" -gt 0 ]; then
  echo "FAIL $page: $fails check(s) failed" >&2
  exit 1
fi
echo "PASS $page: '$rfirst'; $plots plots rendered; screenshot $shot (1400x$height)"
