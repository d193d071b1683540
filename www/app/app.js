// Shared code of the demo pages: the public key, the client, the top bar, states, helpers.
// Only the public key is ever used here: it comes from ?publicKey= (then remembered in
// localStorage) or from the form shown when there is none. baseUrl is this page's origin.

const KEY_STORAGE = 'tokenpad.publicKey';

/** Builds an element: h('div', { class: 'x', onclick: fn }, 'text', child, ...). Text is never parsed as HTML. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);

export function shortAddr(a) {
  return typeof a === 'string' && a.length > 14 ? `${a.slice(0, 6)}…${a.slice(-4)}` : a;
}

/** A colored square with a token's initials. */
export function avatar(symbol = '?') {
  let hash = 0;
  for (const ch of symbol) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  const hue = hash % 360;
  const text = symbol.slice(0, 4);
  return h('div', { class: `avatar${text.length > 3 ? ' small' : ''}`, style: { background: `hsl(${hue} 55% 30%)` }, 'aria-hidden': 'true' }, text);
}

export function copyButton(text) {
  const b = h('button', { class: 'copy', type: 'button', title: 'Copy' }, 'Copy');
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      b.textContent = 'Select it';
    }
    setTimeout(() => (b.textContent = 'Copy'), 1500);
  });
  return b;
}

export function skeleton(lines = 4) {
  const rows = [h('div', { class: 'short' }), h('div', { class: 'tall' })];
  for (let i = 2; i < lines; i++) rows.push(h('div'));
  return h('section', { class: 'card', 'aria-busy': 'true', 'data-state': 'loading' },
    h('p', { class: 'muted', role: 'status' }, 'Loading…'),
    h('div', { class: 'skeleton' }, rows));
}

/** Replaces the page's ?query with `params` (null removes one), without reloading. */
export function setQuery(params) {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === '') url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  history.replaceState(null, '', url);
}

function storedKey() {
  try {
    return localStorage.getItem(KEY_STORAGE) ?? '';
  } catch {
    return '';
  }
}

function saveKey(key) {
  try {
    localStorage.setItem(KEY_STORAGE, key);
  } catch {
    /* private mode: the key lives in the URL only */
  }
}

function forgetKey() {
  try {
    localStorage.removeItem(KEY_STORAGE);
  } catch {
    /* nothing stored */
  }
}

/** What an error means for a person, from its code. */
export function explain(err) {
  const code = err?.code ?? 'unknown';
  const table = {
    public_key_not_found: ['No public key', 'This page needs the merchant\'s public key (pk_…).', true],
    invalid_api_key: ['This public key is not accepted', 'The key is unknown or was revoked. Check it, or use another one.', true],
    missing_api_key: ['No public key', 'This page needs the merchant\'s public key (pk_…).', true],
    secret_key_required: ['Not readable with a public key', 'This information is only available to the merchant\'s server.', false],
    holder_not_found: ['No wallet with this user id', 'Check the user id: it is the id the merchant gave the holder.', false],
    token_not_found: ['No token at this address', 'Check the token address.', false],
    presale_not_found: ['No presale with this id', 'Check the presale id.', false],
    invalid_user_id: ['That user id is not valid', null, false],
    invalid_address: ['That address is not valid', 'A token address looks like 0x followed by 40 hexadecimal characters.', false],
    invalid_request: ['That request is not valid', null, false],
    network_error: ['Cannot reach tokenpad', 'The service did not answer. Check that it is running, then retry.', false],
    timeout: ['tokenpad is not answering', 'The request took too long. Retry in a moment.', false],
    secret_key_refused: ['That is a secret key', 'A secret key (sk_…) must never be used in a browser. Use the public key (pk_…).', true],
    invalid_session_token: ['This sign-in link is not valid', 'Ask the app for a new one.', false],
    session_expired: ['Your session has expired', 'Sign in again in the app to get a new link.', false],
    session_revoked: ['You were signed out', 'Sign in again in the app to get a new link.', false],
    session_token_required: ['Sign in to see this wallet', 'This merchant keeps wallets private: open the wallet from the app once signed in.', false],
    session_holder_mismatch: ['Not your wallet', 'A session only reads and acts for its own user.', false],
    insufficient_scope: ['Not allowed with this session', 'The app did not allow this action for this session.', false],
    session_limit_exceeded: ['Over this session\'s limit', 'The app set a limit on what this session may spend.', false],
    presale_not_active: ['This presale is not open', 'It takes purchases only while it is live.', false],
    insufficient_balance: ['Not enough funds', 'The wallet does not hold enough for this.', false],
    package_missing: ['The browser package is not built', 'Run ./scripts/build-pkg.sh (./scripts/dev.sh does it), then reload.', false],
  };
  const [title, hint, keyProblem] = table[code] ?? ['Something went wrong', null, false];
  return { title, hint, keyProblem, code, status: err?.status ?? 0, message: err?.message ?? String(err) };
}

/** Shows an error state in `container`, with a retry button when `retry` is given. */
export function renderError(container, err, { retry } = {}) {
  const e = explain(err);
  const actions = h('div', { class: 'form inline' });
  if (retry) actions.append(h('button', { type: 'button', onclick: retry }, 'Retry'));
  if (e.keyProblem) actions.append(h('button', { type: 'button', class: 'secondary', onclick: changeKey }, 'Use another key'));
  container.replaceChildren(
    h('section', { class: 'notice error', role: 'alert', 'data-state': 'error', 'data-code': e.code },
      h('strong', {}, e.title),
      e.hint && h('span', {}, e.hint),
      // The service's own words and code, for whoever reports the problem.
      h('span', { class: 'mono' }, e.status ? `${e.message} (HTTP ${e.status}, ${e.code})` : e.hint ? `(${e.code})` : `${e.message} (${e.code})`),
      actions.childElementCount ? actions : null));
}

function changeKey() {
  forgetKey();
  setQuery({ publicKey: null });
  location.reload();
}

let lib = null;

/** The browser package (pkg/web, copied to www/pkg by scripts/build-pkg.sh). */
export async function loadLib() {
  if (lib) return lib;
  try {
    lib = await import('./pkg/index.js');
  } catch (cause) {
    throw Object.assign(new Error(`Could not load /pkg/index.js: ${cause?.message ?? cause}`), { code: 'package_missing' });
  }
  return lib;
}

function renderKeyForm(main, problem) {
  const input = h('input', { type: 'text', name: 'publicKey', placeholder: 'pk_…', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-label': 'Public key' });
  const error = h('div', { role: 'alert' });
  const form = h('form', { class: 'inline', id: 'key-form' }, input, h('button', { type: 'submit' }, 'Continue'));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const key = input.value.trim();
    try {
      const { TokenpadClient } = await loadLib();
      new TokenpadClient({ baseUrl: location.origin, publicKey: key }).free();
    } catch (err) {
      renderError(error, err);
      return;
    }
    if (!key.startsWith('pk_')) {
      renderError(error, { code: 'invalid_api_key', message: 'Public keys start with pk_' });
      return;
    }
    saveKey(key);
    location.reload();
  });
  main.replaceChildren(
    h('section', { class: 'card', id: 'key-card', 'data-state': 'need-key' },
      h('h1', {}, 'Connect with a public key'),
      h('p', { class: 'muted' },
        'This page reads tokenpad with a merchant\'s public key (pk_…), the only key that is safe in a browser. ',
        'It is remembered in this browser. Running locally? ./scripts/dev.sh prints a link that includes the demo key.'),
      problem ? h('div', { class: 'notice warn' }, problem) : null,
      form,
      error));
  input.focus();
}

function renderKeybar(key) {
  const bar = $('#keybar');
  if (!bar) return;
  bar.replaceChildren(
    h('span', {}, 'Public key'),
    h('code', { title: key }, key),
    h('button', { class: 'linkish', type: 'button', onclick: changeKey }, 'Change'));
}

/**
 * Starts a page: marks its nav link, finds the public key, loads the package and makes the
 * client. Returns { lib, client, key }, or null after showing the key form or an error.
 */
export async function boot(page) {
  for (const a of document.querySelectorAll('.nav a')) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page');
  }
  const main = $('main');
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('publicKey')?.trim();
  // Dropped from the address bar at once (a shared link should not carry it along), and
  // remembered below once the client accepted it.
  if (fromUrl) setQuery({ publicKey: null });
  const key = fromUrl || storedKey();
  let loaded;
  try {
    loaded = await loadLib();
  } catch (err) {
    renderError(main, err);
    return null;
  }
  if (!key) {
    renderKeyForm(main);
    return null;
  }
  let client;
  try {
    client = new loaded.TokenpadClient({ baseUrl: location.origin, publicKey: key, timeoutMs: 10_000 });
  } catch (err) {
    if (!fromUrl) forgetKey();
    renderKeyForm(main, explain(err).hint ?? err.message);
    return null;
  }
  if (fromUrl) saveKey(fromUrl);
  renderKeybar(key);
  startTicker();
  return { lib: loaded, client, key };
}

/**
 * Live countdowns: every element with data-countdown="<UNIX ms>" shows
 * `${data-prefix}${label}` until then, and data-done once reached. Updated every second.
 */
function countdownText(el, now = lib.serviceNow()) {
  const c = lib.countdown(Number(el.dataset.countdown), now);
  return c.done ? (el.dataset.done ?? '0s') : `${el.dataset.prefix ?? ''}${c.label}`;
}

function startTicker() {
  const tick = () => {
    // The service's clock: countdowns agree with what the service decides (it can differ from
    // this device's, and a local service can be moved forward).
    const now = lib.serviceNow();
    for (const el of document.querySelectorAll('[data-countdown]')) {
      const text = countdownText(el, now);
      if (el.textContent !== text) el.textContent = text;
    }
  };
  tick();
  setInterval(tick, 1000);
}

/** A live countdown element (see startTicker). */
export function countdownEl(targetMs, { prefix = '', done = 'now', cls = 'countdown' } = {}) {
  const el = h('span', { class: cls, 'data-countdown': targetMs, 'data-prefix': prefix, 'data-done': done });
  el.textContent = countdownText(el);
  return el;
}

/** A local date and time for a UNIX ms instant or ISO string. */
export function when(t) {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Wires a lookup form (one input) to ?param= and `load(value)`; loads at once when set. */
export function lookup(form, param, load) {
  const input = form.elements[0];
  const initial = new URL(location.href).searchParams.get(param)?.trim();
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const v = input.value.trim();
    if (!v) return;
    setQuery({ [param]: v });
    load(v);
  });
  if (initial) {
    input.value = initial;
    load(initial);
  } else {
    input.focus();
  }
}
