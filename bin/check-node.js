// The oldest Node.js svc runs on (package.json "engines"; a unit test keeps the two equal). Plain
// JavaScript that older Node versions still parse: it runs before anything else of svc loads, so
// an old Node gets this one line instead of a crash deep inside.
var MIN_NODE = '20.19';
exports.MIN_NODE = MIN_NODE;

/**
 * The one line to print when `version` (process.versions.node, e.g. "18.20.4") is older than
 * MIN_NODE, or null when it is new enough. A version that cannot be read is let through: the
 * program itself (and `svc doctor`) will say more than a guess here could.
 */
exports.nodeTooOld = function nodeTooOld(version) {
  var m = /^v?(\d+)\.(\d+)/.exec(String(version));
  if (!m) return null;
  var want = MIN_NODE.split('.');
  var major = Number(m[1]);
  var minor = Number(m[2]);
  var old = major < Number(want[0]) || (major === Number(want[0]) && minor < Number(want[1]));
  return old ? 'svc needs Node.js ' + MIN_NODE + ' or newer; this is Node.js ' + version + '\n' : null;
};
