/**
 * Trusted points reads (4.12) and deduction codes (4.13). Balances change only through sealed
 * ledger items (points.issue / points.transfer / chainPay), never here.
 */
import type { Clock } from '@kit/shared/clock';
import {
  AmountError,
  CHAIN_VERSION,
  DEDUCTION_CODE_TTL_MS,
  KitError,
  formatPoints,
  parsePointsNumber,
  type BalanceQuery,
  type BalanceResponse,
  type DeductionCodeQuery,
  type DeductionCodeResponse,
} from '@kit/shared';
import type { PointsStore } from './points-store';
import type { DeductionCodes } from './deduction-code';

export class PointsService {
  constructor(
    private readonly store: PointsStore,
    private readonly codes: DeductionCodes,
    private readonly clock: Clock,
  ) {}

  /** Readable by the issuing app and by the user's app only. */
  async balance(signer: string, q: BalanceQuery): Promise<BalanceResponse> {
    if (signer !== q.tokenAppId && signer !== q.userAppId) {
      throw new KitError('not_owner', `app ${signer} is neither the issuing app nor the user's app`);
    }
    await this.requireType(q.tokenAppId, q.tokenId);
    const units = await this.store.balance(q);
    return {
      version: CHAIN_VERSION,
      status: 'success',
      data: { balance: formatPoints(units), tokenId: q.tokenId, tokenAppId: q.tokenAppId, userAppId: q.userAppId, userId: q.userId },
    };
  }

  /** Mints a deduction code; only the user's own app may ask for one. */
  async deductionCode(signer: string, q: DeductionCodeQuery, now = this.clock.now()): Promise<DeductionCodeResponse> {
    if (signer !== q.userAppId) throw new KitError('not_user_app', `only the user's app ${q.userAppId} may create a deduction code for its user`);
    let maxUnits: number;
    try {
      maxUnits = parsePointsNumber(q.maxAmount);
    } catch (e) {
      if (e instanceof AmountError) throw new KitError('invalid_amount', `maxAmount: ${e.message}`);
      throw e;
    }
    await this.requireType(q.tokenAppId, q.tokenId);
    if (await this.store.isSpent(q.uuid)) throw new KitError('uuid_spent', `uuid ${q.uuid} was already spent; start a new payment with a new uuid`);
    const code = this.codes.mint({
      tokenAppId: q.tokenAppId,
      tokenId: q.tokenId,
      userAppId: q.userAppId,
      userId: q.userId,
      maxUnits,
      uuid: q.uuid,
      issuedAt: now,
    });
    return {
      version: CHAIN_VERSION,
      status: 'success',
      data: { chainLinks: [code], uuid: q.uuid, maxAmount: formatPoints(maxUnits), expiresAt: now + DEDUCTION_CODE_TTL_MS },
    };
  }

  private async requireType(tokenAppId: string, tokenId: string): Promise<void> {
    if (!(await this.store.findType(tokenAppId, tokenId))) {
      throw new KitError('point_type_not_found', `point type "${tokenId}" of app ${tokenAppId} does not exist`);
    }
  }
}
