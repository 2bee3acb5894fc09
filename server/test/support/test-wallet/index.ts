/**
 * Acme Pay, a wallet that exists only in tests (docs/architecture.md, "Adding a wallet"): its looks
 * and declaration (`looks.ts`, `wallet.ts`), its provider (`provider.ts`) and its platform's stand-in
 * (`stand-in.ts`). It is registered as a wallet of the kit is, by a line in the providers'
 * registration list the composition root takes: `startRuntime(env, {providers: WITH_ACME})`, the
 * kit's list (`payments/providers/registry.ts`) with its line; nothing of the product is edited.
 */
import { PROVIDERS } from '../../../src/payments/providers/registry';
import { acme } from './provider';

export { acme } from './provider';
export { acmeWallet, acmeNative } from './wallet';
export { startAcmeStandIn, type AcmeStandIn } from './stand-in';

/** The kit's providers and Acme Pay's. */
export const WITH_ACME = [...PROVIDERS, acme] as const;
