// The least a Node program pays to make one request, for bench/startup.mjs's reference row:
// node:net, one `GET /v1/accounts/me` written by hand, the answer's body parsed as JSON, nothing
// checked beyond a 200. CommonJS, no dependency: what is left is Node's own start, its sockets and
// streams. The sandbox's URL and test key come from the environment (BENCH_URL, BENCH_KEY).
'use strict';
const net = require('node:net');

const url = new URL(process.env.BENCH_URL);
const socket = net.connect(Number(url.port), url.hostname, () => {
  socket.write(`GET /v1/accounts/me HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${process.env.BENCH_KEY}\r\nConnection: close\r\n\r\n`);
});
const chunks = [];
socket.on('data', (c) => chunks.push(c));
socket.on('end', () => {
  const text = Buffer.concat(chunks).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  let body = text.slice(split + 4);
  if (/^transfer-encoding:\s*chunked/im.test(head)) {
    let out = '';
    for (let i = 0; ; ) {
      const eol = body.indexOf('\r\n', i);
      const size = parseInt(body.slice(i, eol), 16);
      if (!size) break;
      out += body.slice(eol + 2, eol + 2 + size);
      i = eol + 2 + size + 2;
    }
    body = out;
  }
  if (!head.startsWith('HTTP/1.1 200') || typeof JSON.parse(body).account_id !== 'string') {
    process.stderr.write(`unexpected answer: ${head.split('\r\n')[0]}\n`);
    process.exitCode = 1;
  }
});
