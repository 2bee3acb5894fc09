/**
 * The trusted-points rules, applied in ledger order when items are sealed (and replayed by
 * `kit chain verify`). Pure: they work on a `PointsState`, which the sealer loads from and saves to
 * the database and the verifier keeps in memory. A rule that fails makes the item fail (lookup `{}`).
 */
import { DEDUCTION_CODE_TTL_MS, parsePoints } from '@kit/shared';
import type { DeductionClaims } from './deduction-code';
import type { ActionItem } from './actions';

/** How far a code's issue time may lie after its acceptance (clock differences between instances). */
const FUTURE_SKEW_MS = 60_000;

/** A ledger item for the rules: its `type` and `args` (checked by that type's schema, see `acceptedItem`) and where it stands. */
export type PointsTx = ActionItem & {
  seq: number;
  /** The uploading (signing) app. */
  appId: string;
  /** When the item was accepted (Unix ms); a deduction code's age is taken at this moment. */
  acceptedAt: number;
};

export interface Account {
  tokenAppId: string;
  tokenId: string;
  userAppId: string;
  userId: string;
}

export const accountKey = (a: Account): string => JSON.stringify([a.tokenAppId, a.tokenId, a.userAppId, a.userId]);
export const typeKey = (tokenAppId: string, tokenId: string): string => JSON.stringify([tokenAppId, tokenId]);

export type RuleResult = { ok: true } | { ok: false; reason: string };
const fail = (reason: string): RuleResult => ({ ok: false, reason });

export interface CodeReader {
  read(code: unknown): DeductionClaims | null;
}

/** What the rules read and change. Balances are integers of 1/100000 of a point. */
export class PointsState {
  readonly types = new Map<string, string>();
  readonly balances = new Map<string, { account: Account; units: number }>();
  readonly spent = new Map<string, number>();
  /** What changed since construction (the sealer writes only these). */
  readonly dirtyTypes = new Set<string>();
  readonly dirtyBalances = new Set<string>();
  readonly newSpent = new Set<string>();

  typeExists(tokenAppId: string, tokenId: string): boolean {
    return this.types.has(typeKey(tokenAppId, tokenId));
  }
  addType(tokenAppId: string, tokenId: string, name: string, loaded = false): void {
    const k = typeKey(tokenAppId, tokenId);
    this.types.set(k, name);
    if (!loaded) this.dirtyTypes.add(k);
  }
  balance(a: Account): number {
    return this.balances.get(accountKey(a))?.units ?? 0;
  }
  setBalance(a: Account, units: number, loaded = false): void {
    const k = accountKey(a);
    this.balances.set(k, { account: { tokenAppId: a.tokenAppId, tokenId: a.tokenId, userAppId: a.userAppId, userId: a.userId }, units });
    if (!loaded) this.dirtyBalances.add(k);
  }
  isSpent(uuid: string): boolean {
    return this.spent.has(uuid);
  }
  spend(uuid: string, seq: number, loaded = false): void {
    this.spent.set(uuid, seq);
    if (!loaded) this.newSpent.add(uuid);
  }
}

/** The point types, accounts and uuids an item touches, so the sealer can load them in bulk first. */
export function touches(tx: PointsTx, codes: CodeReader): { types: Array<[string, string]>; accounts: Account[]; uuids: string[] } {
  switch (tx.type) {
    case 'points.create':
      return { types: [[tx.appId, tx.args.tokenId]], accounts: [], uuids: [] };
    case 'points.issue': {
      const a = tx.args;
      return { types: [[tx.appId, a.tokenId]], accounts: [{ tokenAppId: tx.appId, tokenId: a.tokenId, userAppId: a.userAppId, userId: a.userId }], uuids: [] };
    }
    case 'points.transfer': {
      const a = tx.args;
      const tokenAppId = a.tokenAppId ?? tx.appId;
      return {
        types: [[tokenAppId, a.tokenId]],
        accounts: [
          { tokenAppId, tokenId: a.tokenId, ...a.from },
          { tokenAppId, tokenId: a.tokenId, ...a.to },
        ],
        uuids: [],
      };
    }
    case 'chainPay': {
      const c = codes.read(tx.args.code);
      if (!c) return { types: [], accounts: [], uuids: [] };
      return { types: [[c.tokenAppId, c.tokenId]], accounts: [c], uuids: [c.uuid] };
    }
    default:
      return { types: [], accounts: [], uuids: [] };
  }
}

/** Applies one points item to the state, or says why it fails (the state is then unchanged). */
export function applyPointsTx(state: PointsState, tx: PointsTx, codes: CodeReader): RuleResult {
  switch (tx.type) {
    case 'points.create': {
      const a = tx.args;
      if (state.typeExists(tx.appId, a.tokenId)) return fail(`point type "${a.tokenId}" of app ${tx.appId} already exists`);
      state.addType(tx.appId, a.tokenId, a.name);
      return { ok: true };
    }
    case 'points.issue': {
      const a = tx.args;
      if (a.tokenAppId !== undefined && a.tokenAppId !== tx.appId) return fail('only the issuing app may issue its points');
      if (!state.typeExists(tx.appId, a.tokenId)) return fail(`point type "${a.tokenId}" of app ${tx.appId} does not exist`);
      const to: Account = { tokenAppId: tx.appId, tokenId: a.tokenId, userAppId: a.userAppId, userId: a.userId };
      const after = state.balance(to) + parsePoints(a.amount);
      if (!Number.isSafeInteger(after)) return fail('the balance would exceed the largest representable amount');
      state.setBalance(to, after);
      return { ok: true };
    }
    case 'points.transfer': {
      const a = tx.args;
      const tokenAppId = a.tokenAppId ?? tx.appId;
      if (a.from.userAppId !== tx.appId) return fail("only the sender's app may transfer its user's points");
      if (!state.typeExists(tokenAppId, a.tokenId)) return fail(`point type "${a.tokenId}" of app ${tokenAppId} does not exist`);
      const units = parsePoints(a.amount);
      const from: Account = { tokenAppId, tokenId: a.tokenId, ...a.from };
      const to: Account = { tokenAppId, tokenId: a.tokenId, ...a.to };
      const have = state.balance(from);
      if (have < units) return fail('overdraw: the sender balance is below the amount');
      const credited = state.balance(to) + units;
      if (!Number.isSafeInteger(credited)) return fail('the balance would exceed the largest representable amount');
      state.setBalance(from, have - units);
      state.setBalance(to, credited);
      return { ok: true };
    }
    case 'chainPay': {
      const a = tx.args;
      const c = codes.read(a.code);
      if (!c) return fail('not an authentic deduction code');
      if (tx.acceptedAt - c.issuedAt > DEDUCTION_CODE_TTL_MS) return fail('the deduction code had expired when the item was accepted');
      if (c.issuedAt - tx.acceptedAt > FUTURE_SKEW_MS) return fail('the deduction code is issued in the future');
      const units = parsePoints(a.amount);
      if (units > c.maxUnits) return fail('the amount is above the code maxAmount');
      if (state.isSpent(c.uuid)) return fail('the deduction code uuid is already spent');
      if (!state.typeExists(c.tokenAppId, c.tokenId)) return fail(`point type "${c.tokenId}" of app ${c.tokenAppId} does not exist`);
      const have = state.balance(c);
      if (have < units) return fail('overdraw: the balance is below the amount');
      state.setBalance(c, have - units);
      state.spend(c.uuid, tx.seq);
      return { ok: true };
    }
    default:
      return fail(`${tx.type} is not a points action`);
  }
}
