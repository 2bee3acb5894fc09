/**
 * Deduction-code timing (specification section 8): how long a code is valid, and how often a
 * display shows a fresh one. Free of zod (the POS display imports it through `api/pos`); the
 * service's points rules, its 4.13 answer and the POS router read the same two numbers.
 */
export const DEDUCTION_CODE_TTL_MS = 20_000;
export const DEDUCTION_CODE_REFRESH_MS = 5_000;
