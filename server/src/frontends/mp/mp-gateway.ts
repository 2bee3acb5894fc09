/**
 * What the mini-program router does for a payer. Like a merchant backend it calls this service's
 * public API over HTTP (4.2 detail, 4.4 mini-program payment arguments), signed as the app that
 * owns the order's sub-merchant. The only direct read is which app that is.
 */
import { KitApiError, KitError, KitNetworkError, PAY_VERSION, type KitClient, type PrepayDetail } from '@kit/shared';
import type { MpPayResponse } from '@kit/shared/api/mp';
import type { Services } from '../../services';
import type { SelfClients } from '../self-client';
import type { PayerLogin } from './payer-login';

export class MpGateway {
  constructor(
    private readonly services: Services,
    private readonly selfClients: SelfClients,
    private readonly login: PayerLogin,
  ) {}

  /** 4.2 for the page; `not_found` (404) when there is no such order. */
  async detail(prepayId: string, opts: { wait?: boolean; signal?: AbortSignal } = {}): Promise<PrepayDetail> {
    const client = await this.clientFor(prepayId);
    try {
      return await client.prepayDetail(prepayId, opts);
    } catch (e) {
      throw upstream(e, prepayId);
    }
  }

  /** Code → open id → 4.4. A refusal by 4.4 is an answer (the page asks to scan again), not an error. */
  async pay(prepayId: string, code: string): Promise<MpPayResponse> {
    const client = await this.clientFor(prepayId);
    const openId = await this.login.openIdFor(code);
    let answer: { httpStatus: number; body: Record<string, unknown> };
    try {
      answer = await client.call('POST', '/submerchant-pay/socialPay', { body: { prepayId, openId } });
    } catch (e) {
      throw upstream(e, prepayId);
    }
    const { body } = answer;
    if (answer.httpStatus === 200 && body.status === 'success' && body.args && typeof body.args === 'object') {
      return { version: PAY_VERSION, status: 'success', args: body.args as Extract<MpPayResponse, { args: unknown }>['args'] };
    }
    return {
      version: PAY_VERSION,
      status: typeof body.status === 'string' && body.status !== 'success' ? body.status : 'fail',
      error: typeof body.error === 'string' ? body.error : undefined,
      msg: typeof body.msg === 'string' ? body.msg : `payment arguments refused (HTTP ${answer.httpStatus})`,
    };
  }

  private async clientFor(prepayId: string): Promise<KitClient> {
    const appId = await this.services.prepay.subMerchantAppOf(prepayId);
    if (!appId) throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    try {
      return await this.selfClients.forApp(appId);
    } catch {
      // The owning app was disabled or removed: the order cannot be served.
      throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    }
  }
}

function upstream(e: unknown, prepayId: string): Error {
  if (e instanceof KitApiError) {
    if (e.isNotFound) return new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    return new KitError('mp_upstream_failed', `the service answered ${e.httpStatus} ${e.error ?? ''}`.trim());
  }
  if (e instanceof KitNetworkError) return new KitError('mp_upstream_unreachable');
  return e instanceof Error ? e : new Error(String(e));
}
