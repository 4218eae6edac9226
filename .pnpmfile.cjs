// Native addons (better-sqlite3) are compiled against the headers of the Node
// the workspace runs on, tools/node's Node 24 from the npm registry (ADR 0017),
// whatever `nodedir` a machine's npmrc names: a global `nodedir=/usr` points at
// the system Node's headers, and the addon would then be built for that Node's
// ABI and fail to load on Node 24. pnpm-workspace.yaml's packageExtensions makes
// the same Node run the addon's install script.
const { join } = require('node:path');

const runtime = join(__dirname, 'tools', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
const served = ['linux-x64', 'linux-arm64'].includes(`${process.platform}-${process.arch}`);

module.exports = {
  hooks: {
    updateConfig(config) {
      if (served) config.rawConfig = { ...config.rawConfig, nodedir: runtime };
      return config;
    },
  },
};
