/**
 * Profit sharing from a merchant's backend, against a running kit and its payment sandbox:
 * contract → parameters → order with profit sharing → pay → add receivers → split → follow → finish.
 *
 *   npm run kit -- demo create > demo.json
 *   npm run kit -- merchant contract "$(node -p "require('./demo.json').parentMerchantId")"
 *   KIT_DEMO=demo.json npx tsx examples/profit-sharing.ts
 *
 * KIT_DEMO names a JSON file with `appId`, `appSecret`, `parentMerchantId`, `subMerchantId` (what
 * `demo create` prints); KIT_URL is the kit's base URL (default http://127.0.0.1:8080).
 */
import fs from 'node:fs';
import { KitClient } from '@kit/shared';

async function main() {
  const demo = JSON.parse(fs.readFileSync(process.env.KIT_DEMO ?? 'demo.json', 'utf8')) as {
    appId: string;
    appSecret: string;
    parentMerchantId: string;
    subMerchantId: string;
  };
  const baseUrl = process.env.KIT_URL ?? 'http://127.0.0.1:8080';
  const kit = new KitClient({ baseUrl, appId: demo.appId, appSecret: demo.appSecret });
  const say = (step: string, detail: unknown = '') => console.log(`${step.padEnd(28)} ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);

  // 1. Parameters: orders of this merchant (and its sub-merchants) are placed with profit sharing.
  //    4.7 merges, so the merchant number and callback URL set before stay as they were.
  await kit.setPaymentParams(demo.parentMerchantId, 'SocialNative', { profitSharing: true });
  say('parameters', 'profitSharing: true');

  // 2. An order, its scan-code payment (placed with profit sharing), paid by a payer in the sandbox.
  const { prepayId } = await kit.createPrepay({ subMerchantId: demo.subMerchantId, totalAmount: '88.00', extraInfo: { items: [{ name: 'Tea set', qty: 1 }] } });
  const { args } = await kit.socialPayNative(prepayId);
  const paid = await fetch(`${baseUrl}/sandbox/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ codeUrl: args.code_url }),
  });
  if (!paid.ok) throw new Error(`the sandbox did not pay: ${await paid.text()}`);
  const detail = await kit.waitForPayment(prepayId);
  say('order paid', { prepayId, status: detail.status, totalAmount: detail.totalAmount });

  // 3. Receivers, once per merchant: an enterprise (its registered name) and a person (open id).
  const partner = { type: 'MERCHANT_ID', account: '1900000555', name: 'Tea Farm Co-op', relationType: 'SUPPLIER' } as const;
  const staff = { type: 'PERSONAL_OPENID', account: 'oDemoStaffMember0000000001', relationType: 'STAFF' } as const;
  await kit.addProfitSharingReceiver({ merchantId: demo.parentMerchantId, ...partner });
  await kit.addProfitSharingReceiver({ merchantId: demo.parentMerchantId, ...staff });
  say('receivers added', [partner.account, staff.account]);

  // 4. A split: at most 30 % of the order in all (26.40 of 88.00). Accepted at once.
  const outOrderNo = `split-${prepayId}`;
  const accepted = await kit.shareProfit({
    prepayId,
    outOrderNo,
    receivers: [
      { type: partner.type, account: partner.account, amount: '17.60', description: 'supplier share (20 %)' },
      { type: staff.type, account: staff.account, amount: '4.40', description: 'staff bonus (5 %)' },
    ],
  });
  say('split accepted', accepted.data);

  // 5. Follow it: each receiver's result arrives later.
  const result = await kit.waitForProfitSharing(prepayId, outOrderNo, { intervalMs: 500, timeoutMs: 60_000 });
  for (const r of result.data.receivers) say(`  ${r.account}`, `${r.amount} ${r.result}${r.failReason ? ` (${r.failReason})` : ''}`);
  say('split', result.data.state);
  say('amounts', (await kit.profitSharingAmounts(prepayId)).data);

  // 6. Finish: the rest (66.00) is released to the merchant; no split may follow.
  const finished = await kit.finishProfitSharing({ prepayId, outOrderNo: `finish-${prepayId}`, description: 'sharing done' });
  say('finish', finished.data);
  say('amounts', (await kit.profitSharingAmounts(prepayId)).data);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
