// Small shared pieces: loading and error states, exact amounts, copy buttons, tables.
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { formatAmount } from '@tokenpad/client';

/** The code and message of anything thrown (a TokenpadError, an ApiError, an Error). */
export function describe(e: unknown): { code: string; message: string } {
  if (e && typeof e === 'object') {
    const o = e as { code?: unknown; message?: unknown };
    return { code: typeof o.code === 'string' ? o.code : 'error', message: typeof o.message === 'string' ? o.message : String(e) };
  }
  return { code: 'error', message: String(e) };
}

/** A failure, said in words: its code and message (never `null`). */
export function ErrorBox({ error, what }: { error: unknown; what?: string }) {
  const { code, message } = describe(error);
  return (
    <p role="alert" className="error">
      {what ? `${what} failed: ` : ''}<strong>{code}</strong>: {message}
    </p>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return <p aria-busy="true">{what}…</p>;
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever `deps` change or `reload()` is called; keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const n = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => n === latest.current && setState({ data, loading: false }),
      (error: unknown) => n === latest.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
    // Reruns when the caller's deps change (or reload() ticks), with the load of that render.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Shows what a load gave: the error, a spinner the first time, else `children(data)`. */
export function Show<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ReactNode }) {
  if (loaded.data === undefined) {
    if (loaded.error !== undefined) return <ErrorBox error={loaded.error} what={`Loading ${what}`} />;
    return <Loading what={`Loading ${what}`} />;
  }
  return (
    <>
      {loaded.error !== undefined && <ErrorBox error={loaded.error} what={`Refreshing ${what}`} />}
      {children(loaded.data)}
    </>
  );
}

/** A write's state: `run(f)` runs it, keeps its result or its error for display. */
export function useAction<T>() {
  const [state, setState] = useState<{ busy: boolean; error?: unknown; result?: T }>({ busy: false });
  const run = useCallback(async (f: () => Promise<T>): Promise<T | undefined> => {
    setState({ busy: true });
    try {
      const result = await f();
      setState({ busy: false, result });
      return result;
    } catch (error) {
      setState({ busy: false, error });
      return undefined;
    }
  }, []);
  const clear = useCallback(() => setState({ busy: false }), []);
  return { ...state, run, clear };
}

/** An exact decimal formatted as the SDK formats it (the package's wasm), the exact value kept in `value`. */
export function Amount({ value, symbol, digits }: { value: string | null | undefined; symbol?: string; digits?: number }) {
  if (value === null || value === undefined) return <span>—</span>;
  let shown: string;
  try {
    shown = formatAmount(value, digits === undefined ? undefined : { maximumFractionDigits: digits });
  } catch {
    shown = value;
  }
  return <data value={value}>{shown}{symbol ? ` ${symbol}` : ''}</data>;
}

/** A button that copies `text`, named `label` ("Copy secret key"). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState<'' | 'copied' | 'failed'>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
  };
  return (
    <>
      <button type="button" className="secondary" onClick={copy}>{label}</button>
      <span role="status"> {done === 'copied' ? 'Copied.' : done === 'failed' ? 'Could not copy: select the text instead.' : ''}</span>
    </>
  );
}

/** A value shown once (a new key, a signing secret), with its copy button. */
export function ShownOnce({ title, value, copyLabel }: { title: string; value: string; copyLabel: string }) {
  return (
    <article aria-label={title}>
      <h3>{title}</h3>
      <p>Shown once: copy it now, it is never shown again.</p>
      <code className="secret">{value}</code>
      <div className="row-actions"><CopyButton text={value} label={copyLabel} /></div>
    </article>
  );
}

/** A table that scrolls sideways on a phone rather than widening the page. */
export function Table({ caption, head, children }: { caption: string; head: string[]; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead><tr>{head.map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A date as the service wrote it (ISO 8601 or UNIX ms/seconds), in UTC, to the minute. */
export function When({ at }: { at: string | number | null | undefined }) {
  if (at === null || at === undefined || at === '') return <span>—</span>;
  const ms = typeof at === 'number' ? (at < 1e12 ? at * 1000 : at) : Date.parse(at);
  if (!Number.isFinite(ms)) return <span>{String(at)}</span>;
  const iso = new Date(ms).toISOString();
  return <time dateTime={iso}>{iso.slice(0, 16).replace('T', ' ')} UTC</time>;
}

/** A block explorer's page for a transaction or address on the token's network, when it has one. */
export function explorerUrl(network: string | undefined, kind: 'tx' | 'address', id: string): string | null {
  const base = network === 'base' ? 'https://basescan.org'
    : network === 'base-sepolia' ? 'https://sepolia.basescan.org'
      : network === 'sepolia' ? 'https://sepolia.etherscan.io' : null;
  return base ? `${base}/${kind}/${id}` : null;
}

export function Explorer({ network, kind, id }: { network?: string; kind: 'tx' | 'address'; id: string | null | undefined }) {
  if (!id) return <span>—</span>;
  const url = explorerUrl(network, kind, id);
  const short = id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
  return url ? <a href={url} target="_blank" rel="noopener noreferrer">{short}</a> : <code title={id}>{short}</code>;
}
