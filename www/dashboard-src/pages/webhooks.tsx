// Webhooks: endpoints, the signing secret shown once, deliveries with their status and a
// retry, and the event log.
import { useState, type FormEvent } from 'react';
import type { Webhook, WebhookCreated } from '@tokenpad/client/server';
import { useMerchant } from '../merchant';
import { ErrorBox, Show, ShownOnce, Table, useAction, useLoad, When } from '../ui';

function Deliveries({ hook }: { hook: Webhook }) {
  const m = useMerchant();
  const list = useLoad(() => m.run((s) => s.listDeliveries(hook.id, { limit: 20 })), [m.id, hook.id]);
  const act = useAction<unknown>();
  const retry = async (deliveryId: string) => {
    if (await act.run(() => m.run((s) => s.replayDelivery(hook.id, deliveryId)))) list.reload();
  };
  return (
    <Show loaded={list} what="the deliveries">{(p) => p.data.length === 0 ? <p>No delivery yet.</p> : (
      <>
        {act.error !== undefined && <ErrorBox error={act.error} what="Retry" />}
        <Table caption={`Deliveries to ${hook.url}`} head={['When', 'Event', 'Status', 'Attempts', 'Retry']}>
          {p.data.map((d) => (
            <tr key={d.id}>
              <td><When at={d.createdAt} /></td>
              <td>{d.eventType}</td>
              <td>{d.status}</td>
              <td>{d.attemptCount}</td>
              <td>{m.canWrite ? <button type="button" className="secondary" onClick={() => void retry(d.id)}>Retry</button> : '—'}</td>
            </tr>
          ))}
        </Table>
      </>
    )}</Show>
  );
}

function Endpoint({ hook, onChange }: { hook: Webhook; onChange: () => void }) {
  const m = useMerchant();
  const [open, setOpen] = useState(false);
  const act = useAction<unknown>();
  const doIt = async (f: () => Promise<unknown>) => {
    if (await act.run(f)) onChange();
  };
  return (
    <article aria-label={`Endpoint ${hook.url}`}>
      <h3>{hook.url}</h3>
      <p>{hook.description ? `${hook.description} · ` : ''}{hook.enabled ? 'Enabled' : 'Disabled'} · events: {hook.events.join(', ')} · since <When at={hook.createdAt} /></p>
      {m.canWrite && (
        <div className="row-actions">
          <button type="button" className="secondary" onClick={() => void doIt(() => m.run((s) => s.testWebhook(hook.id)))}>Send test event</button>
          <button type="button" className="secondary" onClick={() => void doIt(() => m.run((s) => s.updateWebhook(hook.id, { enabled: !hook.enabled })))}>{hook.enabled ? 'Disable' : 'Enable'}</button>
          <button type="button" className="secondary outline" onClick={() => void doIt(() => m.run((s) => s.deleteWebhook(hook.id)))}>Delete endpoint</button>
        </div>
      )}
      {act.error !== undefined && <ErrorBox error={act.error} what="Endpoint" />}
      <details open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary>Deliveries</summary>
        {open && <Deliveries hook={hook} />}
      </details>
    </article>
  );
}

function Events() {
  const m = useMerchant();
  const [after, setAfter] = useState<string[]>([]);
  const page = useLoad(() => m.run((s) => s.listEvents({ limit: 20, ...(after.length ? { after: after[after.length - 1] } : {}) })), [m.id, after.join()]);
  return (
    <section aria-labelledby="events-h">
      <h2 id="events-h">Event log</h2>
      <Show loaded={page} what="the events">{(p) => (
        <>
          {p.data.length === 0 ? <p>No event yet.</p> : (
            <Table caption="Events" head={['When', 'Type', 'Resource', 'Id']}>
              {p.data.map((e) => <tr key={e.id}><td><When at={e.createdAt} /></td><td>{e.type}</td><td>{e.resource}</td><td><code>{e.id}</code></td></tr>)}
            </Table>
          )}
          <div className="row-actions">
            <button type="button" className="secondary" disabled={after.length === 0} onClick={() => setAfter(after.slice(0, -1))}>Back</button>
            <button type="button" className="secondary" disabled={!p.has_more || !p.next_cursor} onClick={() => p.next_cursor && setAfter([...after, p.next_cursor])}>More events</button>
          </div>
        </>
      )}</Show>
    </section>
  );
}

export function Webhooks() {
  const m = useMerchant();
  const list = useLoad(() => m.run((s) => s.listWebhooks()), [m.id]);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [description, setDescription] = useState('');
  const act = useAction<WebhookCreated>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const made = await act.run(() => m.run((s) => s.createWebhook({
      url, events: events.split(/[\s,]+/).filter(Boolean) as never, ...(description ? { description } : {}),
    })));
    if (made) {
      setUrl('');
      list.reload();
    }
  };
  return (
    <>
      <h1>Webhooks</h1>
      {m.canWrite && (
        <article>
          <h2>Add an endpoint</h2>
          <form onSubmit={submit}>
            <label>Endpoint URL<input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} /></label>
            <label>Events<input required value={events} aria-describedby="events-help" onChange={(e) => setEvents(e.target.value)} /></label>
            <small id="events-help">Comma separated: <code>*</code>, <code>transaction.*</code>, <code>presale.launched</code>, …</small>
            <label>Description<input value={description} onChange={(e) => setDescription(e.target.value)} /></label>
            {act.error !== undefined && <ErrorBox error={act.error} what="Add endpoint" />}
            <button type="submit" aria-busy={act.busy}>Add endpoint</button>
          </form>
          {act.result && <ShownOnce title="Signing secret" value={act.result.secret} copyLabel="Copy signing secret" />}
        </article>
      )}
      <h2>Endpoints</h2>
      <Show loaded={list} what="the endpoints">{(hooks) => hooks.length === 0 ? <p>No endpoint yet.</p> : (
        <>{hooks.map((h) => <Endpoint key={h.id} hook={h} onChange={list.reload} />)}</>
      )}</Show>
      <Events />
    </>
  );
}
