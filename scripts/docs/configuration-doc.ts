/** The generated part of docs/configuration.md: one row per setting of the config schema, from its `.describe()`. */
import { settingDocs } from '../../server/src/configuration';
import { code, table } from './markdown';

const linked = (text: string) => text.replace(/docs\/([a-z-]+)\.md/g, '[$1]($1.md)');
const shown = (value: string | undefined) => (value === undefined ? 'unset' : value === '' ? 'empty' : code(value));

export function renderConfiguration(): string {
  const rows = settingDocs().map((s) => {
    const dflt = s.development === s.production ? shown(s.development) : `${shown(s.development)} (production: ${shown(s.production)})`;
    return [code(s.key), dflt, linked(s.description)];
  });
  return ['## Every setting', '', table(['variable', 'default', 'meaning'], rows)].join('\n');
}
