// The processes a worker under test runs, read from Linux's /proc: process groups, command
// lines, listening ports, descendants; and the Worker's own runtime behind wrangler's proxy.
// The harness (harness.mjs) starts and stops workers with these; tests and benchmarks read
// them through it, and bench/inspector.mjs finds workerd's inspector with them.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

export function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

// True while a process of the group is still running. Zombies do not count: this machine's
// init reaps orphans late, and a zombie holds no port and no file.
export function groupAlive(child) {
  if (!killGroup(child, 0)) return false;
  if (process.platform !== 'linux') return true;
  try {
    return groupProcesses(child.pid).some((p) => p.state !== 'Z' && p.state !== 'X');
  } catch {
    return true;
  }
}

/**
 * The processes of process group `pgid`, from Linux's /proc: each one's pid, name, state and
 * CPU time (user and system, in clock ticks). Throws where there is no /proc.
 */
export function groupProcesses(pgid) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone
    }
    // pid (comm) state ppid pgrp ... utime stime; comm may contain spaces, so split after
    // the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (Number(f[2]) === pgid) found.push({ pid: Number(entry), name, state: f[0], ticks: Number(f[11]) + Number(f[12]) });
  }
  return found;
}

/** Every process (Linux's /proc): its pid, process group and command line (NUL-separated arguments joined by spaces). */
export function processes() {
  const out = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      out.push({ pid: Number(pid), pgrp, cmdline });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** The workerd listening on `port`: wrangler's proxy, in front of the Worker's runtime. */
export const proxyOf = (port) => processes().find((p) => /workerd/.test(p.cmdline) && p.cmdline.includes(`--socket-addr=entry=127.0.0.1:${port} `));

/** The workerd that runs the Worker behind `port`'s proxy: the other workerd of its process group. */
export function runtimeOf(port) {
  const proxy = proxyOf(port);
  return proxy && processes().find((p) => p.pgrp === proxy.pgrp && p.pid !== proxy.pid && /\bworkerd serve\b/.test(p.cmdline));
}

/** The TCP ports process `pid` listens on, from Linux's /proc (its sockets' inodes in
 * /proc/net/tcp and tcp6). */
export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(1) : []))
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length > 9 && f[3] === '0A' && inodes.has(f[9])) // 0A: LISTEN
    .map((f) => parseInt(f[1].split(':').pop(), 16));
}

/** True when a live process of process group `pgid` listens on TCP `port` (Linux's /proc). */
export function groupListens(pgid, port) {
  return groupProcesses(pgid).some((p) => {
    if (p.state === 'Z' || p.state === 'X') return false;
    try {
      return listeningPorts(p.pid).includes(port);
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** The process ids below `pid` (children, theirs, and so on), from Linux's /proc. */
export function descendants(pid) {
  const parent = new Map();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const out = [];
  const walk = (p) => {
    for (const [child, pp] of parent) if (pp === p) { out.push(child); walk(child); }
  };
  walk(pid);
  return out;
}

/**
 * The URL of the Worker's own runtime behind worker `w`'s port, without wrangler's proxy: for
 * what the proxy would hide (it answers a request whose body ends early with its own plain-text
 * 503 "Your worker restarted mid-request", whatever the Worker said). Found as the runtime's
 * listening port whose `/health` answers as the Worker does. Linux only (/proc).
 */
export async function runtimeUrl(w) {
  const runtime = runtimeOf(Number(new URL(w.baseUrl).port));
  if (!runtime) throw new Error('harness: no Workers runtime behind the proxy');
  for (const port of listeningPorts(runtime.pid)) {
    const url = `http://127.0.0.1:${port}`;
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok && (await res.json()).ok === true) return url;
    } catch {
      /* the inspector's or the debug port */
    }
  }
  throw new Error('harness: the Workers runtime has no port answering /health');
}
