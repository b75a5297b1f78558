// The one quoting of a command svc prints for a person to paste: hints (`follow it with `svc
// transfer get tr_… --wait``), TTY lines, --json hints. Every value inside such a command (an id
// or a handle from the service, a key, a profile name) goes through shellWord(), so a value such
// as `tr_1;touch${IFS}/tmp/x;#` is one quoted word when pasted into a shell, never code. The
// tagged template svc`…` quotes every value it is given; a stand-in the reader replaces
// (`<amount>`) is written as placeholder('amount'). docs/ux.md "Hints", docs/security.md.

/** One shell word: as it is when it is plainly safe, else in single quotes ('\'' for a quote). */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Text a command is built from that is not a value: a stand-in such as `<amount>`, or words already quoted. */
class Verbatim {
  constructor(readonly text: string) {}
}

/** A stand-in the reader replaces with their own value: `<amount>`. */
export function placeholder(name: string): Verbatim {
  return new Verbatim(`<${name}>`);
}

/** `--flag value` with the value quoted, or nothing when there is no value. */
export function flag(name: string, value: string | undefined): Verbatim {
  return new Verbatim(value === undefined ? '' : ` ${name} ${shellWord(value)}`);
}

export type CommandValue = string | number | Verbatim;

/**
 * A `svc …` command in backticks, every interpolated value one quoted shell word:
 * svc`transfer get ${id} --wait` → `` `svc transfer get 'tr_1;x' --wait` ``.
 */
export function svc(strings: TemplateStringsArray, ...values: CommandValue[]): string {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += (v instanceof Verbatim ? v.text : shellWord(String(v))) + strings[i + 1]!;
  });
  return `\`svc ${out.trim()}\``;
}
