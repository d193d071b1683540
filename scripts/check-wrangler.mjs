// Checks that tokenpad's two Worker configurations agree (scripts/test.sh runs it):
// crates/worker/wrangler.toml (the front) and crates/worker/ledger/wrangler.toml (the ledger),
// read as wrangler reads them, environment by environment:
//   - the same vars: both Workers read the chain's configuration and the dev flags, and a var
//     changed in one file alone would have the front and the ledgers disagree on the chain;
//   - the front binds MERCHANT, REGISTRY and RELAY to the ledger Worker of the same
//     environment (`script_name`, named as wrangler names it), and ACCOUNT to itself;
//   - the ledger binds those three classes to itself, and each Worker's migrations create
//     exactly the classes it holds.
// Exit code 1, with every disagreement listed, when they do not agree.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { unstable_readConfig: readConfig, experimental_readRawConfig: readRaw } = require('wrangler');

const FRONT = path.join(ROOT, 'crates/worker/wrangler.toml');
const LEDGER = path.join(ROOT, 'crates/worker/ledger/wrangler.toml');
const LEDGER_CLASSES = { MERCHANT: 'MerchantObject', REGISTRY: 'RegistryObject', RELAY: 'RelayObject' };
const FRONT_CLASSES = { ACCOUNT: 'AccountObject' };

const read = (config, env) => readConfig({ config, env }, { hideWarnings: true });
const envs = (config) => Object.keys(readRaw({ config }).rawConfig.env ?? {});
const problems = [];
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const bindings = (config) => Object.fromEntries(config.durable_objects.bindings.map((b) => [b.name, b]));
const created = (config) => new Set(config.migrations.flatMap((m) => m.new_sqlite_classes ?? []));

const frontEnvs = envs(FRONT).sort();
const ledgerEnvs = envs(LEDGER).sort();
if (!same(frontEnvs, ledgerEnvs)) problems.push(`environments differ: front [${frontEnvs}], ledger [${ledgerEnvs}]`);

for (const env of [undefined, ...frontEnvs]) {
  const at = env ? `env ${env}` : 'top level';
  const front = read(FRONT, env);
  const ledger = read(LEDGER, env);
  const ledgerName = env ? `tokenpad-ledger-${env}` : 'tokenpad-ledger';
  if (ledger.name !== ledgerName) problems.push(`${at}: the ledger Worker is named ${ledger.name}, not ${ledgerName}`);
  const keys = new Set([...Object.keys(front.vars ?? {}), ...Object.keys(ledger.vars ?? {})]);
  const differ = [...keys].filter((k) => !same(front.vars?.[k], ledger.vars?.[k]));
  if (differ.length) problems.push(`${at}: vars differ: ${differ.join(', ')}`);
  const fb = bindings(front);
  const lb = bindings(ledger);
  for (const [name, cls] of Object.entries(LEDGER_CLASSES)) {
    if (fb[name]?.class_name !== cls || fb[name]?.script_name !== ledgerName) {
      problems.push(`${at}: the front's ${name} must bind ${cls} of ${ledgerName}, not ${JSON.stringify(fb[name])}`);
    }
    if (lb[name]?.class_name !== cls || lb[name]?.script_name) problems.push(`${at}: the ledger's ${name} must bind its own ${cls}`);
  }
  for (const [name, cls] of Object.entries(FRONT_CLASSES)) {
    if (fb[name]?.class_name !== cls || fb[name]?.script_name) problems.push(`${at}: the front's ${name} must bind its own ${cls}`);
  }
  if (Object.keys(lb).length !== Object.keys(LEDGER_CLASSES).length) problems.push(`${at}: the ledger binds ${Object.keys(lb)}`);
  if (!same([...created(front)].sort(), Object.values(FRONT_CLASSES).sort())) problems.push(`${at}: the front's migrations create ${[...created(front)]}`);
  if (!same([...created(ledger)].sort(), Object.values(LEDGER_CLASSES).sort())) problems.push(`${at}: the ledger's migrations create ${[...created(ledger)]}`);
}

if (problems.length) {
  console.error(`check-wrangler: the two Worker configurations disagree:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-wrangler: the front and the ledger agree (top level and ${frontEnvs.length} environments: ${frontEnvs.join(', ')})`);
