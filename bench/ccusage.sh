# Sourced by the bench scripts that compare with ccusage (replay.sh,
# tokens.sh): installs the pinned ccusage from npm into a cache outside the
# repository on first use, and sets $ccusage to its binary.
ccusage_version=20.0.24
ccusage_cache=${XDG_CACHE_HOME:-$HOME/.cache}/cully-bench/ccusage
ccusage=$ccusage_cache/node_modules/.bin/ccusage
if ! grep -qs "\"version\": \"$ccusage_version\"" "$ccusage_cache/node_modules/ccusage/package.json"; then
  command -v npm >/dev/null || { echo "$0 needs npm (Node.js) to install ccusage"; exit 1; }
  echo "installing ccusage@$ccusage_version into $ccusage_cache…"
  mkdir -p "$ccusage_cache"
  npm install --prefix "$ccusage_cache" --no-audit --no-fund --loglevel=error "ccusage@$ccusage_version" >/dev/null
fi
