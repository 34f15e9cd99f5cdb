/*
 * A small strict XML 1.0 well-formedness checker for the JUnit tests: no XML
 * parser is installed, and a lenient regex would pass the very bugs the
 * escaping exists to prevent. It accepts what renderJunit may write (an XML
 * declaration, elements, attributes, character data, comments, CDATA) and
 * rejects anything not well-formed: unbalanced or mismatched tags, a raw `<`
 * or a bare `&`, unknown entities, `]]>` in text, duplicate attributes,
 * characters XML 1.0 forbids (also as character references), more than one
 * root. It returns the tree, with entities decoded and attribute values
 * normalised as a conforming parser would, for the tests to count.
 */

/** An element: its name, attributes (decoded), child elements and its own text (decoded). */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** Not well-formed XML, with the offset of the problem. */
export class XmlError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
  }
}

const FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Parses a whole document, throwing XmlError at the first thing that is not well-formed. */
export function parseXml(xml: string): XmlElement {
  const forbidden = FORBIDDEN.exec(xml);
  if (forbidden)
    throw new XmlError(`forbidden character U+${forbidden[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`, forbidden.index);
  let at = 0;
  const fail = (message: string): never => {
    throw new XmlError(message, at);
  };
  const startsWith = (text: string) => xml.startsWith(text, at);
  const skipSpace = () => {
    while (at < xml.length && ' \t\r\n'.includes(xml[at]!)) at++;
  };
  const name = (): string => {
    NAME.lastIndex = at;
    const match = NAME.exec(xml);
    if (!match) fail('expected a name');
    at += match![0].length;
    return match![0];
  };
  const decode = (raw: string, base: number): string =>
    raw.replace(/&([^;]*);?/g, (whole, body: string, index: number) => {
      if (!whole.endsWith(';')) throw new XmlError('bare & (not an entity reference)', base + index);
      const numeric = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(body);
      if (numeric) {
        const point = numeric[1] !== undefined ? parseInt(numeric[1], 16) : parseInt(numeric[2]!, 10);
        const char = point <= 0x10ffff ? String.fromCodePoint(point) : '';
        if (char === '' || FORBIDDEN.test(char) || (point >= 0xd800 && point <= 0xdfff))
          throw new XmlError(`character reference to a forbidden character &${body};`, base + index);
        return char;
      }
      const named = ENTITIES[body];
      if (named === undefined) throw new XmlError(`unknown entity &${body};`, base + index);
      return named;
    });
  const misc = () => {
    for (;;) {
      skipSpace();
      if (startsWith('<!--')) comment();
      else return;
    }
  };
  const comment = () => {
    const end = xml.indexOf('-->', at + 4);
    if (end < 0) fail('unterminated comment');
    if (xml.slice(at + 4, end).includes('--')) fail('"--" inside a comment');
    at = end + 3;
  };
  const element = (): XmlElement => {
    if (!startsWith('<')) fail('expected an element');
    at++;
    const tag = name();
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = at;
      skipSpace();
      if (startsWith('/>')) {
        at += 2;
        return { name: tag, attributes, children: [], text: '' };
      }
      if (startsWith('>')) {
        at++;
        break;
      }
      if (at === before) fail('expected whitespace before an attribute');
      const attribute = name();
      skipSpace();
      if (!startsWith('=')) fail(`expected = after attribute ${attribute}`);
      at++;
      skipSpace();
      const quote = xml[at];
      if (quote !== '"' && quote !== "'") fail(`attribute ${attribute} is not quoted`);
      const end = xml.indexOf(quote!, at + 1);
      if (end < 0) fail(`unterminated attribute ${attribute}`);
      const raw = xml.slice(at + 1, end);
      if (raw.includes('<')) fail(`raw < in attribute ${attribute}`);
      if (Object.hasOwn(attributes, attribute)) fail(`duplicate attribute ${attribute}`);
      // Attribute-value normalisation (XML 1.0, 3.3.3): literal whitespace becomes a space; only character references keep a newline or tab.
      attributes[attribute] = decode(raw.replace(/\r\n|[\t\n\r]/g, ' '), at + 1);
      at = end + 1;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      if (at >= xml.length) fail(`unclosed element <${tag}>`);
      if (startsWith('</')) {
        at += 2;
        const closing = name();
        if (closing !== tag) fail(`</${closing}> closes <${tag}>`);
        skipSpace();
        if (!startsWith('>')) fail(`expected > after </${closing}`);
        at++;
        return { name: tag, attributes, children, text };
      }
      if (startsWith('<!--')) comment();
      else if (startsWith('<![CDATA[')) {
        const end = xml.indexOf(']]>', at);
        if (end < 0) fail('unterminated CDATA');
        text += xml.slice(at + 9, end);
        at = end + 3;
      } else if (startsWith('<')) children.push(element());
      else {
        const end = xml.indexOf('<', at);
        const raw = xml.slice(at, end < 0 ? xml.length : end);
        if (raw.includes(']]>')) fail(']]> in character data');
        text += decode(raw, at);
        at += raw.length;
      }
    }
  };

  if (startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end < 0) fail('unterminated XML declaration');
    if (!/^<\?xml\s+version="1\.0"(\s+encoding="UTF-8")?\s*\?>$/.test(xml.slice(0, end + 2))) fail('malformed XML declaration');
    at = end + 2;
  }
  misc();
  const root = element();
  misc();
  if (at < xml.length) fail('content after the root element');
  return root;
}

/** Every element named `name` under (and including) `root`, in document order. */
export function findAll(root: XmlElement, name: string): XmlElement[] {
  return [...(root.name === name ? [root] : []), ...root.children.flatMap((child) => findAll(child, name))];
}
