// The documentation's shape (no worker needed): README.md stays a front page of at most 300
// lines that names the two commands and links every file of docs/, and every relative link in
// README.md and docs/*.md leads to a file that exists and, when it names an anchor in a
// Markdown file, to a heading of that file (GitHub's anchors: lowercase, punctuation dropped,
// each space a hyphen, a repeated heading numbered -1, -2, ...).
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_README_LINES = 300;

/** The documentation checked: README.md and every docs/*.md, as paths from the root. */
function docFiles() {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

/** The text outside fenced code blocks, line by line (a fence's lines become empty). */
function prose(text) {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's anchor for a heading's text. */
function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown text's headings give, repeated ones numbered as GitHub numbers them. */
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every link target of a Markdown text, outside code: `[text](target)` and `[label]: target`. */
function links(text) {
  const out = [];
  for (const line of prose(text)) {
    const visible = line.replace(/`[^`]*`/g, '');
    for (const m of visible.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]);
    const ref = /^\s*\[[^\]]+\]:\s*(\S+)/.exec(visible);
    if (ref) out.push(ref[1]);
  }
  return out;
}

/**
 * What is wrong with the relative links of `file` (a path from the root): each problem as
 * "file: target (why)". `read(rel)` gives a file's text or null when it does not exist.
 */
function linkProblems(file, read) {
  const problems = [];
  for (const target of links(read(file) ?? '')) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
    const [rawPath, anchor] = target.split('#', 2);
    const rel = rawPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(rawPath)));
    if (rel.startsWith('..')) {
      problems.push(`${file}: ${target} (outside the repository)`);
      continue;
    }
    const text = read(rel);
    if (text === null) {
      problems.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== undefined && rel.endsWith('.md') && !anchors(text).has(anchor)) {
      problems.push(`${file}: ${target} (no heading with that anchor in ${rel})`);
    }
  }
  return problems;
}

/** A file's text from the checkout, '' for a directory, null when nothing is there. */
function readFromDisk(rel) {
  const abs = path.join(ROOT, rel);
  if (!existsSync(abs)) return null;
  try {
    return readFileSync(abs, 'utf8');
  } catch (e) {
    if (e.code === 'EISDIR') return '';
    throw e;
  }
}

test(`README.md is a front page: at most ${MAX_README_LINES} lines, the two commands, a link to every docs/ file`, () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const lines = readme.endsWith('\n') ? readme.split('\n').length - 1 : readme.split('\n').length;
  assert.ok(lines <= MAX_README_LINES, `README.md has ${lines} lines: move text into docs/ (at most ${MAX_README_LINES})`);
  assert.match(readme, /^## The two commands$/m);
  assert.match(readme, /^\.\/scripts\/dev\.sh {4}# run tokenpad locally/m);
  assert.match(readme, /^\.\/scripts\/test\.sh {3}# run every test/m);
  const linked = new Set(links(readme).map((t) => t.split('#')[0]));
  const orphans = docFiles().filter((f) => f !== 'README.md' && !linked.has(f));
  assert.deepEqual(orphans, [], 'docs/ files the README does not link');
});

test('every relative link in README.md and docs/*.md leads to a file and a heading that exist', () => {
  const files = docFiles();
  assert.ok(files.length > 5, `only ${files.length} documentation files found`);
  let count = 0;
  const problems = [];
  for (const file of files) {
    count += links(readFromDisk(file)).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t)).length;
    problems.push(...linkProblems(file, readFromDisk));
  }
  assert.ok(count > 50, `only ${count} relative links found: is the link reader broken?`);
  assert.deepEqual(problems, []);
});

test('the link checker itself: GitHub anchors, and each kind of broken link found', () => {
  assert.equal(slug('Walkthrough: a presale'), 'walkthrough-a-presale');
  assert.equal(slug('Markets (issue 9)'), 'markets-issue-9');
  assert.equal(slug('Deployments (memecoin and airdrop, contract §9)'), 'deployments-memecoin-and-airdrop-contract-9');
  assert.equal(slug("0dc5992 and after: decimals written without `format!`, a presale's whole list kept"),
    '0dc5992-and-after-decimals-written-without-format-a-presales-whole-list-kept');
  assert.deepEqual([...anchors('# A\n## A\n```\n# not a heading\n```\n### A_b c\n')], ['a', 'a-1', 'a_b-c']);

  const files = {
    'README.md': [
      '# Top', '[ok](docs/a.md) [ok](docs/a.md#part-one) [ok](#top) [ok](https://example.com/x.md#nope)',
      '[gone](docs/missing.md) [bad anchor](docs/a.md#part-two) `[in code](nowhere.md)`',
      '```', '[in a block](nowhere.md)', '```', '[ref]: docs/a.md#nothing',
    ].join('\n'),
    'docs/a.md': '# A\n## Part one\n[up](../README.md#top) [out](../../etc/passwd) [self](#missing)\n',
  };
  const read = (rel) => files[rel] ?? null;
  assert.deepEqual(linkProblems('README.md', read), [
    'README.md: docs/missing.md (no such file)',
    'README.md: docs/a.md#part-two (no heading with that anchor in docs/a.md)',
    'README.md: docs/a.md#nothing (no heading with that anchor in docs/a.md)',
  ]);
  assert.deepEqual(linkProblems('docs/a.md', read), [
    'docs/a.md: ../../etc/passwd (outside the repository)',
    'docs/a.md: #missing (no heading with that anchor in docs/a.md)',
  ]);
});
