/**
 * The sandbox's payer side: paying a code or a mini-program/app payment (which makes the platform
 * notify the service, exactly as the real one would), the phone's mini-program login and the
 * platform's `jscode2session`, and what the cashier page shows.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '@kit/server/plugins/dev-plugin';
import { randomAlnum } from '@kit/server/plugins/kit';
import { compactTime } from './protocol/china-time';
import type { SandboxFaults } from './sandbox-faults';
import type { SandboxNotifier } from './sandbox-notifier';
import { randomDigits, sandboxOpenId, type SandboxPlatform } from './sandbox-platform';
import type { SandboxOrder, SandboxStore } from './sandbox-store';
import { SandboxError } from './sandbox-error';

export { SandboxError };

const LOGIN_CODE_TTL_MS = 5 * 60_000;

export class SandboxPayer {
  constructor(
    private readonly store: SandboxStore,
    private readonly platform: SandboxPlatform,
    private readonly notifier: SandboxNotifier,
    private readonly faults: SandboxFaults,
    private readonly config: Config,
  ) {}

  /** `POST /sandbox/pay`: the payer pays a code (`codeUrl`) or a mini-program/app payment (`prepayId`). */
  async pay(input: { codeUrl?: unknown; prepayId?: unknown; openId?: unknown }): Promise<{ transactionId: string; order: SandboxOrder }> {
    let o: SandboxOrder | undefined;
    if (typeof input.codeUrl === 'string' && input.codeUrl) {
      const token = /[?&]pr=([0-9A-Za-z]+)/.exec(input.codeUrl)?.[1];
      o = token ? await this.store.orderByCodeToken(token) : undefined;
    } else if (typeof input.prepayId === 'string' && input.prepayId) {
      o = await this.store.orderByPrepayId(input.prepayId.replace(/^prepay_id=/, ''));
    } else {
      throw new SandboxError(400, 'give codeUrl or prepayId');
    }
    if (!o) throw new SandboxError(404, 'unknown order');
    if (input.openId !== undefined && input.openId !== null && input.openId !== '') {
      if (typeof input.openId !== 'string') throw new SandboxError(400, 'openId must be a string');
      const payer = o.sub_openid ?? o.openid;
      if (o.trade_type === 'JSAPI' && payer !== input.openId) throw new SandboxError(403, 'openId is not the payer of this order');
    }
    if (o.state === 'CLOSED') throw new SandboxError(409, 'the order is closed');
    if (o.state === 'SUCCESS' || o.state === 'REFUND') throw new SandboxError(409, 'the order is already paid');
    const now = this.store.clock.now();
    if (o.time_expire !== null && o.time_expire < now) throw new SandboxError(409, 'the order has expired');
    const transactionId = `4200${compactTime(now).slice(0, 8)}${randomDigits(16)}`;
    const paid: SandboxOrder = { ...o, state: 'SUCCESS', transaction_id: transactionId, paid_at: now };
    const moved = await this.store.db.transaction().execute(async (trx) => {
      if (!(await this.store.moveOrder(o.prepay_id, 'NOTPAY', 'SUCCESS', { transaction_id: transactionId, paid_at: now }, trx))) return false;
      if (this.faults.current.payNotifications === 'deliver') {
        await this.notifier.enqueue(trx, o.prepay_id, { kind: 'pay', url: o.notify_url, ...this.platform.payNotice(paid) }, now);
      }
      return true;
    });
    if (!moved) throw new SandboxError(409, 'the order is no longer payable');
    this.notifier.wake();
    return { transactionId, order: paid };
  }

  /** Sends the payment notification of a paid order once more (tests of duplicate handling). */
  async renotify(prepayId: string): Promise<void> {
    const o = await this.store.orderByPrepayId(prepayId);
    if (!o || !o.transaction_id) throw new SandboxError(404, 'no paid order with this prepay id');
    await this.notifier.enqueue(this.store.db, o.prepay_id, { kind: 'pay', url: o.notify_url, ...this.platform.payNotice(o) }, this.store.clock.now(), 0);
    this.notifier.wake();
  }

  /** `POST /sandbox/login`: the phone side of the mini-program login. */
  async login(user?: unknown): Promise<{ code: string }> {
    if (user !== undefined && user !== null && (typeof user !== 'string' || user.length > 64))
      throw new SandboxError(400, 'user must be a string of at most 64 characters');
    const name = typeof user === 'string' && user ? user : `user-${randomAlnum(10)}`;
    const code = randomBytes(16).toString('hex');
    const now = this.store.clock.now();
    await this.store.insertLoginCode(code, name, now + LOGIN_CODE_TTL_MS);
    if (Math.random() < 0.01) void this.store.purgeLoginCodes(now).catch(() => undefined);
    return { code };
  }

  /** `GET /sandbox/sns/jscode2session`: like the platform, errors come as `{errcode, errmsg}`. */
  async jscode2session(q: Record<string, unknown>): Promise<Record<string, string | number>> {
    if (q.appid !== this.config.MP_APPID) return { errcode: 40013, errmsg: 'invalid appid' };
    if (q.secret !== this.config.MP_SECRET) return { errcode: 40125, errmsg: 'invalid appsecret' };
    if (q.grant_type !== 'authorization_code') return { errcode: 40002, errmsg: 'invalid grant_type' };
    const user = typeof q.js_code === 'string' && q.js_code ? await this.store.takeLoginCode(q.js_code, this.store.clock.now()) : null;
    if (!user) return { errcode: 40029, errmsg: 'invalid code' };
    return { openid: sandboxOpenId(q.appid as string, user), session_key: randomBytes(16).toString('base64') };
  }

  /** What the cashier page shows for `package=prepay_id=…`. */
  async cashierOrder(pkg: string): Promise<SandboxOrder | undefined> {
    const id = pkg.replace(/^prepay_id=/, '');
    return id ? this.store.orderByPrepayId(id) : undefined;
  }
}
