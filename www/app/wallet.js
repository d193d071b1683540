// Wallet page: a holder's portfolio (holderPortfolio view model on the service's clock), kept
// current by the push channel (watchHolder), with live unlock countdowns.
//
// Signed in: opened with `#session=<token>` (a session token the merchant's server made with
// POST /holder/:userId/session; a fragment never reaches a server or its logs, and the page
// drops it from the address bar at once), the page shows what that user sees: their own
// wallet (also when the merchant is in private mode) and, with the `buy-presale` scope, a form
// to buy into a presale (`?presaleId=` fills it in).
import { avatar, boot, copyButton, countdownEl, explain, h, lookup, renderError, shortAddr, skeleton, when } from './app.js';

const POLL_MS = 30_000; // only while the push channel is down
const app = await boot('wallet');

if (app) {
  const { lib, key } = app;
  let { client } = app;
  const result = document.getElementById('result');
  let watch = null;
  const sessionToken = new URLSearchParams(location.hash.slice(1)).get('session')?.trim();
  if (sessionToken) history.replaceState(null, '', location.pathname + location.search);

  // The wallet now, then every change pushed by the service (watchHolder): a distribution, a
  // spend, an unlock. A failed read keeps what is shown; a failed lookup shows the error.
  const load = (userId) => {
    watch?.stop();
    result.replaceChildren(skeleton(6));
    let shown = false;
    watch = client.watchHolder(userId, (holder, err) => {
      if (holder) {
        shown = true;
        render(holder);
      } else if (!shown) {
        renderError(result, err, { retry: () => load(userId) });
        watch.stop();
      }
    }, POLL_MS);
  };

  const badge = {
    token: ['Active', 'green'],
    lock: ['Locked', 'amber'],
    presale: ['Presale', 'blue'],
  };

  const rowEl = (r) => {
    const [label, color] = badge[r.kind];
    const extra = [];
    if (r.kind === 'lock' && r.unlockAtMs !== null) {
      extra.push(h('div', { class: 'sub' },
        countdownEl(r.unlockAtMs, { prefix: 'Unlocks in ', done: 'Unlocking now' }),
        ` · ${when(r.unlockAtMs)}`));
    }
    if (r.kind === 'presale') {
      extra.push(h('div', { class: 'bar thin', role: 'progressbar', 'aria-valuenow': r.progress, 'aria-valuemin': 0, 'aria-valuemax': 100,
        'aria-label': `${r.name} presale: share of its target raised`, 'aria-valuetext': `${r.progressFormatted} of target` },
        h('div', { class: 'fill', style: { width: `${r.progress}%` } })));
      extra.push(h('div', { class: 'sub' },
        `${r.progressFormatted} of target · `,
        r.endsAtMs !== null ? countdownEl(r.endsAtMs, { prefix: 'ends in ', done: 'ended', cls: '' }) : null,
        ' · ',
        h('a', { href: `/app/presale?id=${encodeURIComponent(r.presaleId)}` }, 'View presale')));
    }
    return h('div', { class: 'row', 'data-kind': r.kind, 'data-symbol': r.symbol },
      avatar(r.symbol),
      h('div', { class: 'main' },
        h('div', { class: 'title' }, r.name, h('span', { class: `pill ${color}` }, label)),
        h('div', { class: 'sub mono' }, shortAddr(r.address))),
      h('div', { class: 'right' },
        h('span', { class: 'amount' }, `${r.balanceFormatted} ${r.symbol}`),
        h('span', { class: 'muted', 'data-value': r.priced ? 'known' : 'unknown' },
          r.kind === 'presale' ? `${r.valueFormatted} USDC paid` : r.priced ? `$${r.valueFormatted}` : 'No price yet')),
      extra.length ? h('div', { class: 'extra' }, extra) : null);
  };

  const render = (holder) => {
    const v = lib.holderPortfolio(holder, lib.serviceNow());
    const summary = h('section', { class: 'card', 'data-state': 'ready', id: 'summary' },
      h('div', { class: 'card-head' },
        h('div', {},
          h('div', { class: 'muted' }, `Wallet of ${v.userId}`),
          h('div', { class: 'big', id: 'total-value' }, `$${v.totalValueFormatted}`),
          // Tokens without a price are not in the total: say so, rather than count them as $0.
          v.unpricedCount ? h('div', { class: 'muted', id: 'unpriced' },
            `plus ${v.unpricedCount} token${v.unpricedCount === 1 ? '' : 's'} with no price yet`) : null),
        h('div', { class: 'addr' }, h('span', { class: 'mono', title: v.address }, shortAddr(v.address)), copyButton(v.address))),
      h('div', { class: 'stats' },
        stat('Tokens', v.tokenCount),
        stat('Locked', v.rows.some((r) => r.kind === 'lock' && !r.priced) ? `$${v.lockedValueFormatted} + unpriced` : `$${v.lockedValueFormatted}`),
        stat('Presales', v.presaleCount),
        stat('Next unlock', v.nextUnlock ? countdownEl(v.nextUnlock.targetMs, { done: 'now', cls: '' }) : '—')));
    const holdings = h('section', { class: 'card', id: 'holdings' },
      h('div', { class: 'card-head' }, h('h2', {}, 'Holdings'), h('span', { class: 'muted' }, `${v.rows.length} item${v.rows.length === 1 ? '' : 's'}`)),
      v.rows.length
        ? h('div', { class: 'rows' }, v.rows.map(rowEl))
        : h('div', { class: 'empty' }, 'No tokens yet. Tokens the merchant distributes to this user appear here.'));
    result.replaceChildren(summary, holdings);
  };

  const stat = (label, value) => h('div', { class: 'stat' }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value));

  // Signed in with a session token: who, what the session may do, and the buy form.
  const signIn = async () => {
    // The signed-in user's own wallet only: no lookup of other users.
    const card = h('section', { class: 'card', id: 'session' });
    document.getElementById('lookup-form').closest('section').replaceWith(card);
    try {
      client = new lib.TokenpadClient({ baseUrl: location.origin, publicKey: key, sessionToken, timeoutMs: 10_000 });
      const info = await client.getSession();
      renderSession(card, info);
      load(info.userId);
    } catch (err) {
      renderError(card, err);
    }
  };

  const scopesLine = (info) => {
    const usdc = info.limits.find((l) => l.symbol === 'USDC');
    return h('div', { class: 'sub', id: 'session-scopes' }, `Allowed: ${info.scopes.join(', ')}`,
      usdc?.remaining !== undefined ? ` · ${lib.formatAmount(usdc.remaining)} USDC left to spend` : '');
  };

  const renderSession = (card, info) => {
    const children = [
      h('div', { class: 'card-head' },
        h('div', {},
          h('div', { class: 'muted' }, 'Session'),
          h('div', { class: 'title', id: 'session-user' }, `Signed in as ${info.userId}`)),
        h('span', { class: 'muted' }, countdownEl(Date.parse(info.expiresAt), { prefix: 'Session ends in ', done: 'Session ended', cls: '' }))),
      scopesLine(info),
    ];
    if (info.scopes.includes('buy-presale')) children.push(buyForm(info));
    card.replaceChildren(...children);
  };

  const buyForm = (info) => {
    const presale = h('input', { type: 'text', name: 'presaleId', placeholder: 'Presale id', 'aria-label': 'Presale id', autocomplete: 'off', required: true });
    presale.value = new URL(location.href).searchParams.get('presaleId') ?? '';
    const amount = h('input', { type: 'text', name: 'usdcAmount', inputmode: 'decimal', placeholder: 'USDC, e.g. 20', 'aria-label': 'USDC amount', autocomplete: 'off', required: true });
    const out = h('div', { id: 'buy-result', 'aria-live': 'polite' });
    const button = h('button', { type: 'submit' }, 'Buy');
    const form = h('form', { class: 'inline', id: 'buy-form' }, presale, amount, button);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      button.disabled = true;
      out.replaceChildren(h('span', { class: 'muted' }, 'Buying…'));
      try {
        // One key per purchase: a retry after a lost answer never buys twice.
        const r = await client.buyPresale(info.userId, { presaleId: presale.value.trim(), usdcAmount: amount.value.trim() },
          { idempotencyKey: crypto.randomUUID() });
        out.replaceChildren(h('section', { class: 'notice', 'data-state': 'ok' },
          h('strong', {}, `Bought into the presale for ${lib.formatAmount(r.usdcAmount)} USDC`),
          h('span', { class: 'mono' }, r.transactionHash ?? 'pending')));
        amount.value = '';
        document.getElementById('session-scopes').replaceWith(scopesLine(await client.getSession()));
      } catch (err) {
        renderError(out, err);
        out.querySelector('[data-state=error]')?.setAttribute('data-explained', explain(err).title);
      } finally {
        button.disabled = false;
      }
    });
    return h('div', { class: 'buy' }, h('h2', {}, 'Buy into a presale'), form, out);
  };

  if (sessionToken) signIn();
  else lookup(document.getElementById('lookup-form'), 'userId', load);
}
