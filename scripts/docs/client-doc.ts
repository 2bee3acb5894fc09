/**
 * The `KitClient` methods by specification section, for docs/api.md, read from the client's own
 * source (`shared/src/client.ts`) with the TypeScript parser: each public method, its parameters,
 * its doc comment (or the route's summary), and the endpoint it calls (directly, or through another
 * method of the client), whose section comes from the route list of the OpenAPI document. A method
 * added, renamed or pointed at another endpoint changes the table; the docs test then fails until
 * `npm run docs` is run.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROUTE_DOCS } from '../../server/src/openapi/document';
import { code, table } from './markdown';

export const CLIENT_SOURCE = path.resolve(__dirname, '../../shared/src/client.ts');

export interface ClientMethod {
  name: string;
  params: string;
  summary: string;
  /** `POST /submerchant-pay/socialPayNative`, or null for a method that calls no endpoint. */
  endpoint: string | null;
  section: string | null;
}

/** `/submerchant-pay/prePay/${…}` → `/submerchant-pay/prePay/:x`, to match route paths. */
function pathPattern(node: ts.Expression): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => `:x${s.literal.text}`).join('');
  return null;
}

const routeKey = (method: string, p: string) => `${method.toUpperCase()} ${p.replace(/:[A-Za-z]+/g, ':x')}`;

/** A doc comment on one line, without the section number it starts with (the table has its own column). */
function oneLine(text: string): string {
  const flat = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^4\.\d+(?:–4\.\d+)?:?\s*/, '');
  return flat ? flat[0].toUpperCase() + flat.slice(1) : flat;
}

export function readClientMethods(source = fs.readFileSync(CLIENT_SOURCE, 'utf8')): ClientMethod[] {
  const file = ts.createSourceFile('client.ts', source, ts.ScriptTarget.Latest, true);
  const cls = file.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === 'KitClient');
  if (!cls) throw new Error('shared/src/client.ts has no class KitClient');
  const routes = new Map(ROUTE_DOCS.map((r) => [routeKey(r.method, r.path), r]));

  const methods = cls.members.filter(
    (m): m is ts.MethodDeclaration =>
      ts.isMethodDeclaration(m) &&
      ts.isIdentifier(m.name) &&
      !m.modifiers?.some((x) => x.kind === ts.SyntaxKind.PrivateKeyword || x.kind === ts.SyntaxKind.ProtectedKeyword),
  );
  const direct = new Map<string, string | null>();
  const calls = new Map<string, string[]>();
  for (const m of methods) {
    let endpoint: string | null = null;
    const used: string[] = [];
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.expression.kind === ts.SyntaxKind.ThisKeyword) {
        const callee = n.expression.name.text;
        const args = n.arguments;
        // this.call(METHOD, PATH, …) and this.expect(STATUS, METHOD, PATH, …)
        const at = callee === 'call' ? 0 : callee === 'expect' ? 1 : -1;
        // this.payVia(WAY, …): the way's own endpoint.
        if (callee === 'payVia' && args.length && ts.isStringLiteral(args[0]) && endpoint === null) endpoint = `POST /submerchant-pay/${args[0].text}`;
        else if (at >= 0 && args.length > at + 1 && ts.isStringLiteral(args[at]) && endpoint === null) {
          const p = pathPattern(args[at + 1]);
          if (p) endpoint = `${args[at].text} ${p}`;
        } else if (at < 0) used.push(callee);
      }
      ts.forEachChild(n, visit);
    };
    if (m.body) visit(m.body);
    direct.set((m.name as ts.Identifier).text, endpoint);
    calls.set((m.name as ts.Identifier).text, used);
  }
  const endpointOf = (name: string, seen = new Set<string>()): string | null => {
    if (seen.has(name)) return null;
    seen.add(name);
    return direct.get(name) ?? (calls.get(name) ?? []).map((c) => endpointOf(c, seen)).find((e) => e) ?? null;
  };

  return methods
    .filter((m) => !['call', 'expect'].includes((m.name as ts.Identifier).text))
    .map((m) => {
      const name = (m.name as ts.Identifier).text;
      const endpoint = endpointOf(name);
      const [verb, p] = endpoint ? endpoint.split(' ') : [];
      const route = endpoint ? routes.get(routeKey(verb, p)) : undefined;
      // `payVia(way, …)` reaches every way's own endpoint: one per way, none in particular.
      if (name === 'payVia')
        return { name, params: 'way, prepayId, input', summary: 'One way’s own endpoint: `POST /submerchant-pay/<way>`', endpoint: null, section: '7.2' };
      if (endpoint && !route) throw new Error(`KitClient.${name} calls ${endpoint}, which is no route of the service`);
      const doc = ts
        .getJSDocCommentsAndTags(m)
        .filter(ts.isJSDoc)
        .map((d) => (typeof d.comment === 'string' ? d.comment : (d.comment ?? []).map((c) => c.text).join('')))
        .join(' ');
      const params = m.parameters.map((prm) => `${prm.name.getText(file)}${prm.questionToken || prm.initializer ? '?' : ''}`).join(', ');
      return {
        name,
        params,
        summary: oneLine(doc) || (route?.summary ?? ''),
        endpoint: route ? `${route.method.toUpperCase()} ${route.path}` : null,
        section: route?.section ?? null,
      };
    });
}

const sectionOrder = (s: string | null) =>
  s
    ? s
        .split('.')
        .map((n) => n.padStart(3, '0'))
        .join('.')
    : '999';

export function renderClientMethods(methods = readClientMethods()): string {
  const rows = methods
    .slice()
    .sort((a, b) => sectionOrder(a.section).localeCompare(sectionOrder(b.section)))
    .map((m) => [m.section ?? '—', code(`${m.name}(${m.params})`), m.endpoint ? code(m.endpoint) : '—', m.summary]);
  return [
    '## KitClient methods by specification section',
    '',
    'Every public method of `KitClient` (`@kit/shared`, [using the typed client](#using-the-typed-client)), read from `shared/src/client.ts`: the section it implements, the endpoint it calls and what it does. `call(method, path, {query, body})` signs any other request and returns the raw answer; `expect(status, method, path, options)` also checks `status`.',
    '',
    table(['section', 'method', 'endpoint', 'what it does'], rows),
  ].join('\n');
}
