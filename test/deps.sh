#!/usr/bin/env bash
# Installs the Debian test dependencies that are missing (when root), and the
# npm packages of the independent Arrow/Parquet readers and of the rendering test.
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing test dependencies: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y "${missing[@]}" || { apt-get update && apt-get install -y "${missing[@]}"; }
  else
    echo "missing test dependencies; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/interop/package-lock.json" ] && [ ! -d "$here/interop/node_modules" ]; then
  echo "installing npm test dependencies (DuckDB, apache-arrow)"
  npm install --prefix "$here/interop" --no-audit --no-fund
fi
# Reinstalled also when node_modules lacks a package that package.json names (one added since).
npm_missing() {
  node -e 'const d=require(process.argv[1]+"/package.json").dependencies||{};
    process.exit(Object.keys(d).some(p=>!require("fs").existsSync(process.argv[1]+"/node_modules/"+p+"/package.json"))?0:1)' "$1"
}
if [ -f "$here/render/package-lock.json" ] && { [ ! -d "$here/render/node_modules" ] || npm_missing "$here/render"; }; then
  echo "installing npm test dependencies (playwright-core, pngjs, vega, vega-lite, ajv; the browser is Debian's chromium)"
  npm install --prefix "$here/render" --no-audit --no-fund
fi
command -v node >/dev/null || { echo "node (Node.js) is needed for the interop and rendering tests" >&2; exit 1; }
