// Hello world: the fastest a Worker can answer under this runtime (scripts/bench.sh).
//
// `/log` answers the same after writing one JSON log line, as tokenpad writes for every
// request: what the runtime itself charges for a console line (wrangler dev carries each
// line to its terminal through the inspector).
//
// `/object` and `/object-write` write the same line and then call one SQLite-backed Durable
// Object by RPC, as tokenpad's edge calls a merchant's object: the read answers one row of one
// SQL query, the write updates that row in a transaction and answers it. Nothing else: no key,
// no routing, no JSON decoding. They are the floor the runtime sets for any route that reaches a
// merchant's ledger; tokenpad's reads and writes are measured against them too.
// `/object-quiet` and `/object-write-quiet` are the same without the log line: the floor for
// tokenpad run with `REQUEST_LOG=off`.
import { DurableObject } from 'cloudflare:workers';

export class Ledger extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec('CREATE TABLE IF NOT EXISTS balances (id TEXT PRIMARY KEY, amount INTEGER NOT NULL)');
    this.sql.exec("INSERT OR IGNORE INTO balances (id, amount) VALUES ('h0', 0)");
  }

  read(id) {
    return JSON.stringify(this.sql.exec('SELECT id, amount FROM balances WHERE id = ?', id).one());
  }

  add(id, amount) {
    return this.ctx.storage.transactionSync(() => {
      this.sql.exec('UPDATE balances SET amount = amount + ? WHERE id = ?', amount, id);
      return JSON.stringify(this.sql.exec('SELECT id, amount FROM balances WHERE id = ?', id).one());
    });
  }
}

const logLine = (method, route) => console.log(JSON.stringify({
  type: 'request', requestId: `req_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`, method,
  route, merchantId: 'm_0123456789abcdef', status: 200, code: null, replayed: false, durationMs: 1,
}));

const json = (body) => new Response(body, { headers: { 'content-type': 'application/json' } });

/** The object routes: a call to the one ledger, then the log line (unless quiet). */
async function object(env, write, quiet = false) {
  const ledger = env.LEDGER.get(env.LEDGER.idFromName('bench'));
  const body = write ? await ledger.add('h0', 1) : await ledger.read('h0');
  if (!quiet) logLine(write ? 'POST' : 'GET', write ? '/holder/:userId/spend' : '/holder/:userId');
  return json(body);
}

export default {
  // Not async, and suffix tests rather than a URL parse: the plain route must stay as cheap as
  // it was.
  fetch(request, env) {
    const url = request.url;
    if (url.endsWith('/log')) logLine('GET', '/holder/:userId');
    else if (url.endsWith('/object')) return object(env, false);
    else if (url.endsWith('/object-write')) return object(env, true);
    else if (url.endsWith('/object-quiet')) return object(env, false, true);
    else if (url.endsWith('/object-write-quiet')) return object(env, true, true);
    return json('{"hello":"world"}');
  },
};
