/** The reference's Chinese prose covers every signed API operation, the service's own, every group and the signing schemes. */
import { API_ROUTES } from '../routes';
import { routeDoc } from '../routes/route';
import { buildOpenApiDocument, operationIdOf } from './document';
import { operationRoutes } from './paths/operations';
import { ZH_OPERATIONS, ZH_TAGS } from './zh-cn';

describe('the reference in Chinese', () => {
  // A development plug-in's group says itself in Chinese (`plugins/dev-plugin.ts`).
  const dev = { tag: { name: 'Plug-in', description: 'A development plug-in', zh: '开发插件' }, routes: [] };
  const zh = buildOpenApiDocument({ dev, lang: 'zh-CN' });
  const en = buildOpenApiDocument({ dev });
  const operations = (doc: typeof zh) =>
    Object.values(doc.paths ?? {}).flatMap((ops) => Object.values(ops as Record<string, { operationId: string; summary: string; description?: string }>));

  it('has a text for every operation of the signed API and of the service itself, and no text for an operation that does not exist', () => {
    const ids = [...API_ROUTES.map(routeDoc).filter((d) => !d.zh), ...operationRoutes()].map(operationIdOf);
    expect(ids.filter((id) => !ZH_OPERATIONS[id])).toEqual([]);
    const all = new Set(operations(en).map((o) => o.operationId));
    expect(Object.keys(ZH_OPERATIONS).filter((id) => !all.has(id))).toEqual([]);
  });

  it('says them in Chinese with the section first, and keeps everything that is not prose as it is', () => {
    const refund = operations(zh).find((o) => o.operationId === 'postSubmerchantPayRefund')!;
    expect(refund.summary).toBe('4.6 全额退款一笔已支付订单');
    expect(refund.description).toMatch(/^规范第 4\.6 节。除签名外/);
    expect(zh.info.description).toMatch(/^面向在社交应用中销售的商户/);
    for (const tag of zh.tags ?? []) expect([tag.name, tag.description]).toEqual([tag.name, { ...ZH_TAGS, 'Plug-in': '开发插件' }[tag.name]]);
    expect(zh.tags?.map((t) => t.name)).toContain('Plug-in');
    expect(Object.keys(zh.paths ?? {})).toEqual(Object.keys(en.paths ?? {}));
    expect(JSON.stringify(zh.components?.schemas)).toBe(JSON.stringify(en.components?.schemas));
  });
});
