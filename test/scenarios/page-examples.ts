import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCENARIO_DOCS_FILE } from '../../src/cli/scenario-docs.js';

/** docs/scenarios.md as committed. */
export function scenarioPage(): string {
  return readFileSync(join(import.meta.dirname, '..', '..', SCENARIO_DOCS_FILE), 'utf8');
}

/** Every ```yaml block of the page, with the `## ` heading it stands under. */
export function yamlBlocks(page: string): Array<{ heading: string; yaml: string }> {
  const blocks: Array<{ heading: string; yaml: string }> = [];
  let heading = '';
  // Blocks inside a list item are indented with it; the fences say where each starts and ends.
  for (const match of page.matchAll(/^## (.*)$|^( *)```yaml\n([\s\S]*?)^\2```$/gm)) {
    if (match[1] !== undefined) heading = match[1];
    else blocks.push({ heading, yaml: dedent(match[3]!, match[2]!.length) });
  }
  return blocks;
}

function dedent(text: string, by: number): string {
  return text
    .split('\n')
    .map((line) => line.slice(Math.min(by, line.length - line.trimStart().length)))
    .join('\n');
}

/** The page's own first scenario: the first ```yaml block under "A first scenario", the one a reader copies. */
export function firstScenario(page: string): string {
  const block = yamlBlocks(page).find((b) => b.heading === 'A first scenario');
  if (!block) throw new Error(`${SCENARIO_DOCS_FILE} has no \`\`\`yaml block under a "## A first scenario" heading`);
  return block.yaml;
}
