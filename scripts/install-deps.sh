#!/usr/bin/env bash
# install-deps.sh — installs what dotfuzz needs to build and test when it is
# missing, with the system's package manager: apt-get (Debian, Ubuntu), dnf
# (Fedora, RHEL and its rebuilds) or zypper (openSUSE). Safe to rerun: it
# installs nothing that is already there. The CUDA toolkit is optional
# (without nvcc the build is host-only); it is not installed here.
#
# Usage: scripts/install-deps.sh [--build-only] [--print]
#   --build-only  only what building ./dotfuzz needs (cc, make, zlib,
#                 nettle), not the test, libFuzzer, report and man page tools
#   --print       install nothing: print what is missing, one line per
#                 package manager, and exit 0
# Without root or sudo, or without a package manager it knows, it prints the
# same lines and exits 0: the build that follows says what still stops it.
set -euo pipefail

build_only=0
print_only=0
for arg in "$@"; do
  case "$arg" in
    --build-only) build_only=1 ;;
    --print) print_only=1 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

# One dependency a line: its name (what present() checks), the set it is in
# (build: ./dotfuzz itself; test: make test, make libfuzzer, dotfuzz report's
# plots, make install's man page), then its package for apt-get, dnf, zypper.
deps='
cc          build  gcc               gcc                  gcc
make        build  make              make                 make
zlib        build  zlib1g-dev        zlib-devel           zlib-devel
nettle      build  nettle-dev        nettle-devel         libnettle-devel
criterion   test   libcriterion-dev  criterion-devel      criterion-devel
mpfr        test   libmpfr-dev       mpfr-devel           mpfr-devel
gnuplot     test   gnuplot-nox       gnuplot              gnuplot
xmllint     test   libxml2-utils     libxml2              libxml2-tools
afl-whatsup test   afl++             american-fuzzy-lop   afl
python3     test   python3           python3              python3
pandas      test   python3-pandas    python3-pandas       python3-pandas
addr2line   test   binutils          binutils             binutils
clang       test   clang             clang                clang
libfuzzer   test   libclang-rt-dev   compiler-rt          compiler-rt
pkg-config  test   pkgconf           pkgconf-pkg-config   pkg-config
help2man    test   help2man          help2man             help2man
'

have_header() { echo "#include <$1>" | cc -E -x c - >/dev/null 2>&1; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
# clang links a libFuzzer target: the runtime matching the default clang
have_libfuzzer() {
  local probe=/tmp/dotfuzz-lf-probe.$$ rc=0
  echo 'int LLVMFuzzerTestOneInput(const unsigned char*d, unsigned long n){return 0;}' |
    clang -fsanitize=fuzzer -x c - -o "$probe" >/dev/null 2>&1 || rc=1
  rm -f "$probe"
  return $rc
}

present() {
  case "$1" in
    zlib) have_header zlib.h ;;
    nettle) have_header nettle/sha1.h ;;       # SHA-1 of case files
    criterion) have_header criterion/criterion.h ;;
    mpfr) have_header mpfr.h ;;                # tests: the independent exact oracle
    gnuplot) have_cmd gnuplot ;;               # dotfuzz report: plots (pngcairo, svg)
    xmllint) have_cmd xmllint ;;               # tests: the smoke JUnit XML against its schema
    python3) have_cmd python3 ;;               # tests: scripts/cpu-profile.py, scripts/layers.py
    pandas) python3 -c 'import pandas' >/dev/null 2>&1 ||      # tests: the TSV tables read by
            /usr/bin/python3 -c 'import pandas' >/dev/null 2>&1 ;;  # pandas (apt's: the system's)
    addr2line) have_cmd addr2line ;;           # scripts/cpu-profile.py
    libfuzzer) have_cmd clang && have_libfuzzer ;;   # make libfuzzer
    *) have_cmd "$1" ;;                        # cc, make, clang, pkg-config, help2man,
                                               # afl-whatsup (tests: AFL++ reads a campaign)
  esac
}

in_missing() { local m; for m in "${missing[@]}"; do [ "$m" = "$1" ] && return 0; done; return 1; }

# the missing dependencies' packages for one package manager: column col
# of deps (3 apt-get, 4 dnf, 5 zypper)
missing_pkgs() {
  local col=$1 name apt dnf zypper pkgs=()
  while read -r name _ apt dnf zypper; do
    [ -n "$name" ] || continue
    in_missing "$name" || continue
    case "$col" in 3) pkgs+=("$apt") ;; 4) pkgs+=("$dnf") ;; 5) pkgs+=("$zypper") ;; esac
  done <<<"$deps"
  echo "${pkgs[*]-}"
}

missing=()
while read -r name group _; do
  [ -n "$name" ] || continue
  [ "$group" = build ] || [ "$build_only" = 0 ] || continue
  present "$name" || missing+=("$name")
done <<<"$deps"

what="build and test"
[ "$build_only" = 0 ] || what="build"
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all $what dependencies present"
  exit 0
fi

print_lists() {
  echo "install-deps: missing ${missing[*]}; to install them:"
  echo "  Debian/Ubuntu:  apt-get install $(missing_pkgs 3)"
  echo "  Fedora/RHEL:    dnf install $(missing_pkgs 4)"
  echo "  openSUSE:       zypper install $(missing_pkgs 5)"
}

pm=""
for p in apt-get dnf zypper; do
  if have_cmd "$p"; then pm=$p; break; fi
done
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if have_cmd sudo; then sudo="sudo"; else sudo="none"; fi
fi

if [ "$print_only" = 1 ]; then
  print_lists
  exit 0
fi
if [ -z "$pm" ] || [ "$sudo" = none ]; then
  print_lists
  if [ -z "$pm" ]; then
    echo "install-deps: no apt-get, dnf or zypper here: install the packages above by hand"
  else
    echo "install-deps: not root and no sudo: ask for the packages above, or install them by hand"
  fi
  echo "install-deps: nothing installed (docs/install.md says what each one is for)"
  exit 0
fi

case "$pm" in
  apt-get)
    pkgs=$(missing_pkgs 3)
    echo "install-deps: installing $pkgs"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    $sudo apt-get install -y -qq --no-install-recommends $pkgs ;;
  dnf)
    pkgs=$(missing_pkgs 4)
    echo "install-deps: installing $pkgs"
    # shellcheck disable=SC2086
    $sudo dnf install -y -q $pkgs ;;
  zypper)
    pkgs=$(missing_pkgs 5)
    echo "install-deps: installing $pkgs"
    # shellcheck disable=SC2086
    $sudo zypper --non-interactive install --no-recommends $pkgs ;;
esac
