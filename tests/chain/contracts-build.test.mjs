// The committed artifacts in contracts/build are exactly what a fresh offline build of
// contracts/*.sol produces (solc-js pinned in package.json, OpenZeppelin from node_modules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { keccak256 } from 'viem';
import { BUILD_DIR, ROOT, SETTINGS, buildContracts, solcVersions } from '../../scripts/build-contracts.mjs';

test('solc-js and OpenZeppelin are pinned to exact versions, and those are installed', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  for (const name of ['solc', '@openzeppelin/contracts']) {
    assert.match(pkg.devDependencies[name], /^\d+\.\d+\.\d+$/, `${name} must be pinned exactly`);
    const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
    assert.equal(installed, pkg.devDependencies[name], `${name}: run npm ci`);
  }
  const { pinned, installed } = solcVersions();
  assert.equal(installed, pinned);
});

test('the build settings are the documented ones', () => {
  assert.deepEqual(SETTINGS.optimizer, { enabled: true, runs: 200 });
  assert.equal(SETTINGS.evmVersion, 'cancun');
  assert.deepEqual(SETTINGS.metadata, { bytecodeHash: 'none' });
});

test('a fresh build reproduces contracts/build byte for byte', () => {
  const { artifacts } = buildContracts();
  const committed = readdirSync(BUILD_DIR).filter((f) => f.endsWith('.json')).sort();
  assert.deepEqual(committed, [...artifacts.keys()].sort());
  assert.deepEqual(committed, ['TestUSDC.json', 'TokenpadFactory.json', 'TokenpadLocker.json', 'TokenpadMarket.json', 'TokenpadToken.json']);
  for (const [name, text] of artifacts) {
    const onDisk = readFileSync(join(BUILD_DIR, name), 'utf8');
    assert.ok(onDisk === text, `contracts/build/${name} differs from a fresh build: run node scripts/build-contracts.mjs`);
  }
});

test('each artifact has its fields, and creationCodeHash = keccak256(bytecode)', () => {
  for (const name of ['TestUSDC', 'TokenpadFactory', 'TokenpadLocker', 'TokenpadMarket', 'TokenpadToken']) {
    const a = JSON.parse(readFileSync(join(BUILD_DIR, `${name}.json`), 'utf8'));
    assert.deepEqual(Object.keys(a), ['contractName', 'abi', 'bytecode', 'deployedBytecode', 'creationCodeHash']);
    assert.equal(a.contractName, name);
    assert.match(a.bytecode, /^0x[0-9a-f]+$/);
    assert.match(a.deployedBytecode, /^0x[0-9a-f]+$/);
    assert.equal(a.creationCodeHash, keccak256(a.bytecode));
  }
  // TokenpadToken takes no constructor arguments: its creation code is the same for every token
  const token = JSON.parse(readFileSync(join(BUILD_DIR, 'TokenpadToken.json'), 'utf8'));
  const ctor = token.abi.find((i) => i.type === 'constructor');
  assert.deepEqual(ctor?.inputs ?? [], []);
});
