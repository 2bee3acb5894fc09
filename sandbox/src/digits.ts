/** Random decimal digits, for the ids and codes the sandbox's platforms make up. */
import { randomBytes } from 'node:crypto';

export function randomDigits(n: number): string {
  let s = '';
  for (const b of randomBytes(n)) s += String(b % 10);
  return s;
}
