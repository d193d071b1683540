// Checks HTTP responses against the repository's OpenAPI 3.1 document (openapi.json).
//
//   import { assertMatches, routes } from './openapi.mjs';
//   assertMatches('GET', '/token/{tokenAddress}', 200, body);
//   assertMatches('GET', '/token/0xAbc...', 404, body);   // concrete paths are matched to templates
//
// OpenAPI 3.1 schemas are JSON Schema 2020-12, so the whole document is added to Ajv under
// DOC_ID and each response schema is compiled as a JSON-pointer reference into it; `$ref`s
// to components resolve inside the document.
import { readFileSync } from 'node:fs';
import { AssertionError } from 'node:assert';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const DOC_URL = new URL('../../openapi.json', import.meta.url);
export const DOC_ID = 'https://tokenpad.invalid/openapi.json';
export const doc = JSON.parse(readFileSync(DOC_URL, 'utf8'));

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
addFormats(ajv);
// OpenAPI-only keywords that may appear inside schemas.
for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) {
  if (!ajv.getKeyword(keyword)) ajv.addKeyword({ keyword });
}
ajv.addSchema({ ...doc, $id: DOC_ID });

const validators = new Map();

/** JSON pointer (RFC 6901) from path segments, as a URI fragment. */
export function pointer(...segments) {
  return segments
    .map((s) => '/' + encodeURIComponent(String(s).replace(/~/g, '~0').replace(/\//g, '~1')))
    .join('');
}

/** Ajv validate function for the schema found at `ptr` (a fragment made by `pointer`). */
export function validatorAt(ptr) {
  let v = validators.get(ptr);
  if (!v) {
    v = ajv.getSchema(`${DOC_ID}#${ptr}`);
    if (!v) throw new Error(`openapi: no schema at #${decodeURIComponent(ptr)}`);
    validators.set(ptr, v);
  }
  return v;
}

/** The value at `segments` (unescaped path segments) in the document, or undefined. */
export function nodeAt(segments) {
  let node = doc;
  for (const s of segments) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, s)) return undefined;
    node = node[s];
  }
  return node;
}

/** Resolves a local `$ref` (`#/a/b`) to [value, segments]; value undefined when it does not resolve. */
export function resolveLocalRef(ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return [undefined, []];
  const segments = ref.slice(2).split('/').map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
  return [nodeAt(segments), segments];
}

/** Every (method, path) in the document, e.g. { method: 'GET', path: '/token/{tokenAddress}', operationId }. */
export function routes() {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const m of METHODS) {
      if (item[m]) out.push({ method: m.toUpperCase(), path, operationId: item[m].operationId });
    }
  }
  return out;
}

/**
 * The documented path template for `path`: itself when it is a template in the document,
 * else the template whose segments match the concrete path (query string ignored; literal
 * segments preferred over parameters). Undefined when none matches.
 */
export function findPathTemplate(path) {
  const clean = String(path).split('?')[0].split('#')[0];
  if (doc.paths?.[clean]) return clean;
  const want = clean.split('/');
  let best;
  let bestParams = Infinity;
  for (const template of Object.keys(doc.paths ?? {})) {
    const have = template.split('/');
    if (have.length !== want.length) continue;
    let params = 0;
    let ok = true;
    for (let i = 0; i < have.length; i++) {
      if (/^\{[^}]+\}$/.test(have[i])) {
        if (want[i] === '') { ok = false; break; }
        params++;
      } else if (have[i] !== want[i]) { ok = false; break; }
    }
    if (ok && params < bestParams) { best = template; bestParams = params; }
  }
  return best;
}

function fail(message, extra = {}) {
  throw new AssertionError({ message, operator: 'openapi.assertMatches', ...extra });
}

function pickContent(content) {
  if (!content) return undefined;
  if (content['application/json']) return 'application/json';
  return Object.keys(content)[0];
}

/**
 * Finds the response object for (method, path, status): the exact status, else the range
 * ("4XX"), else `default`. Three documented fallbacks: an unknown path answers the shared
 * NotFound response (404 `not_found`), a known path with an undocumented method answers
 * the shared MethodNotAllowed response (405 `method_not_allowed`), and either may answer the
 * shared BadRequest (400 `secret_key_in_url`: a secret key in the URL is refused first).
 * Returns { route, status, segments } where segments locate the (dereferenced) response object.
 */
export function findResponse(method, path, status) {
  const m = String(method).toLowerCase();
  const s = String(status);
  const template = findPathTemplate(path);
  const route = `${m.toUpperCase()} ${template ?? path}`;
  let segments;
  if ((!template || !doc.paths[template][m]) && s === '400') {
    // A secret key in the URL is refused before routing, on any path and method.
    segments = ['components', 'responses', 'BadRequest'];
  } else if (!template) {
    if (s !== '404') fail(`openapi: route ${route} is not documented (status ${s})`);
    segments = ['components', 'responses', 'NotFound'];
  } else if (!doc.paths[template][m]) {
    if (s !== '405') fail(`openapi: route ${route} is not documented (status ${s})`);
    segments = ['components', 'responses', 'MethodNotAllowed'];
  } else {
    const responses = doc.paths[template][m].responses ?? {};
    const key = [s, `${s[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) fail(`openapi: ${route} documents no response for status ${s} (documented: ${Object.keys(responses).join(', ')})`);
    segments = ['paths', template, m, 'responses', key];
  }
  // Follow Reference Objects (e.g. #/components/responses/BadRequest).
  let node = nodeAt(segments);
  for (let hops = 0; node && typeof node.$ref === 'string'; hops++) {
    if (hops > 10) fail(`openapi: $ref loop at ${route} ${s}`);
    [node, segments] = resolveLocalRef(node.$ref);
    if (!node) fail(`openapi: unresolved response $ref at ${route} ${s}`);
  }
  return { route, status: s, segments, response: node };
}

/**
 * Asserts that `body` is what the document says (method, pathTemplate) answers with `status`.
 * Throws an AssertionError naming the route, the status and Ajv's errors.
 * A response documented without content expects no body (undefined, null or '').
 */
export function assertMatches(method, pathTemplate, status, body) {
  const { route, status: s, segments, response } = findResponse(method, pathTemplate, status);
  const mediaType = pickContent(response?.content);
  if (!mediaType || !response.content[mediaType].schema) {
    if (body === undefined || body === null || body === '') return;
    fail(`openapi: ${route} ${s} documents no body, got ${preview(body)}`);
  }
  const validate = validatorAt(pointer(...segments, 'content', mediaType, 'schema'));
  if (!validate(body)) {
    const errors = validate.errors ?? [];
    fail(
      `openapi: ${route} ${s} body does not match the documented schema:\n` +
        errors.map((e) => `  ${e.instancePath || '(root)'} ${e.message}${fmtParams(e)} [${e.schemaPath}]`).join('\n') +
        `\n  body: ${preview(body)}`,
      { actual: body, expected: `schema of ${route} ${s}` },
    );
  }
}

/** Validates a request body against the operation's requestBody schema; throws like assertMatches. */
export function assertRequestMatches(method, pathTemplate, body) {
  const m = String(method).toLowerCase();
  const template = findPathTemplate(pathTemplate);
  const route = `${m.toUpperCase()} ${template ?? pathTemplate}`;
  const op = template && doc.paths[template][m];
  if (!op) fail(`openapi: route ${route} is not documented`);
  let rb = op.requestBody;
  let segments = ['paths', template, m, 'requestBody'];
  if (rb?.$ref) [rb, segments] = resolveLocalRef(rb.$ref);
  const mediaType = pickContent(rb?.content);
  if (!mediaType) fail(`openapi: ${route} documents no request body`);
  const validate = validatorAt(pointer(...segments, 'content', mediaType, 'schema'));
  if (!validate(body)) {
    fail(
      `openapi: ${route} request body does not match the documented schema:\n` +
        (validate.errors ?? []).map((e) => `  ${e.instancePath || '(root)'} ${e.message}${fmtParams(e)}`).join('\n') +
        `\n  body: ${preview(body)}`,
    );
  }
}

function fmtParams(e) {
  if (e.keyword === 'enum' || e.keyword === 'const') return ` ${JSON.stringify(e.params)}`;
  if (e.keyword === 'additionalProperties') return ` (${e.params.additionalProperty})`;
  return '';
}

function preview(body) {
  let s;
  try { s = JSON.stringify(body); } catch { s = String(body); }
  if (s === undefined) s = String(body);
  return s.length > 500 ? s.slice(0, 500) + '...' : s;
}
