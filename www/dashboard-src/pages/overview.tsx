// The app's front page: what it has, at a glance.
import { useMerchant } from '../merchant';
import { Show, useLoad } from '../ui';

export function Overview() {
  const m = useMerchant();
  const data = useLoad(() => m.run(async (s) => {
    const [tokens, presales, settings] = await Promise.all([s.listTokens(), s.listPresales(), s.getSettings()]);
    return { tokens, presales, settings };
  }), [m.id]);
  const link = (p: string) => `#/m/${encodeURIComponent(m.id)}/${p}`;
  return (
    <>
      <h1>{m.name}</h1>
      <p>Your role: {m.role}{m.role === 'viewer' ? ' (read only)' : ''}. Merchant id <code>{m.id}</code>.</p>
      <Show loaded={data} what="the overview">{(d) => (
        <dl className="figures">
          <div><dt>Tokens</dt><dd><a href={link('tokens')}>{d.tokens.length}</a></dd></div>
          <div><dt>Presales</dt><dd><a href={link('presales')}>{d.presales.length}</a></dd></div>
          <div><dt>Holders (all tokens)</dt><dd>{d.tokens.reduce((n, t) => n + t.holdersCount, 0)}</dd></div>
          <div><dt>Private mode</dt><dd><a href={link('settings')}>{d.settings.privateMode ? 'On' : 'Off'}</a></dd></div>
        </dl>
      )}</Show>
    </>
  );
}
