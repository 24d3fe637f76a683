'use strict';
/**
 * First step of `npm start` and `npm test`, in plain Node because no npm package may be installed
 * yet: checks the Node.js version and runs `npm install` when node_modules is missing or older
 * than package.json / package-lock.json. Then the script's next command (tsx …) runs as usual.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const MINIMUM_NODE = [20, 19];
/** Written after every successful install: node_modules is as new as this file. */
const STAMP = path.join('node_modules', '.corelite-installed');
/** npm's own record of the tree it installed, for a tree installed without this script. */
const NPM_TREE = path.join('node_modules', '.package-lock.json');

function mtimeOf(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Why an install is needed in `root`, or undefined when node_modules is up to date. */
function installReason(root) {
  const installed = mtimeOf(path.join(root, STAMP)) ?? mtimeOf(path.join(root, NPM_TREE));
  if (installed === undefined) return 'node_modules is missing';
  for (const manifest of ['package.json', 'package-lock.json']) {
    const changed = mtimeOf(path.join(root, manifest));
    if (changed !== undefined && changed > installed) return `${manifest} is newer than node_modules`;
  }
  return undefined;
}

function nodeIsRecentEnough(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
}

function main() {
  const root = path.join(__dirname, '..');
  if (!nodeIsRecentEnough(process.version)) {
    process.stderr.write(`corelite needs Node.js ${MINIMUM_NODE.join('.')} or newer; this is ${process.version}\n`);
    return 1;
  }
  const reason = installReason(root);
  if (reason === undefined) return 0;
  process.stdout.write(`bootstrap: ${reason}; running npm install (once, about a minute)\n`);
  // The npm that runs this script, when there is one; otherwise the npm on PATH.
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli ? [process.execPath, [npmCli]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
  const result = spawnSync(command, [...args, 'install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(
      `bootstrap: npm install failed (exit code ${result.status ?? result.signal}); fix the error above and run the command again\n`,
    );
    return 1;
  }
  fs.writeFileSync(path.join(root, STAMP), `${new Date().toISOString()}\n`);
  return 0;
}

if (require.main === module) process.exit(main());

module.exports = { installReason, nodeIsRecentEnough };
