// Token page: supply (tokenSupply view model) and top holders.
import { boot, copyButton, h, lookup, renderError, shortAddr, skeleton } from './app.js';

const app = await boot('token');

if (app) {
  const { lib, client } = app;
  const result = document.getElementById('result');
  let seq = 0;

  const stat = (label, value, id) =>
    h('div', { class: 'stat', id }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value));

  const SVG = 'http://www.w3.org/2000/svg';
  const svg = (tag, attrs = {}, ...children) => {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    el.append(...children);
    return el;
  };
  // The parts of the total supply and their shares come from the view model (exact, and every
  // percent written the same way); the colours are the page's.
  const COLOURS = { held: '#5046e5', app: '#3ec6a8', merchant: '#e0a100', liquidity: '#8a91a8', pool: '#c2410c' };

  /** The total supply split, as a donut chart with a legend that names each part (not colour only). */
  const splitChart = (s) => {
    const parts = s.split.map((p) => ({ ...p, color: COLOURS[p.key] }));
    const r = 15.9155; // circumference 100
    let offset = 25; // start at 12 o'clock
    const arcs = parts.filter((p) => p.amount !== '0').map((p) => {
      // A part too small to see still gets a sliver.
      const len = Math.max(p.percent, 0.6);
      const arc = svg('circle', { cx: 21, cy: 21, r, fill: 'none', stroke: p.color, 'stroke-width': 6,
        'stroke-dasharray': `${len} ${100 - len}`, 'stroke-dashoffset': offset, 'data-part': p.key });
      offset -= len;
      return arc;
    });
    const summary = parts.map((p) => `${p.label} ${p.percentFormatted}`).join(', ');
    return h('div', { class: 'split-chart' },
      svg('svg', { viewBox: '0 0 42 42', width: 168, height: 168, role: 'img', 'aria-label': `Total supply split: ${summary}`, id: 'split-chart' },
        svg('title', {}, `Total supply split: ${summary}`),
        svg('circle', { cx: 21, cy: 21, r, fill: 'none', stroke: '#e4e7f0', 'stroke-width': 6 }),
        ...arcs),
      h('ul', { class: 'split-legend' }, parts.map((p) =>
        h('li', { 'data-part': p.key },
          h('i', { style: { background: p.color }, 'aria-hidden': 'true' }),
          h('span', {}, p.label),
          h('strong', {}, p.percentFormatted),
          h('span', { class: 'muted' }, `${p.amountFormatted} ${s.symbol}`)))));
  };

  const render = (token) => {
    const s = lib.tokenSupply(token);
    // Without a price a holder's value is unknown, not $0.
    const value = (x) => (s.priceFormatted === null ? 'No price yet' : `$${x.valueFormatted}`);
    result.replaceChildren(...[
      h('section', { class: 'card', 'data-state': 'ready', id: 'token-card' },
        h('div', { class: 'card-head' },
          h('div', {}, h('h2', { id: 'token-name' }, `${s.name} (${s.symbol})`),
            h('div', { class: 'addr' }, h('span', { class: 'mono', title: s.address }, shortAddr(s.address)), copyButton(s.address))),
          h('span', { class: 'pill gray' }, s.network)),
        h('div', { class: 'stats' },
          stat('Price', s.priceFormatted === null ? 'No price yet' : `$${s.priceFormatted}`, 'price'),
          stat('Total supply', s.totalSupplyFormatted, 'total-supply'),
          stat('Holders', String(s.holdersCount), 'holders-count'),
          stat('Merchant supply', s.merchantSupplyFormatted))),
      h('section', { class: 'card', id: 'split' },
        h('div', { class: 'card-head' }, h('h2', {}, 'Supply split'), h('span', { class: 'muted' }, `${s.totalSupplyFormatted} ${s.symbol} in total`)),
        splitChart(s)),
      h('section', { class: 'card', id: 'supply' },
        h('div', { class: 'card-head' }, h('h2', {}, 'App supply'), h('strong', { id: 'distributed-percent' }, `${s.distributedPercentFormatted} distributed`)),
        h('div', { class: 'bar split', role: 'img', 'aria-label': `${s.distributedPercentFormatted} of the app supply distributed` },
          h('div', { class: 'fill', style: { width: `${s.distributedPercent}%` } }), h('div', { class: 'rest' })),
        h('div', { class: 'legend' },
          h('span', {}, h('i', { style: { background: '#6d63f0' } }), 'Distributed ', h('strong', { id: 'distributed' }, s.distributedFormatted)),
          h('span', {}, h('i', { style: { background: '#cfd4e6' } }), 'Remaining ', h('strong', { id: 'remaining' }, s.remainingAppSupplyFormatted)),
          h('span', {}, 'of ', h('strong', {}, s.startingAppSupplyFormatted), ` ${s.symbol}`)),
        h('div', { class: 'stats' },
          stat('Liquidity reserve', s.liquiditySupplyFormatted),
          stat('Merchant supply', s.merchantSupplyFormatted),
          stat('Starting app supply', s.startingAppSupplyFormatted),
          stat('Remaining', s.remainingPercentFormatted))),
      s.pool
        ? h('section', { class: 'card', id: 'pool' },
            h('div', { class: 'card-head' }, h('h2', {}, 'Market'), h('span', { class: 'muted' }, `${s.pool.feeFormatted} fee`)),
            h('div', { class: 'stats' },
              stat('Pool price', `$${s.pool.priceFormatted}`, 'pool-price'),
              stat(`${s.symbol} in the pool`, s.pool.tokenReserveFormatted, 'pool-tokens'),
              stat('USDC in the pool', `$${s.pool.usdcReserveFormatted}`, 'pool-usdc')))
        : null,
      h('section', { class: 'card', id: 'holders' },
        h('div', { class: 'card-head' }, h('h2', {}, 'Top holders'), h('span', { class: 'muted' }, `${s.holdersCount} in total`)),
        s.topHolders.length
          ? h('table', { class: 'stack' },
              h('thead', {}, h('tr', {}, h('th', {}, 'Holder'), h('th', { class: 'r' }, `Balance (${s.symbol})`), h('th', { class: 'r' }, 'Value'))),
              h('tbody', {}, s.topHolders.slice(0, 25).map((x) =>
                h('tr', {},
                  h('td', {}, h('div', {}, x.id === x.address ? shortAddr(x.id) : x.id), h('div', { class: 'muted mono' }, shortAddr(x.address))),
                  h('td', { class: 'r' }, x.balanceFormatted),
                  h('td', { class: 'r' }, value(x))))))
          : h('div', { class: 'empty' }, 'No holders yet.')),
    ].filter(Boolean));
  };

  const load = async (address) => {
    const mine = ++seq;
    result.replaceChildren(skeleton(5));
    try {
      const token = await client.getToken(address);
      if (mine === seq) render(token);
    } catch (err) {
      if (mine === seq) renderError(result, err, { retry: () => load(address) });
    }
  };

  lookup(document.getElementById('lookup-form'), 'address', load);
}
