// The tool's local decryption, behind one lazy import: reading amounts needs the key's parser and
// the reader together, and every command that reads amounts loads them through this module, so
// the bundle holds them in one file (each loaded on its own was a file per module; docs/performance-startup.md).
export { LocalReader } from './reader.js';
export { encodeViewingPublicKey, parseDecryptionKey, parseViewingPublicKey } from './viewing-key.js';
