// --timeout through a misbehaving proxy (issue 27): when does the process end? `svc --timeout D
// --json account` against an https base URL, through HTTPS_PROXY and through HTTP_PROXY, to a
// proxy on loopback that (a) accepts and never answers, (b) answers CONNECT 200 and stalls the
// TLS handshake, (c) drops every connection; plus a direct https base URL whose server never
// finishes the handshake. Wall time of the process, start-up included, against D: the promise
// (docs/security.md) is D plus at most 0.5 s. The tests check the outcome; the times live here.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from './lib.mjs';
import { report } from './measure.mjs';

const TIMEOUT = process.env.BENCH_PROXY_TIMEOUT ?? '2s';
const TIMEOUT_MS = Number(/^(\d+)s$/.exec(TIMEOUT)?.[1] ?? NaN) * 1000;
const RUNS = Number(process.env.BENCH_PROXY_RUNS ?? 3);
/** A run still going after this is killed and reported as such (the old code took 15 s, or forever). */
const KILL_AFTER_MS = Number(process.env.BENCH_PROXY_KILL_MS ?? 30_000);

/** A loopback TCP listener behaving as `behaviour`; counts connections. */
async function listener(behaviour) {
  const sockets = new Set();
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    if (behaviour === 'drop') return void socket.destroy();
    if (behaviour === 'stall-tls') {
      let head = '';
      const onData = (chunk) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
        socket.resume();
      };
      return void socket.on('data', onData);
    }
    socket.resume(); // silent
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    connections: () => connections,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(resolve);
    }),
  };
}

/** One run of the real binary; resolves with its wall time and exit code (null when killed). */
function timeSvc(baseUrl, env) {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-bench-proxy-'));
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, '--no-input', '--json', '--timeout', TIMEOUT, '--base-url', baseUrl, 'account'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir, SVC_API_KEY: 'svc_test_benchproxykey00000000000000001', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const kill = setTimeout(() => child.kill(), KILL_AFTER_MS);
    child.on('close', (code) => {
      clearTimeout(kill);
      rmSync(configDir, { recursive: true, force: true });
      let errorCode = 'killed';
      try {
        errorCode = JSON.parse(stderr).error.code;
      } catch {}
      resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, errorCode });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const cases = [];
for (const behaviour of ['silent', 'stall-tls', 'drop']) {
  for (const variable of ['HTTPS_PROXY', 'HTTP_PROXY']) cases.push({ label: `${variable}, proxy ${behaviour}`, behaviour, proxy: variable });
}
cases.push({ label: 'direct https, TLS never answered', behaviour: 'silent' });

const rows = [];
for (const c of cases) {
  const times = [];
  let last;
  let connections = 0;
  for (let i = 0; i < RUNS; i++) {
    const l = await listener(c.behaviour);
    const target = `127.0.0.1:${l.port}`;
    last = c.proxy
      ? await timeSvc('https://api.example.invalid', { [c.proxy]: `http://${target}` })
      : await timeSvc(`https://${target}`, {});
    times.push(last.ms);
    connections = l.connections();
    await l.close();
  }
  const ms = median(times);
  const over = ms - TIMEOUT_MS;
  rows.push({
    label: c.label,
    ms,
    value: `exit ${last.code ?? 'killed'} (${last.errorCode}), ${connections} connection(s), ${over >= 0 ? '+' : ''}${(over / 1000).toFixed(2)} s past --timeout`,
    aim: `<= ${TIMEOUT_MS + 500} ms`,
  });
}
report(`--timeout ${TIMEOUT} through a misbehaving proxy: process wall time`, rows, `median of ${RUNS} runs, start-up included, Node ${process.version}`);
