// Wallet page: a holder's portfolio (holderPortfolio view model on the service's clock), kept
// current by the push channel (watchHolder), with live unlock countdowns.
import { avatar, boot, copyButton, countdownEl, h, lookup, renderError, shortAddr, skeleton, when } from './app.js';

const POLL_MS = 30_000; // only while the push channel is down
const app = await boot('wallet');

if (app) {
  const { lib, client } = app;
  const result = document.getElementById('result');
  let watch = null;

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
        'aria-label': `${r.name} presale: share of its target raised`, 'aria-valuetext': `${r.progress}% of target` },
        h('div', { class: 'fill', style: { width: `${r.progress}%` } })));
      extra.push(h('div', { class: 'sub' },
        `${r.progress}% of target · `,
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
        h('span', { class: 'muted' }, r.kind === 'presale' ? `${r.valueFormatted} USDC paid` : `$${r.valueFormatted}`)),
      extra.length ? h('div', { class: 'extra' }, extra) : null);
  };

  const render = (holder) => {
    const v = lib.holderPortfolio(holder, lib.serviceNow());
    const summary = h('section', { class: 'card', 'data-state': 'ready', id: 'summary' },
      h('div', { class: 'card-head' },
        h('div', {},
          h('div', { class: 'muted' }, `Wallet of ${v.userId}`),
          h('div', { class: 'big', id: 'total-value' }, `$${v.totalValueFormatted}`)),
        h('div', { class: 'addr' }, h('span', { class: 'mono', title: v.address }, shortAddr(v.address)), copyButton(v.address))),
      h('div', { class: 'stats' },
        stat('Tokens', v.tokenCount),
        stat('Locked', `$${v.lockedValueFormatted}`),
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

  lookup(document.getElementById('lookup-form'), 'userId', load);
}
