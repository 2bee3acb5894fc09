/** What a page of the docs names that a reader types or reads off a screen: commands, settings, routes and paths (test/docs/chinese-guide.test.ts). */
import { CONFIG_KEYS } from '../../server/src/configuration';

/** Code spans, code blocks and autolinks: where commands, settings, routes and paths are written. */
function code(text: string): string[] {
  const blocks = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const rest = text.replace(/^```[\s\S]*?^```/gm, '');
  const spans = [...rest.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const links = [...rest.matchAll(/<(https?:\/\/[^>\s]+)>/g)].map((m) => m[1]);
  return [...blocks, ...spans, ...links];
}

/** What a page names that its other language must name too. */
export function named(text: string): { commands: Set<string>; settings: Set<string>; paths: Set<string> } {
  const commands = new Set([...text.matchAll(/\bnpm (?:run(?: -s)? [\w:-]+|start|test|install|ci|pack)\b/g)].map((m) => m[0].replace(' -s ', ' ')));
  const bareKeys = CONFIG_KEYS.filter((k) => !k.includes('_'));
  const settings = new Set([
    ...[...text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((m) => m[0]),
    ...code(text).flatMap((c) => bareKeys.filter((k) => new RegExp(`\\b${k}\\b`).test(c))),
  ]);
  const paths = new Set(
    code(text)
      .flatMap((c) => c.split(/[\s"'(),;=]+/))
      .map((t) => t.replace(/[.:]+$/, ''))
      .filter((t) => t.includes('/') && !/^[^/]*\/\/?$/.test(t)),
  );
  return { commands, settings, paths };
}
