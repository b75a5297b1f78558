// A small YAML writer for plain JSON data (objects, arrays, strings, numbers, booleans, null),
// enough for docs/openapi.yaml without a dependency. Block style; a short list of scalars on one
// line. A string is written bare only when every YAML 1.1 and 1.2 reader takes it back as that
// same string; any other is written as its JSON text (a JSON string is a YAML double-quoted one).

const WIDTH = 100;
/** Words a YAML 1.1 or 1.2 reader takes for a boolean, null, infinity or not-a-number. */
const RESERVED = /^(?:true|false|null|~|yes|no|on|off|y|n|[-+]?\.inf|\.nan)$/i;

function bare(s: string, inFlow: boolean): boolean {
  if (s === '' || s !== s.trim() || RESERVED.test(s)) return false;
  if (/^[-+.]?\d/.test(s) || /^[-?:,[\]{}#&*!|>'"%@`]/.test(s)) return false; // a number, or an indicator first
  if (!(inFlow ? /^[A-Za-z0-9 _\-./$()+;']+$/ : /^[A-Za-z0-9 _\-./$()+;,']+$/).test(s)) return false;
  return true;
}

function scalar(v: unknown, inFlow = false): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`yaml: ${v} is not JSON`);
    return String(v);
  }
  if (typeof v === 'string') return bare(v, inFlow) ? v : JSON.stringify(v);
  throw new Error(`yaml: ${typeof v} is not JSON`);
}

const isScalar = (v: unknown) => v === null || typeof v !== 'object';

/** The value on the line of its key or dash, when it fits there. */
function inline(v: unknown, room: number): string | undefined {
  if (isScalar(v)) return scalar(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    if (!v.every(isScalar)) return undefined;
    const flow = `[${v.map((x) => scalar(x, true)).join(', ')}]`;
    return flow.length <= room ? flow : undefined;
  }
  return Object.keys(v as object).length === 0 ? '{}' : undefined;
}

/** The lines of a mapping or a sequence, each indented by `indent` spaces. */
function block(v: object, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  if (Array.isArray(v)) {
    for (const item of v) {
      const one = inline(item, WIDTH - indent - 2);
      if (one !== undefined) {
        lines.push(`${pad}- ${one}`);
        continue;
      }
      // The item's own block, its first line moved up beside the dash.
      const inner = block(item as object, indent + 2);
      lines.push(`${pad}- ${inner[0]!.trimStart()}`, ...inner.slice(1));
    }
    return lines;
  }
  for (const [key, value] of Object.entries(v)) {
    if (value === undefined) continue;
    const k = scalar(key);
    const one = inline(value, WIDTH - indent - k.length - 2);
    if (one !== undefined) lines.push(`${pad}${k}: ${one}`);
    else lines.push(`${pad}${k}:`, ...block(value as object, indent + 2));
  }
  return lines;
}

/** YAML text of a JSON value (an object or an array at the top), ending with a newline. */
export function toYaml(value: object): string {
  return `${block(value, 0).join('\n')}\n`;
}
