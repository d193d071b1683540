// The chain: where settlement stands (GET /health's chain: its kind, node and relayers, as the
// settlers last reported), this merchant's parked work (GET /merchant/parked-work), and
// explorer links. Each movement's own settlement is in a holder's history (Holders page).
import { useMerchant } from '../merchant';
import { account } from '../api';
import { Explorer, Show, Table, useLoad, When } from '../ui';

interface Health {
  ok: boolean;
  version: string;
  commit: string;
  chain: Record<string, unknown> & { kind: string; chainId?: number };
  error?: string;
  warning?: string;
}

const NETWORK_OF: Record<number, string> = { 8453: 'base', 84532: 'base-sepolia', 11155111: 'sepolia' };

function Value({ v }: { v: unknown }) {
  if (v === null || v === undefined) return <span>—</span>;
  if (typeof v === 'object') {
    return <dl className="figures">{Object.entries(v as Record<string, unknown>).map(([k, x]) => (
      <div key={k}><dt>{k}</dt><dd><Value v={x} /></dd></div>
    ))}</dl>;
  }
  return <span>{String(v)}</span>;
}

export function Chain() {
  const m = useMerchant();
  const health = useLoad(() => account<Health>('GET', '/health'), []);
  const parked = useLoad(() => m.run((s) => s.listParkedWork()), [m.id]);
  return (
    <>
      <h1>Chain</h1>
      <section aria-labelledby="settle-h">
        <h2 id="settle-h">Settlement</h2>
        <Show loaded={health} what="the service's health">{(h) => {
          const network = h.chain.chainId ? NETWORK_OF[h.chain.chainId] : undefined;
          const { kind, chainId, ...rest } = h.chain;
          return (
            <>
              <p role="status" className={h.ok ? 'ok' : 'error'}>
                {h.ok ? 'Settling' : 'Not settling'}: {kind === 'embedded' ? 'the embedded chain (the ledger presented as a chain, local and tests)' : `EVM chain ${chainId}${network ? ` (${network})` : ''}`}.
                {h.error ? ` ${h.error}` : ''}{h.warning ? ` ${h.warning}` : ''}
              </p>
              {Object.keys(rest).length > 0 && <Value v={rest} />}
              <p>Release {h.version} ({h.commit}). Explorer links: {network ? `${network}'s block explorer` : 'none for this chain'}.
                A relayer's own balance and in-flight transactions are in the operator's view (<code>GET /admin/merchants/:merchantId/chain</code>, admin key).</p>
            </>
          );
        }}</Show>
      </section>
      <section aria-labelledby="parked-h">
        <h2 id="parked-h">Parked work</h2>
        <p>Work that failed too many times in a row waits here for the operator (docs/chain.md).</p>
        <Show loaded={parked} what="the parked work">{(p) => p.data.length === 0 ? <p>Nothing parked.</p> : (
          <Table caption="Parked work, most recent first" head={['Kind', 'Id', 'Attempts', 'Code', 'Message', 'Since']}>
            {p.data.map((w) => (
              <tr key={`${w.kind}-${w.id}`}>
                <td>{w.kind}</td><td><code>{w.id}</code></td><td>{w.attempts}</td>
                <td>{w.code}</td><td>{w.message}</td><td><When at={w.parkedAt} /></td>
              </tr>
            ))}
          </Table>
        )}</Show>
      </section>
    </>
  );
}
