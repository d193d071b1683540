// The npm package as a user gets it: `npm pack pkg/`, installed from the tarball into a fresh
// project (a real copy, not a link), with extra packages of the repo's node_modules linked in
// when a test needs them (react, the bundlers).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PKG = path.join(ROOT, 'pkg');

/** Packs pkg/ and installs it into `<tmp>/app`; `link` names packages of the repo's node_modules to make available. */
export async function installPacked({ link = [], type = 'module' } = {}) {
  assert.ok(existsSync(path.join(PKG, 'package.json')), 'pkg/ is not built: run scripts/build-pkg.sh');
  const dir = await mkdtemp(path.join(tmpdir(), 'tokenpad-consumer-'));
  await run('npm', ['pack', PKG, '--pack-destination', dir, '--silent'], { cwd: dir });
  const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack made no tarball');
  const app = path.join(dir, 'app');
  await mkdir(app, { recursive: true });
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type }));
  await run('npm', ['install', path.join(dir, tarball), '--no-audit', '--no-fund', '--ignore-scripts', '--silent', '--no-package-lock'], { cwd: app });
  for (const name of link) {
    const to = path.join(app, 'node_modules', name);
    if (existsSync(to)) continue;
    await mkdir(path.dirname(to), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules', name), to);
  }
  return {
    dir,
    app,
    tarball: path.join(dir, tarball),
    installed: path.join(app, 'node_modules', '@tokenpad', 'client'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A fresh app with real copies (not links) of the repo's `peers` (packed from its node_modules,
 * as npm would install them from the registry), and @tokenpad/client installed `how`: from
 * its tarball (as from the registry), by path as a copy (`--install-links`), or by path as npm
 * does by default (a link to pkg/, which resolves its own imports from this checkout).
 */
export async function installApp({ how = 'tarball', peers = [], type = 'module' } = {}) {
  assert.ok(existsSync(path.join(PKG, 'package.json')), 'pkg/ is not built: run scripts/build-pkg.sh');
  const dir = await mkdtemp(path.join(tmpdir(), `tokenpad-${how}-`));
  const app = path.join(dir, 'app');
  await mkdir(app, { recursive: true });
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type }));
  const npm = (args) => run('npm', [...args, '--no-audit', '--no-fund', '--ignore-scripts', '--silent', '--no-package-lock'], { cwd: app });
  for (const name of peers) await run('npm', ['pack', path.join(ROOT, 'node_modules', name), '--pack-destination', dir, '--silent'], { cwd: dir });
  const tarballs = (await readdir(dir)).filter((f) => f.endsWith('.tgz')).map((f) => path.join(dir, f));
  if (tarballs.length) await npm(['install', ...tarballs]);
  if (how === 'tarball') {
    await run('npm', ['pack', PKG, '--pack-destination', dir, '--silent'], { cwd: dir });
    const own = (await readdir(dir)).find((f) => f.startsWith('tokenpad-client-') && f.endsWith('.tgz'));
    await npm(['install', path.join(dir, own)]);
  } else {
    await npm(['install', ...(how === 'copy' ? ['--install-links'] : []), PKG]);
  }
  return {
    dir,
    app,
    installed: path.join(app, 'node_modules', '@tokenpad', 'client'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Runs `node file` in the app; resolves with stdout. */
export async function node(app, file, env = {}, args = []) {
  try {
    const { stdout } = await run(process.execPath, [...args, file], { cwd: app, env: { ...process.env, ...env }, timeout: 60_000 });
    return stdout;
  } catch (e) {
    throw new Error(`node ${file} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

/** Where the documentation's examples are printed: the README and docs/ (docs/package.md, docs/metal.md, ...). */
export async function docFiles() {
  const docs = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort().map((f) => path.join('docs', f));
  return ['README.md', ...docs];
}

/**
 * The code block right after `<!-- example: NAME -->`, wherever the documentation prints it
 * (README.md or docs/*.md): exactly one block may carry the name.
 */
export async function readmeExample(name) {
  const { readFile } = await import('node:fs/promises');
  const marker = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``, 'g');
  const found = [];
  for (const file of await docFiles()) {
    const text = await readFile(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(marker)) found.push({ file, code: m[1] });
  }
  assert.ok(found.length > 0, `no code block marked <!-- example: ${name} --> in README.md or docs/*.md`);
  assert.equal(found.length, 1, `<!-- example: ${name} --> marks ${found.length} blocks: ${found.map((f) => f.file).join(', ')}`);
  return found[0].code;
}

/** The flag that gives Node 20 a global WebSocket (Node 22 has one). */
export const WS_FLAG = typeof WebSocket === 'function' || Number(process.versions.node.split('.')[0]) >= 22 ? [] : ['--experimental-websocket'];
