/** Small helpers for writing Markdown tables and code blocks. */

/** A table cell: one line, `|` escaped. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim();
}

export function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
}

export const code = (value: string) => `\`${value}\``;

export function jsonBlock(value: unknown): string {
  return ['```json', JSON.stringify(value, null, 2), '```'].join('\n');
}
