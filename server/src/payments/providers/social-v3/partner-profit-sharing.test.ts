/** Profit sharing over v3: requests as documented, answers read into what ps-channel checks. */
import { generateKeyPairSync } from 'node:crypto';
import { parseChinaTime } from '../china-time';
import type { V3Answer } from './client';
import {
  addReceiverRequest,
  amountsRequest,
  finishRequest,
  querySplitRequest,
  readAmounts,
  readDone,
  readSplit,
  removeReceiverRequest,
  splitRequest,
} from './partner-profit-sharing';
import { decryptSensitive, encryptSensitive } from './sensitive';

const m = { appid: 'wx8888888888888888', mch_id: '1900000001', sub_mch_id: '1900000109' };
const answer = (status: number, body: object | null): V3Answer => ({
  status,
  body: body as Record<string, unknown> | null,
  text: body ? JSON.stringify(body) : '',
  headers: {},
});

describe('API v3 profit sharing', () => {
  test('receivers: the name goes encrypted to the platform key, whose id is sent as Wechatpay-Serial', () => {
    const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const req = addReceiverRequest(m, {
      type: 'MERCHANT_ID',
      account: '1900000200',
      relationType: 'PARTNER',
      name: { ciphertext: encryptSensitive('深圳某某公司', platform.publicKey), serial: 'PUB_KEY_ID_01' },
    });
    expect(req).toMatchObject({
      method: 'POST',
      path: '/v3/profitsharing/receivers/add',
      platformSerial: 'PUB_KEY_ID_01',
      body: { sub_mchid: '1900000109', appid: 'wx8888888888888888', type: 'MERCHANT_ID', account: '1900000200', relation_type: 'PARTNER' },
    });
    expect(decryptSensitive((req.body as { name: string }).name, platform.privateKey)).toBe('深圳某某公司');
    expect(addReceiverRequest(m, { type: 'PERSONAL_OPENID', account: 'oX', relationType: 'STAFF' }).platformSerial).toBeUndefined();
    expect(removeReceiverRequest(m, { type: 'PERSONAL_OPENID', account: 'oX' }).body).toEqual({
      sub_mchid: '1900000109',
      appid: 'wx8888888888888888',
      type: 'PERSONAL_OPENID',
      account: 'oX',
    });
    expect(readDone(answer(200, { sub_mchid: '1900000109', type: 'PERSONAL_OPENID', account: 'oX' })).ok).toBe(true);
    expect(readDone(answer(400, { code: 'PARAM_ERROR', message: 'bad' }))).toMatchObject({ ok: false, errCode: 'PARAM_ERROR' });
  });

  test('a split, its query, finishing and the unsplit amount', () => {
    const split = splitRequest(m, {
      transaction_id: '4208450740201411110007820472',
      out_order_no: 'P20150806125346',
      receivers: [{ type: 'MERCHANT_ID', account: '1900000200', amount: 100, description: '分给商户A' }],
      finish: true,
    });
    expect(split.body).toMatchObject({
      transaction_id: '4208450740201411110007820472',
      out_order_no: 'P20150806125346',
      unfreeze_unsplit: true,
      receivers: [{ amount: 100 }],
    });
    expect(querySplitRequest(m, '4208450740201411110007820472', 'P20150806125346').path).toBe(
      '/v3/profitsharing/orders/P20150806125346?sub_mchid=1900000109&transaction_id=4208450740201411110007820472',
    );
    expect(finishRequest(m, { transaction_id: '42', out_order_no: 'P1', description: '解冻全部剩余资金' })).toMatchObject({
      path: '/v3/profitsharing/orders/unfreeze',
      body: { sub_mchid: '1900000109', transaction_id: '42', out_order_no: 'P1' },
    });
    expect(amountsRequest('42').path).toBe('/v3/profitsharing/transactions/42/amounts');

    const queried = readSplit(
      answer(200, {
        sub_mchid: '1900000109',
        transaction_id: '4208450740201411110007820472',
        out_order_no: 'P20150806125346',
        order_id: '3008450740201411110007820472',
        state: 'FINISHED',
        receivers: [
          {
            amount: 100,
            description: '分给商户A',
            type: 'MERCHANT_ID',
            account: '1900000200',
            result: 'SUCCESS',
            fail_reason: '',
            detail_id: '36011111111111111111111',
            create_time: '2015-05-20T13:29:35+08:00',
            finish_time: '2015-05-20T13:29:35+08:00',
          },
        ],
      }),
    );
    expect(queried.fields).toMatchObject({ order_id: '3008450740201411110007820472', status: 'FINISHED' });
    const receivers = JSON.parse(queried.fields.receivers) as Array<{ result: string; finish_time: string; amount: number }>;
    expect(receivers).toEqual([
      { type: 'MERCHANT_ID', account: '1900000200', amount: 100, description: '分给商户A', result: 'SUCCESS', finish_time: '20150520132935' },
    ]);
    expect(parseChinaTime(receivers[0].finish_time)).toBe(Date.parse('2015-05-20T13:29:35+08:00'));
    expect(readSplit(answer(404, { code: 'RESOURCE_NOT_EXISTS', message: '记录不存在' })).errCode).toBe('ORDER_NOT_EXIST');
    expect(readAmounts(answer(200, { transaction_id: '42', unsplit_amount: 1000 })).fields.unsplit_amount).toBe('1000');
    expect(() => readAmounts(answer(200, { transaction_id: '42', unsplit_amount: '1000' }))).toThrow(/not the documented JSON/);
  });
});
