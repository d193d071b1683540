// Token page: supply (tokenSupply view model) and top holders.
import { boot, copyButton, h, lookup, renderError, shortAddr, skeleton } from './app.js';

const app = await boot('token');

if (app) {
  const { lib, client } = app;
  const result = document.getElementById('result');
  let seq = 0;

  const stat = (label, value, id) =>
    h('div', { class: 'stat', id }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value));

  const render = (token) => {
    const s = lib.tokenSupply(token);
    result.replaceChildren(
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
          stat('Remaining', `${s.remainingPercent}%`))),
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
                  h('td', { class: 'r' }, `$${x.valueFormatted}`)))))
          : h('div', { class: 'empty' }, 'No holders yet.')));
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
