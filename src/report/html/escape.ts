import { visibleText } from '../visible-text.js';

/** Text made safe inside HTML, an attribute's quotes included, and visible: a report shows what processes wrote, which may hold anything. */
export function escapeHtml(text: string): string {
  return visibleText(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
