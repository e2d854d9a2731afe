#!/bin/sh
# Install a real VS Code workbench (code-server 4.100.3 = VS Code 1.100.3) into DIR, with no download
# outside Debian and the npm registry. Newer code-server releases need Node 24 and fail on Node 20.
#
#   code-server.sh DIR        -> DIR/node_modules/.bin/code-server
#
# Normally called through ensure-editor.sh (caching, locking). Chromium, which drives the workbench, is
# installed separately (ensure-editor.sh chromium).
set -eu
[ $# -eq 1 ] || { echo "usage: code-server.sh DIR" >&2; exit 2; }
DIR=$1
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

# native build dependencies of code-server's modules, and ripgrep for its search
export DEBIAN_FRONTEND=noninteractive
need=""
for p in libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev pkg-config ripgrep python3 make g++; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
  echo "code-server.sh: installing Debian packages:$need" >&2
  # other test workers or engineers may hold dpkg's lock; wait for it instead of failing
  apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends $need >/dev/null 2>&1 || {
    apt-get -o DPkg::Lock::Timeout=600 update >/dev/null
    apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends $need >/dev/null
  } || { echo "code-server.sh: could not install$need; run: apt-get install -y$need" >&2; exit 1; }
fi

# @vscode/ripgrep downloads its binary from GitHub at install time unless it finds it in its cache: give it
# Debian's ripgrep under the name it looks for
T=$DIR/.tmp; mkdir -p "$T/vscode-ripgrep-cache-1.15.11" "$T/rg"
cp "$(command -v rg)" "$T/rg/rg"
case $(uname -m) in
  x86_64) RGT=x86_64-unknown-linux-musl ;;
  aarch64) RGT=aarch64-unknown-linux-musl ;;
  *) echo "code-server.sh: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
tar -C "$T/rg" -czf "$T/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-$RGT.tar.gz" rg

cd "$DIR"
[ -f package.json ] || echo '{"name":"code-server-host","private":true}' > package.json
TMPDIR=$T npm_config_yes=true npm_config_unsafe_perm=true \
  npm install --no-audit --no-fund --foreground-scripts code-server@4.100.3 >"$DIR/install.log" 2>&1 \
  || { tail -n 40 "$DIR/install.log" >&2; exit 1; }
rm -rf "$T"
