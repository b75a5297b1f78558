// Asks the session bus, from JavaScript and within a deadline, whether the Secret Service can answer
// now, before the native keyring module is touched. The module's calls block the thread that makes
// them (its constructor connects to D-Bus synchronously), so a bus that accepts the connection and
// never answers, or a locked keyring waiting on an unlock prompt nobody sees, would hang the command
// past any timer; this probe is the bound. Four messages: the SASL handshake, Hello, ReadAlias
// ("default") and the collection's Locked property. Only the few marshalling rules they need.
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';

/** Why the Secret Service cannot be used now (null from probeSecretService: it can). */
export type ProbeFailure = 'no_session_bus' | 'no_secret_service' | 'locked' | 'no_default_keyring' | 'timeout';

/** The session bus's unix socket, from DBUS_SESSION_BUS_ADDRESS or $XDG_RUNTIME_DIR/bus. */
export function sessionBusPath(env: NodeJS.ProcessEnv): string | undefined {
  const address = env.DBUS_SESSION_BUS_ADDRESS;
  if (address) {
    for (const part of address.split(';')) {
      const m = /^unix:(.*)$/.exec(part);
      if (!m) continue;
      const fields = new Map(m[1]!.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), decodeURIComponent(kv.slice(kv.indexOf('=') + 1))] as [string, string]));
      if (fields.get('path')) return fields.get('path');
      if (fields.get('abstract')) return `\0${fields.get('abstract')}`;
    }
    return undefined;
  }
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime && existsSync(join(runtime, 'bus')) ? join(runtime, 'bus') : undefined;
}

const SECRETS = 'org.freedesktop.secrets';

/** null when the default collection exists and is unlocked; otherwise why not. */
export async function probeSecretService(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ProbeFailure | null> {
  const opened = await openSecretService(env, timeoutMs);
  if ('failure' in opened) return opened.failure;
  opened.bus.close();
  return null;
}

/**
 * The probe, keeping its connection when the Secret Service can answer (secret-read.ts reads
 * entries on it); the connection does not keep the process alive.
 */
export async function openSecretService(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ failure: ProbeFailure } | { bus: BusConnection }> {
  const path = sessionBusPath(env);
  if (!path) return { failure: 'no_session_bus' };
  const bus = new BusConnection(path);
  let failure: ProbeFailure | null;
  try {
    failure = await withDeadline(ask(bus), timeoutMs, 'timeout' as const);
  } catch {
    failure = 'no_session_bus';
  }
  if (failure) {
    bus.close();
    return { failure };
  }
  return { bus };
}

/** `work`'s result, or `late` once `ms` have passed. */
export async function withDeadline<T, L>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  try {
    return await Promise.race([deadline, work]);
  } finally {
    clearTimeout(timer);
  }
}

async function ask(bus: BusConnection): Promise<ProbeFailure | null> {
  await bus.open();
  // Hello and ReadAlias go together (the bus answers in order): one round trip fewer.
  const hello = bus.call({ path: '/org/freedesktop/DBus', iface: 'org.freedesktop.DBus', member: 'Hello', dest: 'org.freedesktop.DBus' });
  const aliasCall = bus.call({ path: '/org/freedesktop/secrets', iface: 'org.freedesktop.Secret.Service', member: 'ReadAlias', dest: SECRETS, args: [['s', 'default']] });
  const [, alias] = await Promise.all([hello, aliasCall]);
  if (alias.error) return 'no_secret_service';
  const collection = alias.reader?.string();
  if (!collection || collection === '/') return 'no_default_keyring';
  const locked = await bus.call({ path: collection, iface: 'org.freedesktop.DBus.Properties', member: 'Get', dest: SECRETS, args: [['s', 'org.freedesktop.Secret.Collection'], ['s', 'Locked']] });
  if (locked.error || !locked.reader) return 'no_secret_service';
  return locked.reader.variantBoolean() ? 'locked' : null;
}

/** An argument of a call: a string, an object path, a variant holding a string, a string-to-string dict. */
export type Arg = ['s', string] | ['o', string] | ['v', string] | ['a{ss}', Record<string, string>];

export interface Call {
  path: string;
  iface: string;
  member: string;
  dest: string;
  args?: Arg[];
}

export interface Reply {
  error?: string;
  reader?: BodyReader;
}

/** One connection to the bus: the handshake, then method calls answered by serial. */
export class BusConnection {
  private socket: Socket | undefined;
  private buffer = Buffer.alloc(0);
  private serial = 0;
  private readonly waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (err: Error) => void }>();
  private opening: ((err: Error) => void) | undefined;

  constructor(private readonly path: string) {}

  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.path);
      this.socket = socket;
      socket.unref();
      this.opening = reject;
      socket.on('error', (err) => this.fail(err));
      socket.on('close', () => this.fail(new Error('the bus closed the connection')));
      let handshake = '';
      const onHandshake = (chunk: Buffer) => {
        handshake += chunk.toString('latin1');
        if (!handshake.includes('\r\n')) return;
        socket.off('data', onHandshake);
        this.opening = undefined;
        if (!handshake.startsWith('OK ')) return reject(new Error('the bus refused authentication'));
        socket.write('BEGIN\r\n');
        socket.on('data', (data: Buffer) => this.receive(data));
        resolve();
      };
      socket.on('data', onHandshake);
      const uid = String(process.getuid?.() ?? 0);
      socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\n`);
    });
  }

  call(call: Call): Promise<Reply> {
    const serial = ++this.serial;
    return new Promise((resolve, reject) => {
      this.waiting.set(serial, { resolve, reject });
      this.socket!.write(encodeCall(call, serial));
    });
  }

  close(): void {
    this.opening = undefined;
    this.waiting.clear();
    this.socket?.destroy();
  }

  /** Every call still waiting fails with the connection. */
  private fail(err: Error): void {
    this.opening?.(err);
    this.opening = undefined;
    for (const { reject } of this.waiting.values()) reject(err);
    this.waiting.clear();
  }

  private receive(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      if (this.buffer.length < 16) return;
      const le = this.buffer[0] === 0x6c;
      const u32 = (o: number) => (le ? this.buffer.readUInt32LE(o) : this.buffer.readUInt32BE(o));
      const fieldsLength = u32(12);
      const total = pad(16 + fieldsLength, 8) + u32(4);
      if (this.buffer.length < total) return;
      const message = this.buffer.subarray(0, total);
      this.buffer = this.buffer.subarray(total);
      this.dispatch(message, le, fieldsLength);
    }
  }

  private dispatch(message: Buffer, le: boolean, fieldsLength: number): void {
    const type = message[1];
    if (type !== 2 && type !== 3) return; // signals (NameAcquired) and calls to us
    const fields = new BodyReader(message, le, 16);
    let replySerial: number | undefined;
    let errorName: string | undefined;
    let signature = '';
    while (fields.offset < 16 + fieldsLength) {
      fields.align(8);
      const code = fields.byte();
      const sig = fields.signature();
      const value = sig === 'u' ? fields.u32() : sig === 'g' ? fields.signature() : fields.string();
      if (code === 5) replySerial = value as number;
      if (code === 4) errorName = value as string;
      if (code === 8) signature = value as string;
    }
    const resolve = replySerial === undefined ? undefined : this.waiting.get(replySerial)?.resolve;
    if (!resolve) return;
    this.waiting.delete(replySerial!);
    const body = new BodyReader(message, le, pad(16 + fieldsLength, 8));
    resolve(type === 3 ? { error: errorName ?? 'error' } : signature ? { reader: body } : {});
  }
}

const pad = (n: number, to: number) => Math.ceil(n / to) * to;

/** Reads the few types the replies carry: strings and object paths, a variant holding a boolean. */
export class BodyReader {
  constructor(private readonly buf: Buffer, private readonly le: boolean, public offset: number) {}

  align(to: number): void {
    this.offset = pad(this.offset, to);
  }

  byte(): number {
    return this.buf[this.offset++]!;
  }

  u32(): number {
    this.align(4);
    const v = this.le ? this.buf.readUInt32LE(this.offset) : this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  string(): string {
    const length = this.u32();
    const s = this.buf.toString('utf8', this.offset, this.offset + length);
    this.offset += length + 1;
    return s;
  }

  signature(): string {
    const length = this.byte();
    const s = this.buf.toString('latin1', this.offset, this.offset + length);
    this.offset += length + 1;
    return s;
  }

  /** `ao`: an array of object paths. */
  objectPaths(): string[] {
    const length = this.u32();
    const end = this.offset + length;
    const paths: string[] = [];
    while (this.offset < end) paths.push(this.string());
    return paths;
  }

  /** `ay`: an array of bytes. */
  bytes(): Buffer {
    const length = this.u32();
    const b = Buffer.from(this.buf.subarray(this.offset, this.offset + length));
    this.offset += length;
    return b;
  }

  /** A variant holding a string or an object path, skipped. */
  skipVariantString(): void {
    const sig = this.signature();
    if (sig !== 's' && sig !== 'o') throw new Error(`expected a string variant, got ${sig}`);
    this.string();
  }

  variantBoolean(): boolean {
    const sig = this.signature();
    if (sig !== 'b') throw new Error(`expected a boolean, got ${sig}`);
    return this.u32() !== 0;
  }
}

/** A little-endian METHOD_CALL. */
function encodeCall(call: Call, serial: number): Buffer {
  const out = new Writer();
  const body = new Writer();
  for (const arg of call.args ?? []) writeArg(body, arg);
  const signature = (call.args ?? []).map(([t]) => t).join('');
  out.bytes([0x6c, 1, 0, 1]);
  out.u32(body.length);
  out.u32(serial);
  const fields = new Writer();
  const field = (code: number, sig: string, write: (w: Writer) => void) => {
    fields.align(8);
    fields.bytes([code]);
    fields.signature(sig);
    write(fields);
  };
  // Offsets in the fields array count from the message start (its array length sits at 12).
  fields.offsetBase = 16;
  field(1, 'o', (w) => w.string(call.path));
  field(2, 's', (w) => w.string(call.iface));
  field(3, 's', (w) => w.string(call.member));
  field(6, 's', (w) => w.string(call.dest));
  if (signature) field(8, 'g', (w) => w.signature(signature));
  out.u32(fields.length);
  out.append(fields.buffer());
  out.align(8);
  out.append(body.buffer());
  return out.buffer();
}

function writeArg(w: Writer, arg: Arg): void {
  switch (arg[0]) {
    case 's':
    case 'o':
      w.string(arg[1]);
      return;
    case 'v':
      w.signature('s');
      w.string(arg[1]);
      return;
    case 'a{ss}': {
      // The array's byte length, then its dict entries, each 8-aligned (the padding before the
      // first is not counted in the length).
      w.align(4);
      const at = w.length;
      w.u32(0);
      w.align(8);
      const start = w.length;
      for (const [k, v] of Object.entries(arg[1])) {
        w.align(8);
        w.string(k);
        w.string(v);
      }
      w.setU32(at, w.length - start);
    }
  }
}

class Writer {
  private chunks: number[] = [];
  offsetBase = 0;

  get length(): number {
    return this.chunks.length;
  }

  bytes(bs: number[] | Buffer): void {
    for (const b of bs) this.chunks.push(b);
  }

  append(buf: Buffer): void {
    this.bytes(buf);
  }

  align(to: number): void {
    while ((this.offsetBase + this.chunks.length) % to !== 0) this.chunks.push(0);
  }

  u32(v: number): void {
    this.align(4);
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.bytes(b);
  }

  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u32(b.length);
    this.bytes(b);
    this.chunks.push(0);
  }

  signature(s: string): void {
    this.chunks.push(s.length);
    this.bytes(Buffer.from(s, 'latin1'));
    this.chunks.push(0);
  }

  /** Overwrites the u32 written at `at` (an array's length, known once its elements are). */
  setU32(at: number, v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    for (let i = 0; i < 4; i++) this.chunks[at + i] = b[i]!;
  }

  buffer(): Buffer {
    return Buffer.from(this.chunks);
  }
}
