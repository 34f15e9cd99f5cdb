/*
 * JUnit XML's pieces, shared by the drill's report and the comparison: test
 * cases with their outcome, suite counts, and escaping that keeps any text
 * (logs with ANSI colours, NULs, lone surrogates) parseable by every CI.
 */

export type Outcome =
  | { kind: 'passed' }
  | { kind: 'skipped'; message: string }
  | { kind: 'failure' | 'error'; type: string; message: string; body: string };

export interface TestCase {
  name: string;
  seconds: number;
  outcome: Outcome;
}

export function renderCase(classname: string, testCase: TestCase): string[] {
  const open = `    <testcase${attributes({ classname, name: testCase.name, time: seconds(testCase.seconds) })}`;
  const { outcome } = testCase;
  switch (outcome.kind) {
    case 'passed':
      return [`${open}/>`];
    case 'skipped':
      return [`${open}>`, `      <skipped${attributes({ message: messageLine(outcome.message) })}/>`, '    </testcase>'];
    case 'failure':
    case 'error':
      return [
        `${open}>`,
        `      <${outcome.kind}${attributes({ message: messageLine(outcome.message), type: outcome.type })}>${escapeText(outcome.body)}</${outcome.kind}>`,
        '    </testcase>',
      ];
    default: {
      const unknown: never = outcome;
      throw new Error(`unknown testcase outcome ${JSON.stringify(unknown)}`);
    }
  }
}

export function counts(cases: readonly TestCase[]): { tests: string; failures: string; errors: string; skipped: string } {
  const of = (kind: Outcome['kind']) => String(cases.filter((c) => c.outcome.kind === kind).length);
  return { tests: String(cases.length), failures: of('failure'), errors: of('error'), skipped: of('skipped') };
}

export function seconds(value: number): string {
  return value.toFixed(3);
}

// CI views show the message on one line; the whole story is in the element's body.
function messageLine(message: string): string {
  const line = message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return line.length > 240 ? `${line.slice(0, 239)}…` : line;
}

export function attributes(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join('');
}

// Whitespace becomes character references: attribute normalisation would turn it into spaces.
function escapeAttribute(value: string): string {
  return xmlChars(value).replace(/[&<>"'\t\n\r]/g, (c) => ATTRIBUTE_ENTITIES[c] ?? c);
}

export function escapeText(value: string): string {
  return xmlChars(value).replace(/[&<>\r]/g, (c) => ATTRIBUTE_ENTITIES[c] ?? c);
}

const ATTRIBUTE_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

// XML 1.0 cannot carry most C0 controls even as character references, nor
// U+FFFE/U+FFFF or unpaired surrogates. Logs hold them (ANSI colours, NULs),
// so a control becomes a visible "\x1B" and the rest U+FFFD, rather than a
// file every CI parser rejects.
function xmlChars(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, (c) => {
    const point = c.codePointAt(0) ?? 0;
    return point < 0x20 ? `\\x${point.toString(16).toUpperCase().padStart(2, '0')}` : '\uFFFD';
  });
}
