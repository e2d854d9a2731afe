#!/bin/sh
# Unpack a newer Debian build of an editor (with that suite's glibc) into PREFIX, without touching the
# system's apt configuration, apt cache or installed packages, and write PREFIX/BIN, a wrapper that runs it.
#
#   debian-tool.sh SUITE PACKAGE BIN PREFIX [EXTRA_PACKAGE...]
#   debian-tool.sh trixie neovim nvim /opt/nvim-0.10   -> /opt/nvim-0.10/nvim   (Neovim 0.10.x)
#   debian-tool.sh sid    neovim nvim /opt/nvim-sid    -> /opt/nvim-sid/nvim    (0.11+; sid moves)
#   debian-tool.sh trixie hx     hx   /opt/helix       -> /opt/helix/hx         (Helix 25.x)
#   debian-tool.sh bookworm emacs-nox emacs-nox /opt/emacs emacs-el elpa-eglot   -> /opt/emacs/emacs-nox
#
# EXTRA_PACKAGEs are unpacked too (not their dependencies: name those as well), e.g. Emacs Lisp packages.
# Normally called through ensure-editor.sh, which adds caching and locking. The archive address is read
# from this machine's own apt sources. Child processes that the editor starts (node, the language server)
# run on the system's libraries, not the unpacked ones, because the wrapper passes the library path to the
# dynamic loader instead of exporting LD_LIBRARY_PATH.
set -eu
[ $# -ge 4 ] || { echo "usage: debian-tool.sh SUITE PACKAGE BIN PREFIX [EXTRA_PACKAGE...]" >&2; exit 2; }
SUITE=$1; PKG=$2; BIN=$3; PREFIX=$4; shift 4; EXTRA="$*"
W=$PREFIX/.apt; mkdir -p "$W/lists/partial" "$W/cache/archives/partial" "$W/debs" "$PREFIX/root"

case $(dpkg --print-architecture) in
  amd64) TRIPLET=x86_64-linux-gnu; LDSO=ld-linux-x86-64.so.2 ;;
  arm64) TRIPLET=aarch64-linux-gnu; LDSO=ld-linux-aarch64.so.1 ;;
  *) echo "debian-tool.sh: unsupported architecture $(dpkg --print-architecture)" >&2; exit 1 ;;
esac

URI=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
[ -n "$URI" ] || URI=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
[ -n "$URI" ] || { echo "debian-tool.sh: no Debian archive found in /etc/apt sources" >&2; exit 1; }
echo "deb $URI $SUITE main" > "$W/sources.list"

# Private lists and a private package cache: apt-cache would otherwise rebuild /var/cache/apt/pkgcache.bin
# from the foreign suite, and two installs running at once would race on it.
A="-o Dir::Etc::sourcelist=$W/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$W/lists -o Dir::Cache=$W/cache -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
apt-get $A update >/dev/null
# the package's direct Depends (first of each alternative), plus the suite's own C runtime
DEPS=$(apt-cache $A show "$PKG" | awk -F': ' '/^Depends:/{print $2; exit}' | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g; s/:any//')
[ -n "$DEPS" ] || { echo "debian-tool.sh: $PKG not found in $SUITE" >&2; exit 1; }
cd "$W/debs"
for p in "$PKG" $DEPS $EXTRA libc6 libgcc-s1 libstdc++6; do apt-get $A download "$p" >/dev/null 2>&1 || echo "debian-tool.sh: note: could not download $p" >&2; done
for d in *.deb; do dpkg-deb -x "$d" "$PREFIX/root"; done
# Suites before trixie keep the C library in /lib, later ones in /usr/lib.
L=$PREFIX/root/lib/$TRIPLET:$PREFIX/root/usr/lib/$TRIPLET
LDSO_PATH=$PREFIX/root/usr/lib/$TRIPLET/$LDSO
[ -e "$LDSO_PATH" ] || LDSO_PATH=$PREFIX/root/lib/$TRIPLET/$LDSO
# second-level deps that the unpacked binary still misses
for lib in $(LD_LIBRARY_PATH=$L ldd "$PREFIX/root/usr/bin/$BIN" 2>/dev/null | awk '/not found/{print $1}'); do
  p=$(apt-cache $A search --names-only "^$(echo "$lib" | sed 's/\.so.*//; s/_/-/g')" 2>/dev/null | awk 'NR==1{print $1}')
  [ -n "$p" ] && apt-get $A download "$p" >/dev/null 2>&1 && dpkg-deb -x "$p"_*.deb "$PREFIX/root" || true
done

# Emacs looks for its Lisp, data and dump file where Debian installs them; point it at the unpacked ones.
# Its site-lisp is on the load path as in an installed Emacs, so ELPA packages under site-lisp/elpa are
# found by package.el (package-directory-list) the same way.
EMACS_ARGS=
for lisp in "$PREFIX"/root/usr/share/emacs/[0-9]*/lisp; do
  [ -d "$lisp" ] || continue
  V=$(basename "$(dirname "$lisp")")
  EMACS_ENV="export EMACSLOADPATH=$lisp:$PREFIX/root/usr/share/emacs/site-lisp EMACSDATA=$PREFIX/root/usr/share/emacs/$V/etc EMACSDOC=$PREFIX/root/usr/share/emacs/$V/etc EMACSPATH=$PREFIX/root/usr/libexec/emacs/$V/$TRIPLET"
  EMACS_ARGS="--dump-file=$PREFIX/root/usr/libexec/emacs/$V/$TRIPLET/emacs.pdmp"
done
{
  echo '#!/bin/sh'
  [ -d "$PREFIX/root/usr/share/nvim/runtime" ] && echo "export VIMRUNTIME=$PREFIX/root/usr/share/nvim/runtime"
  [ -d "$PREFIX/root/usr/lib/hx/runtime" ] && echo "export HELIX_RUNTIME=$PREFIX/root/usr/lib/hx/runtime"
  [ -n "$EMACS_ARGS" ] && echo "$EMACS_ENV"
  echo "exec $LDSO_PATH --library-path $L $PREFIX/root/usr/bin/$BIN $EMACS_ARGS \"\$@\""
} > "$PREFIX/$BIN"
chmod +x "$PREFIX/$BIN"
# the downloaded .debs and lists are only needed during the install
cd / && rm -rf "$W"
"$PREFIX/$BIN" --version | head -n1
