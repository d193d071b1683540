// Presale page: live progress (watchPresale, pushed by the service over a WebSocket and polled
// while that is down, + the presaleProgress view model on the service's clock).
import { avatar, boot, countdownEl, h, lookup, renderError, shortAddr, skeleton, when } from './app.js';

const POLL_MS = 3_000; // only while the push channel is down
const app = await boot('presale');

if (app) {
  const { lib, client } = app;
  const result = document.getElementById('result');
  let watch = null;

  const pillClass = {
    upcoming: 'blue',
    live: 'green live',
  };

  const stat = (label, value, id) =>
    h('div', { class: 'stat', id }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value));

  const tokenImage = (p) => {
    if (!p.imageUrl) return avatar(p.tokenSymbol);
    const img = h('img', { class: 'token-img', src: p.imageUrl, alt: '', referrerpolicy: 'no-referrer' });
    img.addEventListener('error', () => img.replaceWith(avatar(p.tokenSymbol)), { once: true });
    return img;
  };

  // How the page stays current, as it is now: pushed while the socket is open, else polled.
  const updatedLabel = () => `Updated ${new Date().toLocaleTimeString()} · ${watch?.live ? 'live' : `refreshing every ${POLL_MS / 1000} s`}`;

  const render = (presale, staleError) => {
    const p = lib.presaleProgress(presale, lib.serviceNow());
    const color = p.status === 'ended' ? 'gray' : p.statusLabel === 'Launching' ? 'amber' : pillClass[p.phase] ?? 'green';
    const marker = h('div', { class: 'marker', style: { left: `${p.thresholdPercent}%` }, title: 'Launch threshold' },
      h('span', {}, `${p.thresholdPercent}%`));
    const time =
      p.phase === 'upcoming' ? countdownEl(p.startsAtMs, { prefix: 'Starts in ', done: 'Starting…', cls: '' })
      : p.phase === 'live' ? countdownEl(p.endsAtMs, { prefix: '', done: 'Ending…', cls: '' })
      : 'Ended';
    const participants = p.participants.length
      ? h('table', { class: 'stack' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Participant'), h('th', { class: 'r' }, 'USDC'), h('th', { class: 'r' }, 'Share'))),
          h('tbody', {}, p.participants.slice(0, 20).map((x) =>
            h('tr', {},
              h('td', {}, h('div', {}, x.id), h('div', { class: 'muted mono' }, shortAddr(x.address))),
              h('td', { class: 'r' }, x.usdcAmountFormatted),
              h('td', { class: 'r' }, x.tokenPercentageFormatted)))))
      : h('div', { class: 'empty' }, p.phase === 'upcoming' ? 'Opens at the start time.' : 'No participants yet.');

    result.replaceChildren(...[
      staleError ? h('section', { class: 'notice warn', role: 'status' },
        h('strong', {}, 'Showing the last known state'), h('span', {}, `Refresh failed: ${staleError.message}`)) : null,
      h('section', { class: 'card', 'data-state': 'ready', id: 'presale-card' },
        h('div', { class: 'card-head' },
          h('div', { class: 'hero' }, tokenImage(p),
            h('div', {}, h('h2', { id: 'presale-name' }, p.name), h('div', { class: 'muted' }, `${p.tokenName} · ${p.tokenSymbol}`))),
          h('span', { class: `pill ${color}`, id: 'status' }, p.statusLabel)),
        p.description ? h('p', { class: 'muted' }, p.description) : null,
        h('div', {},
          h('div', { class: 'big', id: 'raised' }, `${p.raisedFormatted} USDC`),
          h('div', { class: 'muted' }, `raised of ${p.targetFormatted} USDC · `, h('strong', { id: 'percent' }, p.percentFormatted))),
        h('div', { class: 'bar with-marker', role: 'progressbar', 'aria-valuenow': p.percent, 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuetext': `${p.percentFormatted} of the ${p.targetFormatted} USDC target raised`, 'aria-label': 'Raised toward the target', id: 'progress' },
          h('div', { class: 'fill', style: { width: `${p.percent}%` } }), marker),
        h('p', { id: 'status-detail' }, p.thresholdReached ? '✓ ' : '', p.statusDetail),
        h('div', { class: 'stats' },
          stat(p.phase === 'upcoming' ? 'Starts in' : 'Time left', time, 'time-left'),
          stat('Participants', String(p.participantCount), 'participants'),
          stat('Still to raise', `${p.remainingFormatted} USDC`),
          stat(`Launch at ${p.thresholdPercent}%`, `${p.thresholdAmountFormatted} USDC`)),
        h('div', { class: 'muted' }, `${when(p.startsAtMs)} → ${when(p.endsAtMs)}`)),
      p.completion ? h('section', { class: 'card' },
        h('h2', {}, `Launch: ${p.completion.label}`),
        h('div', { class: 'step-list' }, ['pending', 'swapping', 'token-created', 'tokens-withdrawn', 'distributing', 'completed']
          .map((s, i) => h('span', { class: i <= (p.completion.stepIndex ?? -1) ? 'done' : '' }, s)))) : null,
      h('section', { class: 'card' },
        h('div', { class: 'card-head' }, h('h2', {}, 'Participants'), h('span', { class: 'muted', id: 'updated' }, updatedLabel())),
        participants),
    ].filter(Boolean));
  };

  const show = (presaleId) => {
    watch?.stop();
    result.replaceChildren(skeleton(6));
    let last = null;
    watch = client.watchPresale(presaleId, (presale, error) => {
      if (presale) {
        last = presale;
        render(presale, null);
      } else if (last && error.code !== 'presale_not_found') {
        render(last, error);
      } else {
        renderError(result, error, { retry: () => show(presaleId) });
        watch.stop();
      }
    }, {
      intervalMs: POLL_MS,
      // The socket opened or dropped: say so (the first pushed copy repeats the read, so no
      // render follows by itself).
      onLive: () => {
        const label = document.getElementById('updated');
        if (label) label.textContent = updatedLabel();
      },
    });
  };

  lookup(document.getElementById('lookup-form'), 'id', show);
}
