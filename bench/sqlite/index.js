// The statements a ledger write runs, one kind at a time (bench/sqlite.mjs drives it):
// `GET /<kind>?n=20` runs the kind's statement 20 times in one transaction (`&each`: in 20;
// `&group`: in a savepoint, committed with the requests that arrived meanwhile; `&gate`: in a
// transaction of its own, run in one task with the requests that arrived meanwhile). The tables copy
// tokenpad's (crates/worker/src/adapters/sql.rs, sql_events.rs) with variants beside them, so
// a change to the schema can be priced before it is made: a balance row with and without the
// holder-count trigger, a history row with and without its user index or `RETURNING`, an event
// row with and without its time index, two rows in one statement, and history and event rows
// numbered by the caller (as tokenpad inserts them) in tables with and without AUTOINCREMENT;
// the idempotency table; and whole requests' sets: the floor's one update (bench/hello's
// /object-write), a spend's six statements, one journal row holding as many bytes, and that
// row with its batch's application to the tables every 20th request.
import { DurableObject } from 'cloudflare:workers';

const ZERO = '0'.repeat(39);
const TOKEN = `0x${'ab'.repeat(20)}`;
const owner = (i) => `0x${(i * 7919).toString(16).padStart(40, '0')}`;
const key = (v) => String(v).padStart(39, '0');
// A stored document about the size of a token or a history record.
const DOC = JSON.stringify({
  address: TOKEN, name: 'Bench token', symbol: 'BENCH', decimals: 18, totalSupply: '1000000000000000000000000000000',
  remaining: '999999999999999999999', merchantSupply: '123456789', held: '987654321000', canDistribute: true,
  kind: 'merchant', merchantAddress: owner(3), createdAt: 1700000000, description: 'x'.repeat(200),
});
const BALANCE = (table) => `CREATE TABLE IF NOT EXISTS ${table} (token TEXT NOT NULL, owner TEXT NOT NULL, active TEXT NOT NULL, locked TEXT NOT NULL, total_key TEXT NOT NULL, PRIMARY KEY (token, owner))`;
const UPSERT = (table, rows = 1) => `INSERT INTO ${table} (token, owner, active, locked, total_key) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?)').join(', ')} ON CONFLICT(token, owner) DO UPDATE SET active = excluded.active, locked = excluded.locked, total_key = excluded.total_key`;
const EVENTS = (table, autoincrement = true) => `CREATE TABLE IF NOT EXISTS ${table} (seq INTEGER PRIMARY KEY${autoincrement ? ' AUTOINCREMENT' : ''}, kind TEXT NOT NULL, at INTEGER NOT NULL, resource TEXT NOT NULL, subject TEXT NOT NULL, data TEXT)`;
const EVENT = (table, rows = 1) => `INSERT INTO ${table} (kind, at, resource, subject, data) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?)').join(', ')}`;
// As tokenpad inserts them: the object numbers its events and history records itself.
const NUMBERED_EVENT = (table) => `INSERT INTO ${table} (seq, kind, at, resource, subject, data) VALUES (?, ?, ?, ?, ?, ?)`;
const HISTORY = (table, autoincrement = true) => `CREATE TABLE IF NOT EXISTS ${table} (seq INTEGER PRIMARY KEY${autoincrement ? ' AUTOINCREMENT' : ''}, user_id TEXT NOT NULL, token TEXT NOT NULL, data TEXT NOT NULL)`;

const SCHEMA = [
  BALANCE('balances'), BALANCE('balances_untriggered'),
  ...['balances', 'balances_untriggered'].flatMap((t) => [
    `CREATE INDEX IF NOT EXISTS ${t}_by_total_owner ON ${t} (token, total_key DESC, owner)`,
    `CREATE INDEX IF NOT EXISTS ${t}_by_owner ON ${t} (owner)`,
  ]),
  'CREATE TABLE IF NOT EXISTS holder_counts (token TEXT NOT NULL, n INTEGER NOT NULL)',
  'CREATE UNIQUE INDEX IF NOT EXISTS holder_counts_by_token ON holder_counts (token)',
  // The trigger tokenpad kept holder counts with until it counted them in the balance write.
  `CREATE TRIGGER IF NOT EXISTS holder_counts_update AFTER UPDATE OF total_key ON balances WHEN (OLD.total_key = '${ZERO}') != (NEW.total_key = '${ZERO}') BEGIN INSERT INTO holder_counts (token, n) VALUES (NEW.token, CASE WHEN NEW.total_key = '${ZERO}' THEN -1 ELSE 1 END) ON CONFLICT(token) DO UPDATE SET n = n + excluded.n; END`,
  'CREATE TABLE IF NOT EXISTS tokens (seq INTEGER PRIMARY KEY AUTOINCREMENT, address TEXT NOT NULL UNIQUE, data TEXT NOT NULL)',
  HISTORY('history'), HISTORY('history_unindexed'), HISTORY('history_numbered'), HISTORY('history_plain', false),
  'CREATE INDEX IF NOT EXISTS history_by_user ON history (user_id, seq)',
  'CREATE INDEX IF NOT EXISTS history_numbered_by_user ON history_numbered (user_id, seq)',
  'CREATE INDEX IF NOT EXISTS history_plain_by_user ON history_plain (user_id, seq)',
  EVENTS('events'), EVENTS('events_untimed'), EVENTS('events_numbered'), EVENTS('events_plain', false),
  ...['events', 'events_untimed', 'events_numbered', 'events_plain'].flatMap((t) => [
    `CREATE INDEX IF NOT EXISTS ${t}_by_kind ON ${t} (kind, seq)`,
    `CREATE INDEX IF NOT EXISTS ${t}_unsealed ON ${t} (seq) WHERE data IS NULL`,
  ]),
  'CREATE INDEX IF NOT EXISTS events_by_time ON events (at)',
  'CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)',
  'CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (created_at)',
  'CREATE TABLE IF NOT EXISTS idempotency_ageless (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)',
  'CREATE TABLE IF NOT EXISTS idempotency_slim (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID',
  'CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, data TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS floor (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)',
  'INSERT OR IGNORE INTO floor (id, n) VALUES (1, 0)',
  'CREATE INDEX IF NOT EXISTS events_numbered_by_time ON events_numbered (at)',
  'CREATE INDEX IF NOT EXISTS events_plain_by_time ON events_plain (at)',
];

// A key's kept answer, about the size of a spend's.
const BODY = JSON.stringify({ transaction: { id: 'x'.repeat(36), amount: '1000000', status: 'completed' } });
const keyOf = (i) => `merchant:key-${i}`;
/** The statements of a write, each on the table given (tokenpad's, or a variant beside it). */
const RUN = {
  keyLookup: (sql, t, i) => sql.exec(`SELECT key, fingerprint, status, body, created_at FROM ${t} WHERE key IN (?) AND created_at >= ?`, keyOf(i), 1700000000).toArray(),
  keyKept: (sql, t, i) => sql.exec(`INSERT OR REPLACE INTO ${t} (key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?)`, keyOf(i), 'f'.repeat(64), 200, BODY, 1700000000 + i),
  balance: (sql, t, i) => sql.exec(UPSERT(t), TOKEN, owner(i % 1000), String(i), '0', key(i)),
  token: (sql) => sql.exec('INSERT INTO tokens (address, data) VALUES (?, ?) ON CONFLICT(address) DO UPDATE SET data = excluded.data', TOKEN, DOC),
  history: (sql, t, i) => sql.exec(`INSERT INTO ${t} (seq, user_id, token, data) VALUES (?, ?, ?, ?)`, i, `h${i % 100}`, TOKEN, DOC),
  event: (sql, t, i) => sql.exec(NUMBERED_EVENT(t), i, 'transaction.created', 1700000000 + (i >> 4), `r${i}`, `h${i % 100}`, DOC),
  // One journal row of a spend's bytes.
  journal: (sql, i) => sql.exec('INSERT INTO journal (seq, data) VALUES (?, ?)', i, DOC + DOC + DOC + BODY),
};

/** The statements a spend runs, in its order (`x-sql-statements`: 6): its key looked up, the
 * holder's balance, the token row, a history record, an event, the key's answer kept; on the
 * `tables` given. Run with `--n 1`, a request's one commit. */
function spend(sql, i, tables) {
  RUN.keyLookup(sql, tables.keys, i);
  spendWrites(sql, i, tables);
}

/** A spend's five writes, in its order (after its key's lookup). */
function spendWrites(sql, i, tables) {
  RUN.balance(sql, 'balances_untriggered', i);
  RUN.token(sql);
  RUN.history(sql, tables.history, i);
  RUN.event(sql, tables.events, i);
  RUN.keyKept(sql, tables.keys, i);
}
// tokenpad's tables (history and events numbered by the caller, as it inserts them).
const TABLES = { keys: 'idempotency', history: 'history_numbered', events: 'events_numbered' };

// The journal's rows not yet applied (the journal kind's own numbers: other kinds take the
// numbers between them).
const journaled = [];

/** Each kind: the statement for the i-th run (some run once for two rows). */
const KINDS = {
  none: () => {},
  'select 1': (sql) => sql.exec('SELECT 1'),
  'balance upsert': (sql, i) => sql.exec(UPSERT('balances'), TOKEN, owner(i % 1000), String(i), '0', key(i)),
  'balance upsert, no trigger': (sql, i) => RUN.balance(sql, 'balances_untriggered', i),
  'balance upsert, two rows': (sql, i) => i % 2 === 0 && sql.exec(UPSERT('balances_untriggered', 2),
    TOKEN, owner(i % 1000), String(i), '0', key(i), TOKEN, owner((i + 1) % 1000), String(i), '0', key(i)),
  // The same row written by a plain UPDATE, as a write may when it knows the row is there.
  'balance update, no trigger': (sql, i) => sql.exec('UPDATE balances_untriggered SET active = ?, locked = ?, total_key = ? WHERE token = ? AND owner = ?', String(i), '0', key(i), TOKEN, owner(i % 1000)),
  'token upsert': (sql) => RUN.token(sql),
  'history insert': (sql, i) => sql.exec('INSERT INTO history (user_id, token, data) VALUES (?, ?, ?)', `h${i % 100}`, TOKEN, DOC),
  'history insert, RETURNING seq': (sql, i) => sql.exec('INSERT INTO history (user_id, token, data) VALUES (?, ?, ?) RETURNING seq', `h${i % 100}`, TOKEN, DOC).toArray(),
  'history insert, seq given': (sql, i) => RUN.history(sql, 'history_numbered', i),
  'history insert, seq given, no AUTOINCREMENT': (sql, i) => sql.exec('INSERT INTO history_plain (seq, user_id, token, data) VALUES (?, ?, ?, ?)', i, `h${i % 100}`, TOKEN, DOC),
  'history insert, no user index': (sql, i) => sql.exec('INSERT INTO history_unindexed (user_id, token, data) VALUES (?, ?, ?)', `h${i % 100}`, TOKEN, DOC),
  'event insert': (sql, i) => sql.exec(EVENT('events'), 'transaction.created', 1700000000 + (i >> 4), `r${i}`, `h${i % 100}`, DOC),
  'event insert, seq given': (sql, i) => RUN.event(sql, 'events_numbered', i),
  'event insert, seq given, no AUTOINCREMENT': (sql, i) => RUN.event(sql, 'events_plain', i),
  'event insert, seq given, no time index': (sql, i) => RUN.event(sql, 'events_untimed', i),
  'event insert, two rows': (sql, i) => i % 2 === 0 && sql.exec(EVENT('events', 2),
    'transaction.created', 1700000000 + (i >> 4), `r${i}`, `h${i % 100}`, DOC, 'transaction.created', 1700000000 + (i >> 4), `r${i}`, `h${i % 100}`, DOC),
  'floor update': (sql) => sql.exec('UPDATE floor SET n = n + 1 WHERE id = 1'),
  'idempotency select': (sql, i) => RUN.keyLookup(sql, 'idempotency', i),
  'idempotency insert': (sql, i) => RUN.keyKept(sql, 'idempotency', i),
  'idempotency insert, no age index, WITHOUT ROWID': (sql, i) => RUN.keyKept(sql, 'idempotency_slim', i),
  'journal row': (sql, i) => RUN.journal(sql, i),
  // A journal's whole price: each request looks its key up and writes one journal row; every
  // 20th also applies the 20 rows' spends to the tables (their five writes each) and deletes
  // them, as a journal applied in batches would. Run with --n 1.
  'journal row, applied 20 at a time': (sql, i) => {
    RUN.keyLookup(sql, TABLES.keys, i);
    RUN.journal(sql, i);
    journaled.push(i);
    if (journaled.length < 20) return;
    for (const j of journaled) spendWrites(sql, j, TABLES);
    sql.exec('DELETE FROM journal WHERE seq <= ?', i);
    journaled.length = 0;
  },
  "a spend's statements": (sql, i) => spend(sql, i, TABLES),
  // History without AUTOINCREMENT, events without their time index, keys WITHOUT ROWID and
  // without their age index.
  "a spend's statements, slimmer tables": (sql, i) => spend(sql, i, { keys: 'idempotency_slim', history: 'history_plain', events: 'events_untimed' }),
  "a spend's statements, no time or age index": (sql, i) => spend(sql, i, { ...TABLES, keys: 'idempotency_ageless', events: 'events_untimed' }),
};

export class Tables extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const s of SCHEMA) this.sql.exec(s);
    if (this.sql.exec('SELECT count(*) AS n FROM balances').one().n === 0) {
      // 1,000 holders of one token, at a balance above zero (no trigger fires its body).
      for (let i = 0; i < 1000; i++) {
        for (const t of ['balances', 'balances_untriggered']) this.sql.exec(UPSERT(t), TOKEN, owner(i), '1000000', '0', key(1000000));
      }
    }
    this.i = 1_000_000;
    this.queued = [];
    this.gate = null;
    this.groups = 0;
    this.grouped = 0;
  }

  /** `each`: every statement in a transaction of its own, as a request's write runs it (its
   * pages dirtied and committed alone), rather than n in one (which shares the pages).
   * `group`: the request's n statements in a transaction of their own (a savepoint), but
   * committed with those of every request that arrived meanwhile: a group commit. The request
   * is queued and answered once its group committed; a macrotask runs the group. */
  run(kind, n, each, group, gate) {
    const statement = KINDS[kind];
    if (!statement) throw new Error(`unknown kind ${kind}`);
    if (gate) {
      // Wait for the gate, then run as usual: every request the gate let through runs in the
      // same task, so the runtime's implicit transaction commits them once.
      if (!this.gate) {
        this.gate = new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
          this.gate = null;
          this.groups += 1;
        });
      }
      this.grouped += 1;
      return this.gate.then(() => this.run(kind, n, each, false, false));
    }
    if (group) {
      return new Promise((resolve, reject) => {
        this.queued.push({ statement, n, resolve, reject });
        if (this.queued.length === 1) setTimeout(() => this.commitGroup(), 0);
      });
    }
    if (each) {
      for (let j = 0; j < n; j++) this.ctx.storage.transactionSync(() => statement(this.sql, this.i++));
    } else {
      this.ctx.storage.transactionSync(() => {
        for (let j = 0; j < n; j++) statement(this.sql, this.i++);
      });
    }
    return Object.keys(KINDS);
  }

  /** One commit for every queued request, each in a savepoint of its own (a failed one is
   * rolled back alone and answered with its error). */
  commitGroup() {
    const group = this.queued;
    this.queued = [];
    this.groups += 1;
    this.grouped += group.length;
    this.ctx.storage.transactionSync(() => {
      for (const r of group) {
        try {
          this.ctx.storage.transactionSync(() => {
            for (let j = 0; j < r.n; j++) r.statement(this.sql, this.i++);
          });
        } catch (e) {
          r.error = e;
        }
      }
    });
    for (const r of group) (r.error ? r.reject(r.error) : r.resolve(Object.keys(KINDS)));
  }

  /** Requests a group commit took, on average, since the last call. */
  groupSize() {
    const mean = this.groups ? this.grouped / this.groups : 0;
    this.groups = 0;
    this.grouped = 0;
    return mean;
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const tables = env.TABLES.get(env.TABLES.idFromName('bench'));
    if (url.pathname === '/group-size') return Response.json(await tables.groupSize());
    const kinds = await tables.run(decodeURIComponent(url.pathname.slice(1)) || 'none', Number(url.searchParams.get('n') ?? 0), url.searchParams.has('each'), url.searchParams.has('group'), url.searchParams.has('gate'));
    return Response.json(kinds);
  },
};
