// Which build answers: the release's version (Cargo.toml's [workspace.package], its one source)
// and the commit scripts/build-worker.sh built the Worker from, as `GET /health` names them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const CARGO = readFileSync(new URL('../../Cargo.toml', import.meta.url), 'utf8');
/** The workspace's version: `version = "..."` under `[workspace.package]`. */
export const VERSION = CARGO.match(/^\[workspace\.package\]\n(?:[^[\n].*\n|\n)*?version = "([^"]+)"/m)?.[1];

/** `/health`'s answer without its build fields, which it checks: the version, and a commit. */
export function withoutBuild(health) {
  const { version, commit, ...rest } = health;
  assert.equal(version, VERSION, '/health names the workspace version');
  assert.match(commit, /^([0-9a-f]{40}(-dirty)?|unknown)$/, `/health names a commit: ${commit}`);
  return rest;
}
