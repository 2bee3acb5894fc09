/** The mini-program's tables (migration 0013_mini_program). */

/** The deployment's one access token per mini-program app id, and the lease of whoever refreshes it. */
export interface MpAccessTokensTable {
  appid: string;
  /** Sealed under the master key; null before the first refresh. */
  token_enc: string | null;
  expires_at: number;
  fetched_at: number;
  /** The last forced refresh by any instance (0: none). */
  forced_at: number;
  lease_owner: string | null;
  lease_until: number;
}

/** The code the platform drew for an order, as it answered it. */
export interface MpCodesTable {
  prepay_id: string;
  scene: string;
  content_type: string;
  image: Buffer;
  created_at: number;
}

export interface MiniProgramTables {
  mp_access_tokens: MpAccessTokensTable;
  mp_codes: MpCodesTable;
}
