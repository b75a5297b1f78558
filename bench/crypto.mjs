// Local decryption cost: one balance decryption, one proof (build + verify), from dist/.
import { fmt } from './lib.mjs';
import { report } from './measure.mjs';

const rows = [];

const { generateViewingKey, parseDecryptionKey } = await import('../dist/crypto/viewing-key.js');
const { contexts, encryptTo, decrypt } = await import('../dist/crypto/ciphertext.js');
const { buildProof, parseProof, verifyProof } = await import('../dist/crypto/proof.js');

const N = Number(process.env.BENCH_CRYPTO_RUNS ?? 2000);
const vk = generateViewingKey('test');
const key = parseDecryptionKey(vk.decryptionKey).value;
const acct = 'acct_bench';
const balances = ['USDG', 'USDC'].map((asset, i) => ({
  asset,
  version: 7 + i,
  ciphertext: encryptTo(vk.publicKey, '1000000000', contexts.balance(acct, asset, 7 + i)),
}));
const current = new Map(balances.map((b) => [b.asset, b]));

function time(label, fn) {
  for (let i = 0; i < 200; i++) fn(); // warm up
  const started = performance.now();
  for (let i = 0; i < N; i++) fn();
  const per = (performance.now() - started) / N;
  console.log(`  ${label.padEnd(44)} ${fmt(per, 3)} ms`);
  rows.push({ label, value: `${fmt(per, 3)} ms` });
  return per;
}

console.log(`crypto, mean of ${N} runs:`);
time('decrypt one balance locally', () => decrypt(key.keyObject, key.publicKey, balances[0].ciphertext, contexts.balance(acct, 'USDG', 7)));
time('build a proof (2 assets, client side)', () => buildProof(key.keyObject, key.publicKey, balances));
const proof = buildProof(key.keyObject, key.publicKey, balances);
time('verify a proof (2 assets, service side)', () => verifyProof(acct, parseProof(proof), current));
time('encrypt one balance (service side)', () => encryptTo(vk.publicKey, '1000000000', contexts.balance(acct, 'USDG', 9)));
if (process.env.BENCH_RESULTS) report('crypto', rows, `mean of ${N} runs, in process`);
