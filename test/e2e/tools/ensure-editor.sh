#!/bin/sh
# Make sure a real editor is available for the end-to-end tests and print the path of its binary.
#
#   test/e2e/tools/ensure-editor.sh nvim-0.10|nvim-sid|helix|helix-sid|emacs|code-server|chromium
#
# code-server (VS Code 1.100.3 in a browser) comes from the npm registry (tools/code-server.sh); chromium,
# which drives it, is Debian's /usr/bin/chromium, installed with apt-get when missing (it is a system
# package: it is not kept in the cache).
#
# Installs into $INTENT_LSP_EDITOR_CACHE/<name> (default <repo>/.cache/editors/<name>) only when it is not
# there yet, so repeated and concurrent calls (two vitest workers) are cheap and safe: the install runs
# under an exclusive flock per editor, and a finished install is marked only after its binary ran.
# Progress goes to stderr; stdout is exactly one line, the binary's path.
set -eu
USAGE="usage: ensure-editor.sh nvim-0.10|nvim-sid|helix|helix-sid|emacs|code-server|chromium"
[ $# -eq 1 ] || { echo "$USAGE" >&2; exit 2; }
NAME=$1
EXTRA=
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
CACHE=${INTENT_LSP_EDITOR_CACHE:-$REPO/.cache/editors}

case $NAME in
  nvim-0.10) SUITE=trixie; PKG=neovim; BIN=nvim; WANT='^NVIM v0\.10\.' ;;
  nvim-sid)  SUITE=sid;    PKG=neovim; BIN=nvim; WANT='^NVIM v0\.(1[1-9]|[2-9][0-9])\.' ;;
  helix)     SUITE=trixie; PKG=hx;     BIN=hx;   WANT='^helix 25\.01\.' ;;
  helix-sid) SUITE=sid;    PKG=hx;     BIN=hx;   WANT='^helix (25\.(0[2-9]|1[0-2])|2[6-9]|[3-9][0-9])\.' ;;
  # Emacs 28 as Debian 12 ships it, with eglot and lsp-mode from Debian's ELPA packages (and what they
  # depend on), unpacked under site-lisp/elpa and byte-compiled as Debian's install would.
  emacs)     SUITE=bookworm; PKG=emacs-nox; BIN=emacs-nox; WANT='^GNU Emacs 28\.'
             EXTRA="emacs-el elpa-eglot elpa-project elpa-xref elpa-seq elpa-lsp-mode elpa-dash elpa-f elpa-s elpa-ht elpa-spinner elpa-markdown-mode elpa-lv elpa-flycheck elpa-pkg-info elpa-let-alist elpa-epl" ;;
  code-server) SUITE=; PKG=code-server; BIN=node_modules/.bin/code-server; WANT='^4\.100\.3 .*with Code 1\.100\.3' ;;
  chromium)
    if [ ! -x /usr/bin/chromium ]; then
      mkdir -p "$CACHE"
      exec 9>"$CACHE/apt-install.lock"
      flock 9
      if [ ! -x /usr/bin/chromium ]; then
        echo "ensure-editor.sh: installing Debian's chromium (apt-get install -y chromium)" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium >&2 || {
          apt-get -o DPkg::Lock::Timeout=600 update >&2
          apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium >&2
        } || { echo "ensure-editor.sh: could not install Chromium; run as root: apt-get update && apt-get install -y chromium" >&2; exit 1; }
      fi
      flock -u 9
    fi
    /usr/bin/chromium --version >&2 || { echo "ensure-editor.sh: /usr/bin/chromium does not run; reinstall it: apt-get install --reinstall -y chromium" >&2; exit 1; }
    echo /usr/bin/chromium
    exit 0 ;;
  *) echo "ensure-editor.sh: unknown editor '$NAME' ($USAGE)" >&2; exit 2 ;;
esac
PREFIX=$CACHE/$NAME
MARK=$PREFIX/.installed
# An install with extra packages records them; a changed list installs again.
installed() { [ -f "$MARK" ] && { [ -z "$EXTRA" ] || grep -qxF "extra: $EXTRA" "$MARK"; }; }

if ! installed; then
  for tool in flock apt-get apt-cache dpkg-deb ldd; do
    command -v "$tool" >/dev/null 2>&1 || { echo "ensure-editor.sh: '$tool' is required (Debian/Ubuntu host)" >&2; exit 1; }
  done
  mkdir -p "$CACHE"
  # The lock lives beside the prefix, not inside it, because a broken prefix is wiped under the lock.
  exec 9>"$CACHE/$NAME.lock"
  flock 9
  if ! installed; then
    # debian-tool.sh reads only its private lists, but a fresh container has no system lists either, and
    # other e2e helpers (tmux for Helix, emacs) are apt-get installed; updating here, once, under a lock,
    # keeps two test workers from tripping over apt's own lock.
    if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
      exec 8>"$CACHE/apt-update.lock"
      flock 8
      if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
        echo "ensure-editor.sh: apt lists are empty, running apt-get update" >&2
        apt-get update >&2 || echo "ensure-editor.sh: note: apt-get update failed (not root?)" >&2
      fi
      flock -u 8
    fi
    rm -rf "$PREFIX"
    start=$(date +%s)
    if [ "$NAME" = code-server ]; then
      echo "ensure-editor.sh: installing code-server 4.100.3 (npm) into $PREFIX" >&2
      "$HERE/code-server.sh" "$PREFIX" >&2
      # code-server prints its version last; a private config dir keeps it from writing to the user's
      version=$(XDG_CONFIG_HOME="$PREFIX/.xdg" "$PREFIX/$BIN" --version 2>/dev/null | tail -n1)
    else
      echo "ensure-editor.sh: installing $NAME ($PKG from Debian $SUITE) into $PREFIX" >&2
      # shellcheck disable=SC2086 # EXTRA is a list of package names
      "$HERE/debian-tool.sh" "$SUITE" "$PKG" "$BIN" "$PREFIX" $EXTRA >&2
      if [ -d "$PREFIX/root/usr/share/emacs/site-lisp/elpa-src" ]; then
        "$PREFIX/$BIN" --batch -Q -l "$HERE/elpa-install.el" "$PREFIX/root/usr/share/emacs/site-lisp" >&2
      fi
      version=$("$PREFIX/$BIN" --version 2>&1 | head -n1)
    fi
    echo "$version" | grep -Eq "$WANT" || {
      echo "ensure-editor.sh: $NAME installed but reports '$version' (expected /$WANT/)" >&2; exit 1; }
    { echo "$version"; [ -z "$EXTRA" ] || echo "extra: $EXTRA"; } > "$MARK"
    echo "ensure-editor.sh: $NAME ready in $(( $(date +%s) - start ))s: $version" >&2
  fi
  flock -u 9
fi
echo "$PREFIX/$BIN"
