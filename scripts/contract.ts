/**
 * Compiles the anchor contract (server/src/chain/anchor/KitAnchor.sol) with the npm `solc` package:
 * the compiler is JavaScript in node_modules, so nothing is downloaded. The artifact (ABI and
 * bytecode) is committed next to the source, and `npm run build` compiles again and rewrites it: the
 * bytecode a merchant deploys is the one reviewed in the repository, the service and the `kit`
 * command need no build step, and `scripts/contract.test.ts` fails when source and artifact differ.
 */
import fs from 'node:fs';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- solc ships CommonJS without types
const solc = require('solc') as { version(): string; compile(input: string): string };

export const CONTRACT_DIR = path.resolve(__dirname, '../server/src/chain/anchor');
export const CONTRACT_SOURCE = path.join(CONTRACT_DIR, 'KitAnchor.sol');
export const CONTRACT_ARTIFACT = path.join(CONTRACT_DIR, 'kit-anchor.json');
/**
 * Paris (the Merge) rather than the compiler's newest default: no PUSH0 or later opcodes, so the
 * same bytecode runs on consortium chains and L2s that have not adopted Shanghai or Cancun.
 */
export const EVM_VERSION = 'paris';

export interface AnchorArtifact {
  contractName: 'KitAnchor';
  compiler: string;
  evmVersion: string;
  optimizer: { enabled: boolean; runs: number };
  abi: unknown[];
  bytecode: string;
}

export function compileAnchorContract(): AnchorArtifact {
  const source = fs.readFileSync(CONTRACT_SOURCE, 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'KitAnchor.sol': { content: source } },
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 1000 },
      // No metadata hash: the bytecode then depends on the source and settings only, not on file paths or comments' bytes.
      metadata: { bytecodeHash: 'none' },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error' || e.severity === 'warning');
  if (errors.length) throw new Error(`KitAnchor.sol does not compile cleanly:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const c = output.contracts['KitAnchor.sol'].KitAnchor;
  return {
    contractName: 'KitAnchor',
    compiler: solc.version(),
    evmVersion: EVM_VERSION,
    optimizer: input.settings.optimizer,
    abi: c.abi,
    bytecode: `0x${c.evm.bytecode.object}`,
  };
}

export const artifactText = (a: AnchorArtifact): string => `${JSON.stringify(a, null, 2)}\n`;
