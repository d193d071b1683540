// Finishes pkg/ for scripts/build-pkg.sh: the CommonJS type declarations (each .d.ts again
// as .d.cts, its relative imports pointing at .cjs, so that TypeScript reads a `require` of
// the package as CommonJS: what @arethetypeswrong/cli checks), package.json, and the README's
// links (README.md is docs/package.md, whose links to the other docs are relative: npm shows it
// away from the repository, so they are made absolute on it).
//
//   node scripts/pkg-manifest.mjs <pkg dir> <version>
//
// The repository the package names (npm's provenance checks it against the workflow that
// publishes): TOKENPAD_REPOSITORY_URL, else GITHUB_REPOSITORY (set in GitHub Actions), else
// `git remote get-url origin`, else tokenpad's own.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [dir, version] = process.argv.slice(2);
if (!dir || !version) {
  console.error('usage: node scripts/pkg-manifest.mjs <pkg dir> <version>');
  process.exit(2);
}

// 1. .d.cts beside every .d.ts (generated/ included).
function declarations(d) {
  return readdirSync(d).flatMap((name) => {
    const p = path.join(d, name);
    if (statSync(p).isDirectory()) return declarations(p);
    return name.endsWith('.d.ts') ? [p] : [];
  });
}
for (const file of declarations(dir)) {
  const text = readFileSync(file, 'utf8').replace(/(['"])(\.\.?\/[^'"]*?)\.js\1/g, '$1$2.cjs$1');
  writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), text);
}

// 2. package.json.
function repositoryUrl() {
  if (process.env.TOKENPAD_REPOSITORY_URL) return process.env.TOKENPAD_REPOSITORY_URL;
  if (process.env.GITHUB_REPOSITORY) return `https://github.com/${process.env.GITHUB_REPOSITORY}`;
  try {
    const origin = execFileSync('git', ['remote', 'get-url', 'origin'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const m = /github\.com[:/](.+?)(\.git)?$/.exec(origin);
    if (m) return `https://github.com/${m[1]}`;
  } catch {
    // No git, or no origin: the default below.
  }
  return 'https://github.com/tokenpad/tokenpad';
}
const repo = repositoryUrl().replace(/\/+$/, '').replace(/\.git$/, '');

/** An entry with its ESM and CommonJS builds, each with its own declarations. */
const dual = (name, cjs = name) => ({
  import: { types: `./${name}.d.ts`, default: `./${name}.js` },
  require: { types: `./${cjs}.d.cts`, default: `./${cjs}.cjs` },
});
const esm = (file) => ({ types: './index.d.ts', default: file });

const manifest = {
  name: '@tokenpad/client',
  version,
  description: 'tokenpad for JavaScript: a public-key client with live updates and view models (Rust compiled to WebAssembly), a secret-key server client, a Metal SDK-compatible client, React hooks, TanStack Query options',
  license: 'Apache-2.0',
  repository: { type: 'git', url: `git+${repo}.git` },
  homepage: `${repo}/blob/HEAD/docs/package.md`,
  bugs: { url: `${repo}/issues` },
  type: 'module',
  main: './node.cjs',
  module: './index.js',
  types: './index.d.ts',
  // The first matching condition wins: workerd (wrangler) imports the .wasm as a module; node
  // reads the file; webpack and vite (development/production) get the `new URL(...,
  // import.meta.url)` entry they copy the wasm for; esbuild (browser) the entry with the wasm
  // inside; anything else (a browser loading the files) the URL entry.
  exports: {
    '.': {
      workerd: esm('./workerd.js'),
      node: {
        import: esm('./node.js'),
        require: { types: './index.d.cts', default: './node.cjs' },
      },
      webpack: esm('./index.js'),
      development: esm('./index.js'),
      production: esm('./index.js'),
      browser: esm('./inline.js'),
      default: esm('./index.js'),
    },
    './init': dual('init'),
    './web': dual('web'),
    './server': dual('server'),
    './metal': dual('metal'),
    './react': dual('react'),
    './query': dual('query'),
    './tokenpad_bg.wasm': './tokenpad_bg.wasm',
    './package.json': './package.json',
  },
  files: ['*.js', '*.cjs', '*.d.ts', '*.d.cts', 'generated', 'tokenpad_bg.wasm', 'README.md', 'LICENSE'],
  sideEffects: ['./index.js', './inline.js', './workerd.js', './node.js', './node.cjs'],
  peerDependencies: { react: '>=18', ws: '>=8' },
  peerDependenciesMeta: { react: { optional: true }, ws: { optional: true } },
  engines: { node: '>=20.3' },
  publishConfig: { access: 'public' },
  keywords: ['tokenpad', 'metal', 'tokens', 'presale', 'wasm', 'react', 'tanstack-query', 'cloudflare-workers'],
};
writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

// 3. README.md's relative links (`metal.md`, `../README.md#...`), made absolute on the
// repository's docs/ (code blocks left as they are).
const readmePath = path.join(dir, 'README.md');
if (existsSync(readmePath)) {
  const docsBase = `${repo}/blob/HEAD/docs/`;
  let fenced = false;
  const lines = readFileSync(readmePath, 'utf8').split('\n').map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) return line;
    return line.replace(/\]\(([^)\s]+)\)/g, (whole, target) =>
      /^(?:[a-z][a-z+.-]*:|#)/i.test(target) ? whole : `](${new URL(target, docsBase).href})`);
  });
  writeFileSync(readmePath, lines.join('\n'));
}
