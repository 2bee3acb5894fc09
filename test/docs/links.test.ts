/** Every relative link of README.md, README.zh-CN.md and docs/*.md reaches a file of the repository, and its #anchor a heading there. */
import fs from 'node:fs';
import path from 'node:path';
import { anchorsOf } from './anchors';

const root = path.join(__dirname, '../..');
const pages = [
  'README.md',
  'README.zh-CN.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown without its fenced code blocks and inline code spans. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

const links = pages.flatMap((page) =>
  [...prose(fs.readFileSync(path.join(root, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href))
    .map((href) => [page, href] as const),
);

describe('documentation links', () => {
  it('finds links to check', () => expect(links.length).toBeGreaterThan(20));

  it.each(links)('%s → %s', (page, href) => {
    const [file, anchor] = href.split('#');
    const target = file ? path.resolve(path.dirname(path.join(root, page)), decodeURIComponent(file)) : path.join(root, page);
    expect(path.relative(root, target).startsWith('..')).toBe(false);
    expect(fs.existsSync(target)).toBe(true);
    if (anchor !== undefined && target.endsWith('.md')) expect([...anchorsOf(fs.readFileSync(target, 'utf8'))]).toContain(anchor);
  });
});
