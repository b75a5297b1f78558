// Reads one keyring entry over the D-Bus connection the probe opened, in JavaScript: a command that
// only reads its profile's secrets (nearly every command) neither loads the native module (~6 ms)
// nor lets it open a connection of its own (~7 ms, synchronously). The Secret Service API: open a
// "plain" session (the secret crosses the local session bus unencrypted, as `secret-tool` may
// use it: only this user's processes are on that bus), find the item by the attributes the
// native module writes (`service`, `username`), and get its secret. Bounded by the same timeout
// as the probe; anything unexpected in an answer is left to the native module.
import { withDeadline, type BusConnection } from './dbus-probe.js';

const SECRETS = 'org.freedesktop.secrets';
const SERVICE_PATH = '/org/freedesktop/secrets';
const SERVICE = 'org.freedesktop.Secret.Service';

/**
 * The secret of the entry with these attributes: its text; null when there is none; undefined
 * when it cannot be told here (several items match, an answer of an unexpected shape): ask the
 * native module. Throws when the entry is locked or the bus does not answer in time.
 */
export async function readSecret(bus: BusConnection, attributes: Record<string, string>, timeoutMs: number): Promise<string | null | undefined> {
  const late = Symbol('late');
  const result = await withDeadline(read(bus, attributes), timeoutMs, late);
  if (result === late) throw new Error(`the Secret Service did not answer within ${timeoutMs} ms`);
  return result;
}

async function read(bus: BusConnection, attributes: Record<string, string>): Promise<string | null | undefined> {
  // Both at once: the bus answers in order.
  const [session, found] = await Promise.all([
    bus.call({ path: SERVICE_PATH, iface: SERVICE, member: 'OpenSession', dest: SECRETS, args: [['s', 'plain'], ['v', '']] }),
    bus.call({ path: SERVICE_PATH, iface: SERVICE, member: 'SearchItems', dest: SECRETS, args: [['a{ss}', attributes]] }),
  ]);
  if (session.error || !session.reader || found.error || !found.reader) return undefined;
  session.reader.skipVariantString();
  const sessionPath = session.reader.string();
  const unlocked = found.reader.objectPaths();
  const locked = found.reader.objectPaths();
  if (unlocked.length === 0) {
    if (locked.length > 0) throw new Error('the keyring entry is locked');
    return null;
  }
  if (unlocked.length > 1) return undefined;
  const secret = await bus.call({ path: unlocked[0]!, iface: 'org.freedesktop.Secret.Item', member: 'GetSecret', dest: SECRETS, args: [['o', sessionPath]] });
  if (secret.error || !secret.reader) return undefined;
  // (oayays): the session, parameters (none for "plain"), the value, its content type.
  const r = secret.reader;
  r.align(8);
  r.string();
  r.bytes();
  return r.bytes().toString('utf8');
}
