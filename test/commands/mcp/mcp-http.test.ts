// `svc mcp --http` (issue 38): the same server over Streamable HTTP, driven by the MCP SDK's own
// client at its defaults against the real binary and an in-process sandbox. What is checked: the
// tools, a read and a send work over HTTP; the URL is printed once and is the only path that
// answers (a bare /mcp, /, the path with one character changed: 404 and no MCP answer); a Host or
// an Origin other than the address it listens on: 403; a non-loopback HOST: exit 2 in one line;
// two sessions share one --max-total budget; a wait's progress reaches its session over HTTP and
// the owner's approval ends it; --confirm-sends asks the host of the session the send
// came from, and refuses in a session whose host cannot ask; SIGINT and SIGTERM end it with 130 and
// free the port.
import { connect } from 'node:net';
import { MAX_SESSIONS } from '../../../src/commands/mcp/http.js';
import { CreateTaskResultSchema, ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { newTestAgent, type TestAgent } from '../../helpers/mcp-agent.js';
import { rawInitialize, startHttpMcp, type HttpMcp } from '../../helpers/mcp-http.js';
import { runSvc } from '../../helpers/run.js';

let t: TestSandbox;
const servers: HttpMcp[] = [];

beforeAll(async () => {
  t = await startTestSandbox();
}, 30_000);
afterAll(async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
  await t?.close();
});

/** A new funded agent of @alice (transfers above 50 held), in a profile of its own name. */
async function newAgent(): Promise<TestAgent> {
  return newTestAgent(t, 'httpbot');
}

async function serve(profile: string, ...args: string[]): Promise<HttpMcp> {
  const s = await startHttpMcp(['--profile', profile, '--http', '127.0.0.1:0', ...args], t.env);
  servers.push(s);
  return s;
}

/** Whether anything accepts a TCP connection on the port. */
function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('svc mcp --http', () => {
  it('serves the tools over HTTP: a read and a send, each logged; the URL printed once', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile);
    expect(s.url.hostname).toBe('127.0.0.1');
    expect(s.url.pathname).toMatch(/^\/mcp\/[A-Za-z0-9_-]{22,}$/); // ≥ 128 bits, base64url
    const session = await s.connect();
    const { tools } = await session.client.listTools();
    expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(['send_transfer', 'get_balance', 'get_transfer', 'wait_for_decision']));

    const balance = await session.call('get_balance');
    expect(balance.isError, JSON.stringify(balance)).toBeFalsy();
    const sent = await session.call('send_transfer', { to: '@acme', amount: '12.5' });
    expect(sent.isError, JSON.stringify(sent)).toBeFalsy();
    const transferId = String(sent.structuredContent!.transfer_id);
    expect(transferId).toMatch(/^tr_\w+$/);
    // The service made it, once.
    const mine = await t.svcJson<Array<{ transfer_id: string }>>(['--profile', profile, 'transfer', 'ls']);
    expect(mine.map((x) => x.transfer_id)).toEqual([transferId]);

    await expect.poll(() => s.live.stderr()).toMatch(new RegExp(`mcp: send_transfer ok transfer ${transferId}\n`));
    expect(s.live.stderr()).toMatch(/mcp: get_balance ok\n/);
    // The credential appears once: in the start line, nowhere else (no log line repeats it).
    expect(s.live.stderr().split(s.url.pathname.slice('/mcp/'.length)).length - 1).toBe(1);
    expect(s.live.stderr().split(s.url.href).length - 1).toBe(1);
    expect(s.live.stderr()).toMatch(/\nmcp: that URL is the credential: whoever has it can use these tools/);
    expect(s.live.stdout()).toBe('');
  });

  it('answers only at its printed URL: a bare /mcp, /, the path with one character changed get 404 and no MCP answer', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile);
    const secret = s.url.pathname;
    const last = secret.at(-1)!;
    const changed = `${secret.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
    for (const path of ['/mcp', '/mcp/', '/', changed, `${secret}/`, secret.toUpperCase(), `/x${secret}`]) {
      const answer = await rawInitialize(s.url, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toMatch(/jsonrpc|protocolVersion|serverInfo/);
      expect(answer.body, path).not.toContain(secret.slice('/mcp/'.length)); // no hint of the real path
    }
    // The SDK's client at a wrong path gets no session either.
    const wrong = await startHttpMcpClientAt(new URL(changed, s.url));
    expect(wrong).toBe('404');
    // The printed path itself answers (the control for the above).
    expect((await rawInitialize(s.url, secret)).status).toBe(200);
  });

  it('refuses a Host or an Origin other than the address it listens on (DNS rebinding): 403', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile);
    const path = s.url.pathname;
    const own = s.url.host; // 127.0.0.1:PORT
    const refused: Array<Record<string, string>> = [
      { host: 'evil.example.com' },
      { host: `evil.example.com:${s.url.port}` },
      { host: `localhost:${s.url.port}` }, // another name of this machine: not the address it serves
      { host: `127.0.0.1:${Number(s.url.port) + 1}` },
      { origin: 'http://evil.example.com' },
      { origin: `http://evil.example.com:${s.url.port}` },
      { origin: `https://${own}` },
      { origin: 'null' },
      { host: 'evil.example.com', origin: 'http://evil.example.com' },
    ];
    for (const headers of refused) {
      const answer = await rawInitialize(s.url, path, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body).not.toMatch(/protocolVersion|serverInfo/);
    }
    // Its own Host and Origin are served.
    expect((await rawInitialize(s.url, path, { host: own, origin: `http://${own}` })).status).toBe(200);
  });

  it('refuses a HOST that is not loopback: exit 2, one line naming --http and the rule, nothing served', async () => {
    const { profile } = await newAgent();
    for (const address of ['0.0.0.0:0', '192.168.1.10:8080', 'example.com:80', '[::]:0']) {
      const r = await runSvc(['mcp', '--profile', profile, '--http', address], t.env);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: --http serves on loopback only.*127\.0\.0\.1.*::1.*localhost.*\(http_not_loopback\)$/);
      expect(r.stdout).toBe('');
    }
    const bad = await runSvc(['mcp', '--profile', profile, '--http', '127.0.0.1:99999'], t.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: invalid --http "127\.0\.0\.1:99999".*\(invalid_http_address\)\n$/);
  });

  it('a port already in use: exit 1, address_in_use, one JSON object on stderr with --json, nothing on stdout', async () => {
    const { profile } = await newAgent();
    const first = await serve(profile, '--read-only');
    const r = await runSvc(['--json', 'mcp', '--profile', profile, '--read-only', '--http', `127.0.0.1:${first.url.port}`], t.env);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    const error = JSON.parse(r.stderr) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('address_in_use');
    expect(error.error.message).toContain(`cannot listen on 127.0.0.1:${first.url.port}`);
    // The one already serving goes on.
    expect((await rawInitialize(first.url, first.url.pathname)).status).toBe(200);
  });

  it('two sessions share one --max-total budget', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile, '--max-total', '30');
    const a = await s.connect();
    const b = await s.connect();
    expect(a.client.transport?.sessionId).toBeDefined();
    expect(a.client.transport?.sessionId).not.toBe(b.client.transport?.sessionId);
    const first = await a.call('send_transfer', { to: '@acme', amount: '20' });
    expect(first.isError, JSON.stringify(first)).toBeFalsy();
    const second = await b.call('send_transfer', { to: '@acme', amount: '20' });
    expect(second.isError).toBe(true);
    expect(second.structuredContent!.error).toMatchObject({ code: 'session_budget_exceeded' });
    // What is left (10) still fits, from either session.
    const third = await b.call('send_transfer', { to: '@acme', amount: '10' });
    expect(third.isError, JSON.stringify(third)).toBeFalsy();
    const mine = await t.svcJson<unknown[]>(['--profile', profile, 'transfer', 'ls']);
    expect(mine).toHaveLength(2);
  });

  it("wait_for_decision over HTTP: progress reaches the session that waits, and the owner's approval ends the wait", async () => {
    const { profile } = await newAgent();
    const s = await serve(profile);
    const session = await s.connect();
    const held = await session.call('send_transfer', { to: '@acme', amount: '60' });
    expect(held.structuredContent).toMatchObject({ status: 'pending_approval' });
    const id = String(held.structuredContent!.transaction_id);
    const messages: string[] = [];
    let approving: Promise<unknown> | undefined;
    const result = await session.client.callTool({ name: 'wait_for_decision', arguments: { transaction_id: id, timeout_seconds: 40 } }, undefined, {
      onprogress: (p) => {
        messages.push(String(p.message));
        approving ??= t.svcOk(['pending', 'approve', id]); // the owner decides once the wait is seen
      },
    });
    await approving;
    expect(messages[0]).toMatch(/^awaiting approval, expires in \d+m/);
    expect(result.structuredContent).toMatchObject({ status: 'approved', transfer_id: expect.stringMatching(/^tr_\w+$/) });
    await expect.poll(() => s.live.stderr()).toMatch(new RegExp(`mcp: wait_for_decision approved transfer tr_\\w+ transaction ${id}\n`));
  });

  it(`opens at most ${MAX_SESSIONS} sessions: one more initialize gets 503 and a line on stderr, the open ones go on`, async () => {
    const { profile } = await newAgent();
    const s = await serve(profile, '--read-only');
    for (let i = 0; i < MAX_SESSIONS; i++) expect((await rawInitialize(s.url, s.url.pathname)).status).toBe(200);
    const refused = await rawInitialize(s.url, s.url.pathname);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatch(/too many open sessions/);
    // stderr is a pipe of its own: its lines may arrive after the HTTP answers.
    await s.live.waitFor('stderr', new RegExp(`mcp: HTTP session opened \\(${MAX_SESSIONS} open\\)\n`));
    await s.live.waitFor('stderr', /mcp: HTTP session refused: \d+ already open/);
  });

  it("a session the client ends (DELETE) stops its task waits: the task does not outlive its session", async () => {
    const { profile } = await newAgent();
    const s = await serve(profile);
    const session = await s.connect({ capabilities: { tasks: { list: {}, cancel: {} } } });
    const held = await session.call('send_transfer', { to: '@acme', amount: '60' });
    const id = String(held.structuredContent!.transaction_id);
    const created = await session.client.request(
      { method: 'tools/call', params: { name: 'wait_for_decision', arguments: { transaction_id: id }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    expect(created.task).toMatchObject({ status: 'working' });
    await (session.client.transport as StreamableHTTPClientTransport).terminateSession();
    await s.live.waitFor('stderr', /HTTP session closed \(0 open\); its 1 task wait\(s\) stopped/);
    // Stopped, not decided: nothing was logged as the wait's outcome.
    expect(s.live.stderr()).not.toMatch(/mcp: wait_for_decision (approved|rejected|expired|pending)/);
  });

  it('--confirm-sends asks the host of the session the send came from; a session whose host cannot ask is refused', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile, '--confirm-sends');
    const asked: ElicitRequest['params'][] = [];
    const asking = await s.connect({
      capabilities: { elicitation: { form: {} } },
      setup: (client) => client.setRequestHandler(ElicitRequestSchema, async (req) => (asked.push(req.params), { action: 'accept', content: { send: true } })),
    });
    const mute = await s.connect();
    const refused = await mute.call('send_transfer', { to: '@acme', amount: '3' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent!.error).toMatchObject({ code: 'confirmation_unavailable' });
    expect(asked).toHaveLength(0); // the other session's host was not asked in its place
    const sent = await asking.call('send_transfer', { to: '@acme', amount: '4' });
    expect(sent.isError, JSON.stringify(sent)).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('to: @acme');
    const mine = await t.svcJson<unknown[]>(['--profile', profile, 'transfer', 'ls']);
    expect(mine).toHaveLength(1);
    // Each session's host is told at its start whether it can be asked.
    await expect.poll(() => s.live.stderr()).toMatch(/--confirm-sends: each send_transfer asks the person at host "svc-test 0\.0\.0" first/);
    await expect.poll(() => s.live.stderr()).toMatch(/--confirm-sends: host "svc-test 0\.0\.0" did not declare form elicitation/);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} ends it with exit 130, its open sessions closed and the port released`, async () => {
      const { profile } = await newAgent();
      const s = await serve(profile);
      const session = await s.connect();
      await session.client.ping();
      const port = Number(s.url.port);
      expect(await portOpen(port)).toBe(true);
      const { code, stderr } = await s.stop(signal);
      expect(code, stderr).toBe(130);
      expect(stderr).toMatch(/mcp: stopped serving \(interrupted\); 1 open session\(s\) closed\n$/);
      expect(await portOpen(port)).toBe(false);
    });
  }
});

/** Connects the SDK's client to `url`; the error it gets (a wrong path must not initialize). */
async function startHttpMcpClientAt(url: URL): Promise<string> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'svc-test', version: '0.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(url));
    await client.close();
    return 'connected';
  } catch (err) {
    return String((err as { code?: unknown }).code ?? err); // the HTTP status the SDK's error carries
  }
}
