/**
 * Text as every view may show it: a control character (a log's ANSI colours,
 * a stray NUL) would be invisible or garbled, so it becomes a visible \xNN
 * (tab and line breaks stay); an unpaired surrogate cannot be written as
 * UTF-8 at all, so it becomes U+FFFD. The same text always looks the same.
 */
export function visibleText(value: string): string {
  return value
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
