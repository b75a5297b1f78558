// Finds the weak numeric canaries of test files: a number a negative assertion says is absent
// (`.not.toContain`, `.not.toMatch`, `expect.not.stringContaining/stringMatching`,
// `assert.doesNotMatch`, `expectNoCanary`) that has too few significant digits to be absent by
// design rather than by luck (test/helpers/canary.ts weakNumber). Reads the TypeScript syntax
// tree, so comments and other strings are not mistaken for assertions; follows a needle through
// a `const` or a `for (const x of [...])` of its own file, and splits regular expressions into
// their alternatives (`/noref-|2\.25/` is the needles `noref-` and `2.25`).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { weakNumber } from '../helpers/canary.js';

export interface Finding {
  /** `path:line` of the literal that holds the needle. */
  at: string;
  needle: string;
  why: string;
}

/** Which argument of which call is a text said to be absent. */
function negativeArgument(call: ts.CallExpression): ts.Expression | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) {
    if (callee.text === 'expectNoCanary') return call.arguments[1];
    if (callee.text === 'doesNotMatch') return call.arguments[1];
    return undefined;
  }
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const name = callee.name.text;
  if (name === 'doesNotMatch') return call.arguments[1];
  const negated = ts.isPropertyAccessExpression(callee.expression) && callee.expression.name.text === 'not';
  if (negated && ['toContain', 'toMatch', 'stringContaining', 'stringMatching'].includes(name)) return call.arguments[0];
  return undefined;
}

/** The expression a name stands for where it is used: a const's value or a for-of loop's list. */
function valueOf(id: ts.Identifier): ts.Expression | undefined {
  const named = (b: ts.BindingName): boolean => (ts.isIdentifier(b) ? b.text === id.text : b.elements.some((e) => !ts.isOmittedExpression(e) && named(e.name)));
  for (let n: ts.Node | undefined = id.parent; n; n = n.parent) {
    if (ts.isForOfStatement(n) && ts.isVariableDeclarationList(n.initializer) && n.initializer.declarations.some((d) => named(d.name))) return n.expression;
    if (ts.isFunctionLike(n) && n.parameters.some((p) => named(p.name))) return undefined;
    if (ts.isBlock(n) || ts.isSourceFile(n)) {
      for (const s of n.statements) {
        if (!ts.isVariableStatement(s) || !(s.declarationList.flags & ts.NodeFlags.Const)) continue;
        const d = s.declarationList.declarations.find((x) => ts.isIdentifier(x.name) && x.name.text === id.text);
        if (d) return d.initializer;
      }
    }
  }
  return undefined;
}

/** The texts (string, regexp source, number) an expression can be, each with the node that holds it. */
function needles(e: ts.Expression | undefined, seen = new Set<ts.Node>()): Array<{ text: string; node: ts.Node }> {
  if (!e || seen.has(e)) return [];
  seen.add(e);
  const more = (x: ts.Expression | undefined) => needles(x, seen);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isNumericLiteral(e)) return [{ text: e.text, node: e }];
  if (ts.isRegularExpressionLiteral(e)) return [{ text: e.text.slice(1, e.text.lastIndexOf('/')), node: e }];
  if (ts.isTemplateExpression(e)) return [{ text: e.head.text, node: e }, ...e.templateSpans.flatMap((s) => [...more(s.expression), { text: s.literal.text, node: s }])];
  if (ts.isIdentifier(e)) return more(valueOf(e));
  if (ts.isArrayLiteralExpression(e)) return e.elements.flatMap((x) => more(ts.isSpreadElement(x) ? x.expression : x));
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) return more(e.expression);
  if (ts.isConditionalExpression(e)) return [...more(e.whenTrue), ...more(e.whenFalse)];
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return [...more(e.left), ...more(e.right)];
  if (ts.isNewExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === 'RegExp') return more(e.arguments?.[0]);
  // `AMOUNT.replace('.', '\\.')` in a RegExp: the text is still AMOUNT's.
  if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && ['replace', 'replaceAll', 'toLowerCase', 'toUpperCase', 'trim'].includes(e.expression.name.text)) {
    return more(e.expression.expression);
  }
  return []; // a value computed at run time (a key, an id): not a literal canary
}

/** A regexp source's alternatives as plain text: `^(noref-|2\.25)$` → `noref-`, `2.25`. */
function alternatives(source: string): string[] {
  return source
    .replace(/\\b|\(\?:|[()^$]/g, '')
    .split('|')
    .map((a) => a.replace(/\\([.\-+/"'])/g, '$1'));
}

export function scanSource(file: string, text: string): Finding[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = new Map<string, Finding>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      for (const { text: t, node: at } of needles(negativeArgument(node))) {
        for (const needle of alternatives(t)) {
          const why = weakNumber(needle);
          if (!why) continue;
          const line = sf.getLineAndCharacterOfPosition(at.getStart(sf)).line + 1;
          const f = { at: `${file}:${line}`, needle, why };
          found.set(`${f.at} ${needle}`, f);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...found.values()];
}

/** Every weak canary of the .ts files under `dir`, paths relative to `root`. */
export function scanTree(root: string, dir: string): Finding[] {
  const files = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort();
  return files.flatMap((f) => scanSource(relative(root, join(dir, f)), readFileSync(join(dir, f), 'utf8')));
}
