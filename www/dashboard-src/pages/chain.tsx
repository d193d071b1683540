// The chain: where settlement stands (GET /health's chain: its kind, node and relayers, as the
// settlers last reported), this merchant's own settlement (GET /merchant/chain: its relayer
// wallet and ETH balance, movements open and in flight, refused and parked movements), its
// parked work (GET /merchant/parked-work), and explorer links. Each movement's own
// settlement is in a holder's history (Holders page).
import type { Health, MerchantChain } from '@tokenpad/client/server';
import { formatAmount, formatUnits } from '@tokenpad/client';
import { useMerchant } from '../merchant';
import { account } from '../api';
import { Explorer, Show, Table, useLoad, When } from '../ui';

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

/** Wei (an exact integer string) as ETH, every digit kept (1 wei is 0.000000000000000001 ETH,
 *  not 0): the package's exact decimal arithmetic, never a float. */
export function ethOf(wei: string): string {
  return formatAmount(formatUnits(wei, 18), { maximumFractionDigits: 18 });
}

export function Eth({ wei }: { wei: string | null | undefined }) {
  if (wei === null || wei === undefined) return <span>not read yet</span>;
  let shown: string;
  try {
    shown = ethOf(wei);
  } catch {
    return <span>{wei} wei</span>;
  }
  return <data value={wei} title={`${wei} wei`}>{shown} ETH</data>;
}

function Settlement({ v }: { v: MerchantChain }) {
  const network = v.chainId ? NETWORK_OF[v.chainId] : undefined;
  const r = v.relayer;
  return (
    <>
      {r === null || r === undefined ? (
        <p>No relayer: the embedded chain settles in the ledger itself, nothing goes on chain.</p>
      ) : (
        <>
          <p role="status" className={r.stopped ? 'error' : 'ok'}>
            {r.stopped ? `Settlement is stopped: ${r.error ?? 'no reason kept'}` : 'Settlement is running.'}
            {r.stopped && r.errorAt ? <> Since <When at={r.errorAt} />.</> : null}
          </p>
          <dl className="figures">
            <div><dt>Relayer</dt><dd><Explorer network={network} kind="address" id={r.address} /> <code>{r.address}</code></dd></div>
            <div><dt>Balance</dt><dd><Eth wei={r.balanceWei} />{r.balanceAt ? <> (read <When at={r.balanceAt} />)</> : null}</dd></div>
            <div><dt>Next nonce</dt><dd>{r.nextNonce ?? '—'}</dd></div>
          </dl>
          <p>The relayer signs and pays the gas for every transaction of this app: keep ETH on it{network ? ` (${network})` : ''}.</p>
        </>
      )}
      <p>{v.openMovements} movement{v.openMovements === 1 ? '' : 's'} not settled yet; {v.transactions.length} transaction{v.transactions.length === 1 ? '' : 's'} in flight.</p>
      {v.transactions.length > 0 && (
        <Table caption="Transactions in flight, lowest nonce first" head={['Nonce', 'State', 'Movements', 'Transaction', 'Error']}>
          {v.transactions.map((t) => (
            <tr key={t.nonce}>
              <td>{t.nonce}</td><td>{t.state}</td><td>{t.movements}</td>
              <td><Explorer network={network} kind="tx" id={t.hashes[t.hashes.length - 1]} /></td><td>{t.error ?? ''}</td>
            </tr>
          ))}
        </Table>
      )}
      {v.failed.length > 0 && (
        <Table caption="Movements the chain refused (undone in the ledger), newest first" head={['Movement', 'Token', 'Transaction', 'Error']}>
          {v.failed.map((f) => (
            <tr key={f.id}>
              <td>{f.id}</td><td><Explorer network={network} kind="address" id={f.tokenAddress} /></td>
              <td><Explorer network={network} kind="tx" id={f.transactionHash} /></td><td>{f.error ?? ''}</td>
            </tr>
          ))}
        </Table>
      )}
      {v.parked.length > 0 && (
        <Table caption="Movements held for the operator, oldest first" head={['Movement', 'What', 'Token', 'Why', 'Attempts', 'Since']}>
          {v.parked.map((p) => (
            <tr key={p.id}>
              <td>{p.id}</td><td>{p.movement}</td><td><Explorer network={network} kind="address" id={p.tokenAddress} /></td>
              <td>{p.why}</td><td>{p.attempts}</td><td><When at={p.since} /></td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

export function Chain() {
  const m = useMerchant();
  const health = useLoad(() => account<Health>('GET', '/health'), []);
  const own = useLoad(() => m.run((s) => s.getMerchantChain()), [m.id]);
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
              <p>Release {h.version} ({h.commit}). Explorer links: {network ? `${network}'s block explorer` : 'none for this chain'}.</p>
            </>
          );
        }}</Show>
      </section>
      <section aria-labelledby="own-h">
        <h2 id="own-h">This app's settlement</h2>
        <Show loaded={own} what="this app's settlement">{(v) => <Settlement v={v} />}</Show>
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
